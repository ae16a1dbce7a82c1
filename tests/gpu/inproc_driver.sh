#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The in-process engine's driver side on a GPU, both engines (--plugin
# cudart,cuda), from the repository root with a built tree in $CT_BUILD:
#  1. tests/programs/cudart_gpu.cu (valid on a GPU, -cudart shared) and
#     cudart_calls (made-up handles: it crashes on a GPU, traced or not):
#     exit status untraced and traced, driver calls with their parents, the
#     calls only one engine saw;
#  2. the PyTorch loop (STEPS steps): events by plugin and the top APIs;
#  3. LD_DEBUG=bindings under --engine inproc: where torch's libraries'
#     cuda* references bind (file -> file, count) and which libcudart is mapped.
# Summary to stdout; a few files under $OUT.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-inproc-driver}
STEPS=${STEPS:-100}
W=$(mktemp -d)
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc -cudart shared -o "$W/cudart_gpu" tests/programs/cudart_gpu.cu || exit 1
nvcc -cudart shared -o "$W/cudart_calls" tests/programs/cudart_calls.cu || exit 1
tally() { python3 - "$@" <<'PY'
import collections, json, sys
def load(p):
    return [x for x in map(json.loads, open(p)) if "api" in x]
e, i = load(sys.argv[1]), load(sys.argv[2])
for name, ev in (("ebpf", e), ("inproc", i)):
    by = collections.Counter(x["plugin"] for x in ev)
    print("  %s: %s" % (name, dict(by)))
    top = collections.Counter((x["plugin"], x["api"], (x.get("parent") or {}).get("api", "-")) for x in ev)
    for (pl, api, par), n in top.most_common(int(sys.argv[3])):
        print("     %6d %s %s in %s" % (n, pl, api, par))
key = lambda x: (x["plugin"], x["api"], (x.get("parent") or {}).get("api"), x.get("result"), bool(x.get("entry_only")))
a, b = collections.Counter(map(key, e)), collections.Counter(map(key, i))
print("  only ebpf:", dict(list((a - b).items())[:15]))
print("  only inproc:", dict(list((b - a).items())[:15]))
PY
}
for p in cudart_gpu cudart_calls; do
	echo "== 1. $p"
	"$W/$p" >"$W/$p.plain" 2>&1
	echo "  untraced: exit $? $(tail -1 "$W/$p.plain")"
	for e in ebpf inproc; do
		"$B/cudatracer" --no-config --engine $e --plugin cudart,cuda -o "jsonl:$W/${p}_$e.jsonl" -- "$W/$p" \
			>"$W/${p}_$e.out" 2>"$W/${p}_$e.err"
		echo "  $e: exit $? $(tail -1 "$W/${p}_$e.out") | $(grep -E 'events,' "$W/${p}_$e.err")"
		grep -iE "cudatracer-inproc|abort" "$W/${p}_$e.err" | head -3
	done
	tally "$W/${p}_ebpf.jsonl" "$W/${p}_inproc.jsonl" 40
done
cp "$W/cudart_gpu_inproc.jsonl" "$OUT/" 2>/dev/null

echo "== 2. PyTorch, $STEPS steps"
T=tests/gpu/torch_mlp_train.py
for e in ebpf inproc; do
	"$B/cudatracer" --no-config --engine $e --plugin cudart,cuda -o "jsonl:$W/torch_$e.jsonl" -- \
		python3 $T plain "$STEPS" >"$W/torch_$e.json" 2>"$W/torch_$e.err"
	echo "  $e: exit $? $(tail -1 "$W/torch_$e.json") | $(grep -E 'events,' "$W/torch_$e.err")"
	grep -iE "cudatracer-inproc" "$W/torch_$e.err" | head -3
done
tally "$W/torch_ebpf.jsonl" "$W/torch_inproc.jsonl" 25

echo "== 3. bindings under --engine inproc"
"$B/cudatracer" --no-config -q --engine inproc --plugin cudart,cuda -o summary:/dev/null -- \
	env LD_DEBUG=bindings LD_DEBUG_OUTPUT="$W/ld" python3 -c "
import torch; torch.zeros(1, device='cuda').add_(1); torch.cuda.synchronize()
print([l.split()[-1] for l in open('/proc/self/maps') if 'libcudart' in l or 'libcuda.so' in l or 'inproc' in l][::8])
" 2>&1 | tail -3
cat "$W"/ld.* | grep -E "normal symbol \`(__)?cu" | sed -E 's/^ *[0-9]+: *//; s/binding file ([^ ]*) \[[0-9]+\] to ([^ ]*) \[[0-9]+\]: normal symbol `([^'"'"']*).*/\1 -> \2 \3/' |
	awk '{n=split($1,a,"/"); m=split($3,b,"/"); k=a[n]" -> "b[m]; c[k]++; if (!(k in ex)) ex[k]=$4} END {for (k in c) print c[k], k, "e.g.", ex[k]}' | sort -rn | head -30
L=$(python3 -c "import torch, os; print(os.path.join(os.path.dirname(torch.__file__), 'lib', 'libtorch_cuda.so'))")
echo "libtorch_cuda: $(readelf -d "$L" | grep -oE 'NEEDED.*libcudart[^]]*|FLAGS.*' | tr '\n' ' ')"
readelf -W --dyn-syms "$L" | grep -E " (__)?cudaLaunchKernel(@|$)| cudaMalloc(@|$)" | head -4
rm -rf "$W"
