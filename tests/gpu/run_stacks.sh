#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Python frames (--stacks, docs/stacks-python.md) on a machine with an
# NVIDIA GPU and PyTorch (the H200: CPython 3.12), from the repository root
# with a built tree in $CT_BUILD (default build/). About 2 minutes.
#
#  1. The interpreter's layout: tools/pyoffsets/gen.sh against its own
#     internal headers where python3.X-dev is installed, compared with
#     core/symbols/pyoffsets_gen.h's row (else: said, and the attach-time
#     checks are what vouch for the row).
#  2. A PyTorch training step (tests/gpu/torch_stacks_step.py) traced with
#     --plugin cudart,cuda --stacks: the cudaMalloc made under make() names
#     the script's line; a launch made in forward() names forward's line,
#     step's and the loop's; the share of records with a py_stack per thread.
#  3. Cost: ms per step untraced, traced, traced with --stacks (ROUNDS rounds).
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-stacks}
ROUNDS=${ROUNDS:-3}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
[ -x "$B/cudatracer" ] || { echo "no built tree in $B: build it first (scripts/build.sh)"; exit 1; }
T=("$B/cudatracer" --plugin cudart,cuda)

echo "== 1. the layout of $($PY -c 'import sys; print(sys.version.split()[0], sys.executable)')"
inc=$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if [ -d "$inc/internal" ]; then
	tools/pyoffsets/gen.sh "$inc" | grep -v '^/\*\|^\s*/\*' >"$OUT/row.txt"
	ver=$(sed -n 's/^\s*{ \([0-9]*\), \([0-9]*\), {/\1, \2/p' "$OUT/row.txt")
	awk -v v="{ $ver, {" 'index($0, v) {on=1} on {print} on && /} },/ {exit}' core/symbols/pyoffsets_gen.h |
		grep -v '^\s*/\*' >"$OUT/table_row.txt"
	if diff "$OUT/table_row.txt" "$OUT/row.txt" >"$OUT/row.diff"; then echo "row: the same as $inc's headers"
	else echo "row: DIFFERS from $inc's headers:"; cat "$OUT/row.diff"; fi
else
	echo "row: $inc has no internal headers (no python3.X-dev): checked at attach only"
fi

echo "== 2. a training step with --stacks"
"${T[@]}" --stacks -o "jsonl:$OUT/step.jsonl" -- $PY tests/gpu/torch_stacks_step.py 20 \
	>"$OUT/step.out" 2>"$OUT/step.err"
echo "exit $?"
grep -iE "python|warning|error|lost" "$OUT/step.err" | head -8
$PY - "$OUT" <<'PY'
import collections, json, sys
out = sys.argv[1]
info = json.loads(open(out + "/step.out").read().strip().splitlines()[-1])
marks, script = info["marks"], info["file"]
ev = [e for e in map(json.loads, open(out + "/step.jsonl")) if e.get("kind") != "meta" and "api" in e]
def lines(e):
    return [(f["function"], f["line"]) for f in e.get("py_stack", []) if f["file"] == script]
ok = True
def want(what, cond, e):
    global ok
    ok &= bool(cond)
    print("%s %s: %s" % ("PASS" if cond else "FAIL", what,
                         json.dumps(e.get("py_stack") if e else None)[:600]))
mallocs = [e for e in ev if e["api"] == "cudaMalloc"]
m = next((e for e in mallocs if ("make", marks["MODEL"]) in lines(e) or ("make", marks["DATA"]) in lines(e)), None)
want("a cudaMalloc under make() names line %d or %d" % (marks["MODEL"], marks["DATA"]), m, m or (mallocs[:1] or [None])[0])
launches = [e for e in ev if e["api"] in ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")]
l = next((e for e in launches if lines(e)[:1] == [("forward", marks["FORWARD"])]), None)
want("a launch in forward() names line %d" % marks["FORWARD"], l, l or (launches[:1] or [None])[0])
if l:
    want("... then step() line %d and the loop line %d or %d" % (marks["STEP"], marks["LOOP"], marks["MAIN"]),
         ("step", marks["STEP"]) in lines(l) and (("main", marks["LOOP"]) in lines(l) or ("main", 0) not in lines(l)), l)
by = collections.Counter((e["tid"] == e["pid"], "py_stack" in e) for e in ev)
print("records: main thread %d with py_stack, %d without; other threads %d with, %d without" %
      (by[(True, True)], by[(True, False)], by[(False, True)], by[(False, False)]))
whys = collections.Counter(f["why"] for e in ev for f in e.get("py_stack", []) if f.get("why"))
print("frames with a why: %s" % dict(whys.most_common(5)))
print("RESULT %s" % ("PASS" if ok else "FAIL"))
PY

echo "== 3. ms per step: untraced, traced, traced --stacks ($ROUNDS rounds)"
for r in $(seq "$ROUNDS"); do
	a=$($PY tests/gpu/torch_stacks_step.py 200 | tail -1)
	b=$("${T[@]}" -o jsonl:/dev/null -- $PY tests/gpu/torch_stacks_step.py 200 2>/dev/null | tail -1)
	c=$("${T[@]}" --stacks -o jsonl:/dev/null -- $PY tests/gpu/torch_stacks_step.py 200 2>/dev/null | tail -1)
	echo "round $r: $($PY -c 'import json,sys; print(" ".join("%.3f" % json.loads(s)["ms_per_step"] for s in sys.argv[1:]))' "$a" "$b" "$c")"
done
