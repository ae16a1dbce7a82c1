#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Driver-API launches are named from the handle's creation.

driver_module gets kernels by name (cuModuleGetFunction, cuLibraryGetKernel,
cuKernelGetFunction) and launches them by handle. With the stub libcuda
every creation fails, so no handle has a name and each launch shows its
bare handle. With a real driver (a GPU machine) each launch shows the name
given at creation, demangled, and the module is named by its file.
"""
import ctypes
import os

import cttest

CALLS = ["cuInit", "cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuMemAlloc_v2", "cuModuleLoad", "cuModuleGetFunction",
         "cuLibraryLoadData", "cuLibraryGetKernel", "cuKernelGetFunction", "cuLaunchKernel",
         "cuLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx", "cuCtxSynchronize",
         # rows generated from cuda.h (no hand-written row: no handle named by them)
         "cuLibraryUnload", "cuModuleUnload", "cuMemFree_v2", "cuDevicePrimaryCtxRelease_v2"]


def real_driver():
    """True when this machine has a working NVIDIA driver."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        return cuda.cuInit(0) == 0
    except OSError:
        return False


def main():
    cttest.need_root()
    prog = cttest.program("driver_module")
    ptx = os.path.join(cttest.PROGRAMS, "driver_kernels.ptx")
    if not os.path.exists(ptx):
        cttest.skip("driver_kernels.ptx was not built (is nvcc installed?)")
    gpu = real_driver()
    env = {} if gpu else {"LD_LIBRARY_PATH": os.path.join(cttest.BUILD, "tests", "stubs")}
    t = cttest.run(["--plugin", "cuda"], command=[prog, ptx], env=env)
    ev = t.calls(plugin="cuda")
    cttest.check([e["api"] for e in ev] == CALLS, "calls %s" % [e["api"] for e in ev], t)
    by = {}
    for e in ev:
        by.setdefault(e["api"], []).append(e)
    cttest.check(by["cuModuleGetFunction"][0]["args"]["name"] == "_Z9drv_scalePfif", "name read", t)
    cttest.check(by["cuLibraryGetKernel"][0]["args"]["name"] == "drv_fill", "name read", t)
    launches = [e["args"]["f"] for e in by["cuLaunchKernel"]] + [by["cuLaunchKernelEx"][0]["args"]["f"]]

    if not gpu:
        cttest.check(t.rc == 3, "driver_module exit %d, expected 3 (all stub errors)" % t.rc, t)
        cttest.check(all(e["result_name"] == "CUDA_ERROR_STUB_LIBRARY" for e in ev), "results", t)
        # Nothing was created, so nothing is named: the launches show bare handles.
        cttest.check(launches == ["0x0"] * 4, "unnamed launches: %s" % launches, t)
        cttest.check(by["cuModuleGetFunction"][0]["args"]["hmod"] == "0x0", "unnamed module", t)
        print("ok: stub driver, %d calls; names need a GPU (creation fails on the stub)" % len(ev))
        return

    cttest.check(t.rc == 0, "driver_module exit %d with a real driver" % t.rc, t)
    cttest.check(all(e["result_name"] == "CUDA_SUCCESS" for e in ev), "results", t)
    # fill (from a CUkernel), scale (from the module), the CUkernel itself, scale again.
    want = ["drv_fill", "drv_scale(float*, int, float)", "drv_fill", "drv_scale(float*, int, float)"]
    cttest.check(launches == want, "launch names %s, expected %s" % (launches, want), t)
    cttest.check(by["cuModuleGetFunction"][0]["args"]["hmod"] == ptx,
                 "module named by its file: %r" % by["cuModuleGetFunction"][0]["args"]["hmod"], t)
    cttest.check(by["cuKernelGetFunction"][0]["args"]["kernel"] == "drv_fill", "kernel named", t)
    print("ok: real driver, launches named %s" % launches)


if __name__ == "__main__":
    main()
