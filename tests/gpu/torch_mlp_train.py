# SPDX-License-Identifier: MIT
"""A PyTorch MLP training loop (forward, backward, Adam), small enough to be
CPU-bound: launch and API costs, and a tracer's, show in the step time.

    python3 torch_mlp_train.py [plain|profiler] [STEPS]
    python3 torch_mlp_train.py windows STEPS SECONDS

profiler runs the timed steps under torch.profiler (CPU and CUDA
activities), as a user who wants kernel times would. Prints one JSON line:
the mean milliseconds per step over the timed steps (warm-up excluded; the
profiler's processing after the last step is excluded too). windows runs
windows of STEPS steps for SECONDS and prints a line for each, with its
CLOCK_MONOTONIC start and end, for bench/attach_windows.py, which attaches
a tracer to this one process and detaches it again."""
import json
import sys
import time

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 400
torch.manual_seed(0)
dev = "cuda"
model = torch.nn.Sequential(
    torch.nn.Linear(512, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 10),
).to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(256, 512, device=dev)
y = torch.randint(0, 10, (256,), device=dev)
loss_fn = torch.nn.CrossEntropyLoss()


def step():
    opt.zero_grad(set_to_none=True)
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


for _ in range(50):
    step()
torch.cuda.synchronize()


def timed():
    t0 = time.perf_counter()
    for _ in range(steps):
        loss = step()
    torch.cuda.synchronize()
    return time.perf_counter() - t0, float(loss)


if mode == "windows":
    end = time.monotonic() + float(sys.argv[3])
    while time.monotonic() < end:
        t0 = time.monotonic()
        dt, _ = timed()
        print(json.dumps({"t0": t0, "t1": time.monotonic(), "ms_per_step": dt / steps * 1e3}), flush=True)
    sys.exit(0)
if mode == "profiler":
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        dt, loss = timed()
    kernels = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
else:
    dt, loss = timed()
    kernels = None
print(json.dumps({"mode": mode, "steps": steps, "ms_per_step": dt / steps * 1e3, "loss": loss,
                  "profiler_kernels": kernels}))
