#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in for tests/gpu/torch_mlp_train.py's windows mode where there
is no GPU, to try bench/attach_windows.py's logic: the same protocol (a
line per window of STEPS steps, {"t0", "t1": CLOCK_MONOTONIC seconds,
"ms_per_step"}, for SECONDS), each step a little Python work and CALLS
calls into the real libcudart through ctypes (no GPU: each fails with
error 35, traced all the same, by uprobes or by the interposer, which
sees ctypes' dlsym).

    python3 bench/windows_standin.py STEPS SECONDS [CALLS]
"""
import ctypes
import json
import os
import sys
import time

steps, seconds = int(sys.argv[1]), float(sys.argv[2])
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 20
cudart = ctypes.CDLL(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so.13"))
memset, sync = cudart.cudaMemset, cudart.cudaStreamSynchronize
memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
sync.argtypes = [ctypes.c_void_p]


def step():
    acc = 0
    for i in range(calls // 2):
        memset(0x1000, 0, i)
        sync(None)
        acc += sum(range(50))  # the step's own work, besides its calls
    return acc


end = time.monotonic() + seconds
while time.monotonic() < end:
    t0 = time.monotonic()
    for _ in range(steps):
        step()
    t1 = time.monotonic()
    print(json.dumps({"t0": t0, "t1": t1, "ms_per_step": (t1 - t0) / steps * 1e3}), flush=True)
