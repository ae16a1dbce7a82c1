# SPDX-License-Identifier: MIT
"""A small PyTorch training step from named functions, for run_stacks.sh:
the allocations and launches each function makes carry its line in
py_stack. Prints one JSON line: the script's marked lines and the mean
milliseconds per step of the timed steps."""
import json
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
MARKS = {}
for n, text in enumerate(open(__file__), 1):
    if "# L_" in text:
        MARKS[text.split("# L_")[1].strip()] = n


def make():
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 10)).to("cuda")  # L_MODEL
    x = torch.randn(256, 512, device="cuda")  # L_DATA
    y = torch.randint(0, 10, (256,), device="cuda")
    return model, torch.optim.SGD(model.parameters(), lr=0.01), x, y


def forward(model, x, y):
    return torch.nn.functional.cross_entropy(model(x), y)  # L_FORWARD


def step(model, opt, x, y):
    opt.zero_grad()
    loss = forward(model, x, y)  # L_STEP
    loss.backward()
    opt.step()
    return loss


def main():
    model, opt, x, y = make()
    for _ in range(5):
        step(model, opt, x, y)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step(model, opt, x, y)  # L_LOOP
    torch.cuda.synchronize()
    print(json.dumps({"marks": MARKS, "file": __file__, "python": sys.version.split()[0],
                      "ms_per_step": (time.perf_counter() - t0) / steps * 1e3}))


main()  # L_MAIN
