# SPDX-License-Identifier: MIT
"""PyTorch's expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True):
the caching allocator maps physical memory made by cuMemCreate into one
reserved range, and releases it with cuMemUnmap and cuMemRelease. Allocates
and frees tensors, empties the cache, and prints what PyTorch holds at the
end as one JSON line: what a tracer's memory report must find live."""
import json
import os

import torch

assert "expandable_segments:True" in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""), "set expandable_segments:True"
keep = [torch.empty(mb << 20, dtype=torch.uint8, device="cuda") for mb in (1, 8, 64, 256, 20, 3)]
peak = torch.cuda.memory_reserved()
del keep[3]
torch.cuda.synchronize()
torch.cuda.empty_cache()
torch.cuda.synchronize()
print(json.dumps({"peak_reserved": peak, "reserved": torch.cuda.memory_reserved(),
                  "allocated": torch.cuda.memory_allocated()}))
