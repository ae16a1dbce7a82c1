# SPDX-License-Identifier: MIT
"""A PyTorch eager loop of small ops on tiny tensors: CPU-bound, so the
runtime API's cost (and a tracer's) shows. Prints one JSON line with the
mean microseconds per iteration over the timed iterations."""
import json
import sys
import time

import torch

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
x = torch.randn(64, device="cuda")
w = torch.randn(64, device="cuda")
for _ in range(500):
    y = (x * w + 1).relu().sum()
torch.cuda.synchronize()
t0 = time.perf_counter()
for i in range(iters):
    y = (x * w + 1).relu().sum()
    if i % 100 == 99:
        torch.cuda.synchronize()
torch.cuda.synchronize()
t1 = time.perf_counter()
print(json.dumps({"iters": iters, "us_per_iter": (t1 - t0) / iters * 1e6}))
