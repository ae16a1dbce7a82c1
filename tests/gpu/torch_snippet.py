# SPDX-License-Identifier: MIT
"""A small PyTorch workload for tracing on a machine with an NVIDIA GPU:
elementwise ops, a matmul, copies both ways."""
import torch

x = torch.randn(1024, 1024, device="cuda")
y = (x * 2 + 1).relu()
z = y @ y
host = z.cpu()
w = torch.ones(4096, device="cuda").add_(1)
torch.cuda.synchronize()
print("torch_snippet: sum %.1f, w %.1f, device %s" % (host.sum().item(), w.sum().item(), torch.cuda.get_device_name()))
