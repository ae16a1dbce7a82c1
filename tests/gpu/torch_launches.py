# SPDX-License-Identifier: MIT
"""Elementwise ops and matmuls (cuBLAS) under torch.profiler, between two
cudaMemGetInfo calls that mark the region for the tracer. Writes what the
profiler saw to argv[1] as JSON."""
import collections
import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

x = torch.randn(2048, 2048, device="cuda")
y = x @ x
z = (x * 2 + 1).relu()
torch.cuda.synchronize()  # lazy initialisation (cuBLAS handles, modules) happens before the region

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    torch.cuda.mem_get_info()  # marker: start
    for _ in range(10):
        y = x @ x
        z = (y * 2 + 1).relu()
        w = torch.softmax(z, dim=1)
    torch.cuda.synchronize()
    torch.cuda.mem_get_info()  # marker: end

events = prof.events()
gpu = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
cpu_launch = collections.Counter(e.name for e in events if e.device_type == torch.autograd.DeviceType.CPU
                                 and ("LaunchKernel" in e.name))
out = {"gpu_kernels": len(gpu), "gpu_kernel_names": collections.Counter(e.name for e in gpu),
       "profiler_launch_api_events": cpu_launch}
json.dump(out, open(sys.argv[1], "w"), indent=1)
print("torch_launches: %d GPU kernels in the region" % len(gpu))
