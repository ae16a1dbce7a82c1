# SPDX-License-Identifier: MIT
"""A few kernels captured into a CUDA graph with torch.cuda.graph, replayed
R times (argv[1], default 20). Prints one JSON line of what a trace of it
must show (tests/gpu/check_graphs.py reads it):

  {"replays": R, "nodes": N, "kernel_nodes": K, "torch": "2.x", "cuda": "13.0"}

nodes and kernel_nodes come from the graph itself (cudaGraphGetNodes and
cudaGraphNodeGetType through the libcudart the process maps), when this
PyTorch can keep the graph (CUDAGraph(keep_graph=True), raw_cuda_graph());
null otherwise.

    sudo cudatracer --plugin cudart,cuda --gpu-activity --stacks -o jsonl:graphs.jsonl \\
        -- python3 tests/gpu/torch_graphs.py 20 > expect.json
    python3 tests/gpu/check_graphs.py graphs.jsonl expect.json
"""
import ctypes
import json
import sys

import torch

R = int(sys.argv[1]) if len(sys.argv) > 1 else 20
CUDA_GRAPH_NODE_TYPE_KERNEL = 0


def step(x, w):
    """The captured work: elementwise kernels and a matmul (cuBLAS)."""
    y = x * 2 + 1
    z = torch.relu(y) @ w
    return torch.softmax(z, dim=1)


def cudart():
    """The libcudart this process maps (a pip wheel's or the toolkit's)."""
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "/libcudart.so" in path:
                return ctypes.CDLL(path)
    return None


def count_nodes(graph):
    """(nodes, kernel nodes) of a cudaGraph_t, or (None, None)."""
    rt = cudart()
    if rt is None or not graph:
        return None, None
    n = ctypes.c_size_t(0)
    if rt.cudaGraphGetNodes(ctypes.c_void_p(graph), None, ctypes.byref(n)) != 0:
        return None, None
    nodes = (ctypes.c_void_p * n.value)()
    if rt.cudaGraphGetNodes(ctypes.c_void_p(graph), nodes, ctypes.byref(n)) != 0:
        return None, None
    kernels = 0
    for node in nodes:
        t = ctypes.c_int(-1)
        if rt.cudaGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(t)) != 0:
            return n.value, None
        kernels += t.value == CUDA_GRAPH_NODE_TYPE_KERNEL
    return n.value, kernels


def main():
    x = torch.randn(256, 256, device="cuda")
    w = torch.randn(256, 256, device="cuda")
    # Warm up on a side stream, as torch.cuda.graph asks (lazy init, cuBLAS workspaces).
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            step(x, w)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()

    try:
        g = torch.cuda.CUDAGraph(keep_graph=True)
        kept = True
    except TypeError:
        g = torch.cuda.CUDAGraph()
        kept = False
    with torch.cuda.graph(g):
        out = step(x, w)
    nodes = kernel_nodes = None
    if kept:
        try:
            g.instantiate()
            nodes, kernel_nodes = count_nodes(g.raw_cuda_graph())
        except (AttributeError, RuntimeError):
            pass
    for _ in range(R):
        g.replay()
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    print(json.dumps({"replays": R, "nodes": nodes, "kernel_nodes": kernel_nodes, "torch": torch.__version__,
                      "cuda": torch.version.cuda}))


if __name__ == "__main__":
    main()
