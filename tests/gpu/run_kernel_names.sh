#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel names on the H200 (issue 16, "Every kernel named"), from the
# repository root, with a built tree in $CT_BUILD (default build/). Three
# workloads, each in command mode under --plugin cudart,cuda -o jsonl:
#  - JAX: a jitted function (a matmul and elementwise ops) run 50 times;
#  - Triton: a @triton.jit vector add launched 50 times;
#  - PyTorch: a few ops.
# Per workload: launches, named, unnamed (tests/gpu/kernel_names_stats.py),
# the tracer's closing "launches:" line and the top 5 kernel names. A
# workload whose module does not import says so and is skipped. Under 4
# minutes (each import checked within 20 s, each traced run within 55 s);
# outputs under $OUT.
set -uo pipefail
B=${CT_BUILD:-build}
OUT=${OUT:-/tmp/ct-kernel-names}
PY=${PYTHON:-python3}
STATS=tests/gpu/kernel_names_stats.py
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "(no nvidia-smi)"
if [ ! -x "$B/cudatracer" ]; then
	echo "no built tree in $B: build it first (scripts/build.sh)"
	exit 1
fi

cat >"$OUT/jax_work.py" <<'PY'
import jax, jax.numpy as jnp
@jax.jit
def f(a, b):
    return jnp.tanh(a @ b) * 2.0 + jnp.exp(-a)
k = jax.random.PRNGKey(0)
a = jax.random.normal(k, (1024, 1024)); b = jax.random.normal(k, (1024, 1024))
for _ in range(50):
    a = f(a, b)
a.block_until_ready()
print("jax ok", jax.devices())
PY
cat >"$OUT/triton_work.py" <<'PY'
import torch, triton, triton.language as tl
@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)
n = 1 << 20
x = torch.rand(n, device="cuda"); y = torch.rand(n, device="cuda"); o = torch.empty_like(x)
for _ in range(50):
    add[(triton.cdiv(n, 1024),)](x, y, o, n, BLOCK=1024)
torch.cuda.synchronize()
print("triton ok", bool(torch.allclose(o, x + y)))
PY
cat >"$OUT/torch_work.py" <<'PY'
import torch
x = torch.randn(512, 512, device="cuda")
for _ in range(10):
    y = torch.relu(x @ x).sum(dim=0).softmax(dim=0)
    z = torch.nn.functional.layer_norm(x, (512,)) + y
torch.cuda.synchronize()
print("torch ok", float(z.sum()))
PY

run() { # name module script
	local name=$1 mod=$2 script=$3
	echo "== $name"
	if ! timeout 20 "$PY" -c "import $mod" >"$OUT/$name.import" 2>&1; then
		echo "$name: skipped, $PY cannot import $mod: $(tail -1 "$OUT/$name.import")"
		return
	fi
	timeout 55 "$B/cudatracer" --plugin cudart,cuda -o "jsonl:$OUT/$name.jsonl" -- "$PY" "$script" \
		>"$OUT/$name.out" 2>"$OUT/$name.err"
	echo "exit $? ($(tail -1 "$OUT/$name.out"))"
	if [ -s "$OUT/$name.jsonl" ]; then
		"$PY" "$STATS" "$OUT/$name.jsonl" "$OUT/$name.err"
	else
		echo "$name: no trace written"; tail -5 "$OUT/$name.err"
	fi
}
run jax jax "$OUT/jax_work.py"
run triton triton "$OUT/triton_work.py"
run torch torch "$OUT/torch_work.py"
