# SPDX-License-Identifier: MIT
"""A PyTorch loop with known causes of idle GPU time, for run_analysis.sh.

    python3 torch_planted.py WORKLOAD STEPS OUT.json [PROFILE.json]

WORKLOAD is `planted` (each step: a pageable copy in load_batch, matmuls in
compute, 200 tiny kernels in tiny_ops, a 2 ms pause then a launch in
host_pause, a .item() in log_loss) or `gpt` (one training step of a small
GPT-style model: 4 transformer layers, AdamW). Steps are NVTX ranges
`step N` (3 warm-up steps are `warmup N`); each step ends in a .item(), so
the program's own step time (perf_counter from one step's start to the next)
is the step's wall time. With PROFILE.json the loop runs under torch.profiler
(CPU and CUDA) and its Chrome trace is written there, with record_function
ranges of the same names. OUT.json gets the step times and the marked lines.
"""
import contextlib
import json
import sys
import time

import torch

WORKLOAD, STEPS, OUT = sys.argv[1], int(sys.argv[2]), sys.argv[3]
PROFILE = sys.argv[4] if len(sys.argv) > 4 else None
MARKS = {}
for n, text in enumerate(open(__file__), 1):
    if "# L_" in text:
        MARKS[text.split("# L_")[1].strip()] = n
torch.manual_seed(0)
dev = "cuda"


class Planted:
    def __init__(self):
        self.host = torch.randn(16 << 20)  # 64 MiB of pageable host memory
        self.w = [torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16) for _ in range(4)]
        self.t = torch.zeros(16, device=dev)

    def load_batch(self):
        return self.host.to(dev)  # L_PAGEABLE

    def compute(self, x):
        a = x[: 4096 * 4096].view(4096, 4096).to(torch.bfloat16)
        for w in self.w:
            a = a @ w
        return a

    def tiny_ops(self):
        t = self.t
        for _ in range(200):
            t = t + 1  # L_TINY
        self.t = t

    def host_pause(self, a):
        time.sleep(0.002)
        return a.relu()  # L_PAUSE

    def log_loss(self, a):
        return a.float().mean().item()  # L_SYNC

    def step(self):
        x = self.load_batch()
        a = self.compute(x)
        self.tiny_ops()
        a = self.host_pause(a)
        return self.log_loss(a)


class Gpt:
    def __init__(self):
        layer = torch.nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True, norm_first=True)
        self.model = torch.nn.TransformerEncoder(layer, 4).to(dev)
        self.head = torch.nn.Linear(1024, 8192).to(dev)
        params = list(self.model.parameters()) + list(self.head.parameters())
        self.opt = torch.optim.AdamW(params, lr=1e-4)
        self.x = torch.randn(8, 512, 1024, device=dev)
        self.y = torch.randint(0, 8192, (8, 512), device=dev)

    def step(self):
        self.opt.zero_grad(set_to_none=True)
        with torch.autocast(dev, dtype=torch.bfloat16):
            logits = self.head(self.model(self.x))  # L_FORWARD
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, 8192), self.y.view(-1))
        loss.backward()  # L_BACKWARD
        self.opt.step()  # L_OPTIMIZER
        return loss.item()  # L_LOSS


def run(work):
    times = []
    for i in range(3 + STEPS):
        name = ("warmup %d" if i < 3 else "step %d") % i
        t0 = time.perf_counter()
        torch.cuda.nvtx.range_push(name)
        with torch.profiler.record_function(name) if PROFILE else contextlib.nullcontext():
            work.step()
        torch.cuda.nvtx.range_pop()
        if i >= 3:
            times.append(time.perf_counter() - t0)
    return times


work = Planted() if WORKLOAD == "planted" else Gpt()
torch.cuda.synchronize()
if PROFILE:
    acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        times = run(work)
    prof.export_chrome_trace(PROFILE)
else:
    times = run(work)
json.dump({"workload": WORKLOAD, "steps": STEPS, "step_s": times, "marks": MARKS,
           "file": __file__, "device": torch.cuda.get_device_name()}, open(OUT, "w"))
print("%s: %d steps, mean %.3f ms" % (WORKLOAD, STEPS, 1e3 * sum(times) / len(times)))
