#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cuda plugin on every API it traces, against the toolkit's stub libcuda.

driver_calls makes each call once with distinctive arguments; the stub
returns CUDA_ERROR_STUB_LIBRARY (34) and writes nothing, so out-parameters
read at exit still hold what the program put there. Each event must show
the exact symbol called, the decoded arguments and the result by name.
"""
import os
import sys

import cttest

ANY_PTR = object()  # a real address (stack or heap): any non-null "0x..."


def check_args(ev, want):
    got = ev["args"]
    cttest.check(set(got) == set(want), "%s: args %s, expected %s"
                 % (ev["api"], sorted(got), sorted(want)))
    for k, v in want.items():
        if v is ANY_PTR:
            cttest.check(isinstance(got[k], str) and got[k].startswith("0x") and got[k] != "0x0",
                         "%s.%s = %r, expected an address" % (ev["api"], k, got[k]))
        else:
            cttest.check(got[k] == v, "%s.%s = %r, expected %r" % (ev["api"], k, got[k], v))


def check_run(trace, expected, what):
    events = trace.calls(plugin="cuda")
    apis = [e["api"] for e in events]
    cttest.check(trace.rc == 0, "%s: tracer exit %d (the program checks the stub's results)"
                 % (what, trace.rc), trace)
    cttest.check(apis == [a for a, _ in expected],
                 "%s: calls\n  %s\nexpected\n  %s" % (what, apis, [a for a, _ in expected]), trace)
    for ev, (api, args) in zip(events, expected):
        if api.split("_")[0] in ENTRY_ONLY:
            cttest.check(ev.get("entry_only") is True and "result" not in ev and "dur_ns" not in ev,
                         "%s: not entry-only: %s" % (api, ev))
        else:
            cttest.check(ev["result"] == 34 and ev["result_name"] == "CUDA_ERROR_STUB_LIBRARY"
                         and ev["error"] is True, "%s: result %r %r" % (api, ev["result"], ev["result_name"]))
        cttest.check(ev["depth"] == 0, "%s: depth %r" % (api, ev["depth"]))
        check_args(ev, args)


S = "0x5555"  # the stream handle driver_calls passes
# Recorded at entry only by the plugin's default (tracer.timed times them).
ENTRY_ONLY = {"cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent", "cuLaunchHostFunc"}


def api_calls(ptds):
    """driver_calls api, by the symbols cuda.h picks with or without per-thread streams."""
    def v(sym, ds="", sz=""):
        return sym + (ds if ptds else "") + (sz if ptds else "")
    return [
        ("cuInit", {"Flags": "0x0"}),
        ("cuDriverGetVersion", {"driverVersion": -7}),
        # With per-thread streams cuda.h's inline wrapper adds
        # CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM to the flags.
        ("cuGetProcAddress_v2", {"symbol": "cuMemAlloc", "pfn": "0xf7f7", "cudaVersion": 13000,
                                 "flags": "0x2" if ptds else "0x0"}),
        ("cuCtxCreate_v4", {"pctx": "0xc0c0", "ctxCreateParams": ANY_PTR, "flags": "0x4", "dev": 3}),
        ("cuCtxSetCurrent", {"ctx": "0xc0c0"}),
        ("cuCtxSynchronize", {}),
        ("cuMemAlloc_v2", {"dptr": "0xd0d0d000", "bytesize": 4096}),
        ("cuMemAllocHost_v2", {"pp": "0x4000", "bytesize": 8192}),
        ("cuMemAllocManaged", {"dptr": "0xd0d0d000", "bytesize": 12288, "flags": "0x1"}),
        (v("cuMemAllocAsync", sz="_ptsz"), {"dptr": "0xd0d0d000", "bytesize": 16384, "hStream": S}),
        (v("cuMemcpy", ds="_ptds"), {"dst": "0xd1000", "src": "0xd2000", "ByteCount": 100}),
        (v("cuMemcpyAsync", sz="_ptsz"), {"dst": "0xd1000", "src": "0xd2000", "ByteCount": 101,
                                          "hStream": S}),
        (v("cuMemcpyHtoD_v2", ds="_ptds"), {"dstDevice": "0xd1000", "srcHost": ANY_PTR,
                                            "ByteCount": 102}),
        (v("cuMemcpyDtoH_v2", ds="_ptds"), {"dstHost": ANY_PTR, "srcDevice": "0xd2000",
                                            "ByteCount": 103}),
        (v("cuMemcpyDtoD_v2", ds="_ptds"), {"dstDevice": "0xd1000", "srcDevice": "0xd2000",
                                            "ByteCount": 104}),
        (v("cuMemcpyHtoDAsync_v2", sz="_ptsz"), {"dstDevice": "0xd1000", "srcHost": ANY_PTR,
                                                 "ByteCount": 105, "hStream": S}),
        (v("cuMemcpyDtoHAsync_v2", sz="_ptsz"), {"dstHost": ANY_PTR, "srcDevice": "0xd2000",
                                                 "ByteCount": 106, "hStream": S}),
        (v("cuMemcpyDtoDAsync_v2", sz="_ptsz"), {"dstDevice": "0xd1000", "srcDevice": "0xd2000",
                                                 "ByteCount": 107, "hStream": S}),
        (v("cuMemcpy2D_v2", ds="_ptds"), {"pCopy": ANY_PTR}),
        (v("cuMemcpy2DAsync_v2", sz="_ptsz"), {"pCopy": ANY_PTR, "hStream": S}),
        (v("cuMemsetD8_v2", ds="_ptds"), {"dstDevice": "0xd3000", "uc": "0xab", "N": 200}),
        (v("cuMemsetD32_v2", ds="_ptds"), {"dstDevice": "0xd3000", "ui": "0xcafef00d", "N": 201}),
        (v("cuMemsetD8Async", sz="_ptsz"), {"dstDevice": "0xd3000", "uc": "0xcd", "N": 202,
                                            "hStream": S}),
        (v("cuMemsetD32Async", sz="_ptsz"), {"dstDevice": "0xd3000", "ui": "0x12345678", "N": 203,
                                             "hStream": S}),
        ("cuModuleLoad", {"module": "0x3d3d", "fname": "/nonexistent/kernels.cubin"}),
        ("cuModuleLoadData", {"module": "0x3d3d", "image": ANY_PTR}),
        # The load failed: the module handle has no name, and neither does hfunc.
        ("cuModuleGetFunction", {"hfunc": "0xf00d", "hmod": "0x3d3d", "name": "_Z6kernelPf"}),
        ("cuLibraryLoadData", {"library": "0x1b1b", "code": ANY_PTR, "numJitOptions": 0,
                               "numLibraryOptions": 0}),
        ("cuLibraryGetKernel", {"pKernel": "0x4e4e", "library": "0x1b1b", "name": "saxpy"}),
        ("cuKernelGetFunction", {"pFunc": "0xf00d", "kernel": "0x4e4e"}),
        # blockDimZ onwards travel on the stack.
        (v("cuLaunchKernel", sz="_ptsz"), {
            "f": "0xf00d", "gridDimX": 1, "gridDimY": 2, "gridDimZ": 3, "blockDimX": 4,
            "blockDimY": 5, "blockDimZ": 6, "sharedMemBytes": 128, "hStream": S,
            "kernelParams": ANY_PTR, "extra": "0x0"}),
        # Read from the CUlaunchConfig at entry.
        (v("cuLaunchKernelEx", sz="_ptsz"), {
            "f": "0xf00d", "gridDimX": 7, "gridDimY": 8, "gridDimZ": 9, "blockDimX": 10,
            "blockDimY": 11, "blockDimZ": 12, "sharedMemBytes": 256, "hStream": "0x6666",
            "numAttrs": 0, "kernelParams": ANY_PTR, "extra": "0x0"}),
        (v("cuLaunchCooperativeKernel", sz="_ptsz"), {
            "f": "0xf00d", "gridDimX": 13, "gridDimY": 14, "gridDimZ": 15, "blockDimX": 16,
            "blockDimY": 17, "blockDimZ": 18, "sharedMemBytes": 512, "hStream": S,
            "kernelParams": ANY_PTR}),
        (v("cuGraphLaunch", sz="_ptsz"), {"hGraphExec": "0x9a9a", "hStream": S}),
        ("cuStreamCreate", {"phStream": S, "Flags": "0x1"}),
        (v("cuEventRecord", sz="_ptsz"), {"hEvent": "0xe7e7", "hStream": S}),
        (v("cuEventRecordWithFlags", sz="_ptsz"), {"hEvent": "0xe7e7", "hStream": S, "flags": "0x1"}),
        (v("cuStreamWaitEvent", sz="_ptsz"), {"hStream": S, "hEvent": "0xe7e7", "Flags": "0x0"}),
        (v("cuLaunchHostFunc", sz="_ptsz"), {"hStream": S, "fn": "0x4f4f", "userData": "0x4e4e"}),
        ("cuEventSynchronize", {"hEvent": "0xe7e7"}),
        (v("cuStreamSynchronize", sz="_ptsz"), {"hStream": S}),
        ("cuStreamDestroy_v2", {"hStream": S}),
        (v("cuMemFreeAsync", sz="_ptsz"), {"dptr": "0xd0d0d000", "hStream": S}),
        ("cuMemFreeHost", {"p": "0x4000"}),
        ("cuMemFree_v2", {"dptr": "0xd0d0d000"}),
        ("cuCtxDestroy_v2", {"ctx": "0xc0c0"}),
    ]


S1 = "0x5656"
LEGACY = [
    ("cuCtxCreate", {"pctx": "0xc1c1", "flags": "0x1", "dev": 2}),
    ("cuCtxCreate_v2", {"pctx": "0xc1c1", "flags": "0x2", "dev": 1}),
    ("cuCtxCreate_v3", {"pctx": "0xc1c1", "paramsArray": "0xa0a0", "numParams": 2, "flags": "0x3",
                        "dev": 1}),
    ("cuCtxSynchronize_v2", {"ctx": "0xc1c1"}),
    # 32-bit device pointers and sizes (the CUDA 3.x ABI).
    ("cuMemAlloc", {"dptr": "0xd32000", "bytesize": 1000}),
    ("cuMemAllocHost", {"pp": "0x4100", "bytesize": 1001}),
    ("cuMemcpyHtoD", {"dstDevice": "0xd32100", "srcHost": ANY_PTR, "ByteCount": 1002}),
    ("cuMemcpyDtoH", {"dstHost": ANY_PTR, "srcDevice": "0xd32200", "ByteCount": 1003}),
    ("cuMemcpyDtoD", {"dstDevice": "0xd32100", "srcDevice": "0xd32200", "ByteCount": 1004}),
    ("cuMemcpyHtoDAsync", {"dstDevice": "0xd32100", "srcHost": ANY_PTR, "ByteCount": 1005,
                           "hStream": S1}),
    ("cuMemcpyDtoHAsync", {"dstHost": ANY_PTR, "srcDevice": "0xd32200", "ByteCount": 1006,
                           "hStream": S1}),
    ("cuMemcpyDtoDAsync", {"dstDevice": "0xd32100", "srcDevice": "0xd32200", "ByteCount": 1007,
                           "hStream": S1}),
    ("cuMemcpy2D", {"pCopy": "0x2d2d"}),
    ("cuMemcpy2DAsync", {"pCopy": "0x2d2d", "hStream": S1}),
    ("cuMemsetD8", {"dstDevice": "0xd32300", "uc": "0x5a", "N": 1008}),
    ("cuMemsetD32", {"dstDevice": "0xd32300", "ui": "0xa5a5a5a5", "N": 1009}),
    ("cuMemFree", {"dptr": "0xd32000"}),
    ("cuStreamDestroy", {"hStream": S1}),
    ("cuCtxDestroy", {"ctx": "0xc1c1"}),
    ("cuGetProcAddress", {"symbol": "cuMemAlloc", "pfn": "0x4100", "cudaVersion": 12000,
                          "flags": "0x0"}),
]

# Garbage in the upper halves of 32-bit arguments must not show.
WIDE = [
    ("cuInit", {"Flags": "0x0"}),
    ("cuMemsetD32_v2", {"dstDevice": "0xd4000", "ui": "0x11223344", "N": 300}),
    ("cuLaunchKernel", {"f": "0xf1f1", "gridDimX": 21, "gridDimY": 22, "gridDimZ": 23,
                        "blockDimX": 24, "blockDimY": 25, "blockDimZ": 26, "sharedMemBytes": 1024,
                        "hStream": "0x7777", "kernelParams": "0x0", "extra": "0x0"}),
]


def main():
    cttest.need_root()
    stubs = os.path.join(cttest.BUILD, "tests", "stubs")
    env = {"LD_LIBRARY_PATH": stubs}
    # full: cuGetProcAddress is a start-up getter, off in the default profile.
    full = "[tracer]\nprofile = full\n"
    runs = [
        ("driver_calls api", cttest.program("driver_calls"), "api", api_calls(False)),
        ("driver_calls_ptds api", cttest.program("driver_calls_ptds"), "api", api_calls(True)),
        ("driver_calls legacy", cttest.program("driver_calls"), "legacy", LEGACY),
        ("driver_calls wide", cttest.program("driver_calls"), "wide", WIDE),
    ]
    for what, prog, mode, expected in runs:
        t = cttest.run(["--plugin", "cuda"], config=full, command=[prog, mode], env=env)
        check_run(t, expected, what)

    # The default profile leaves the getters out and nothing else.
    t = cttest.run(["--plugin", "cuda"], command=[cttest.program("driver_calls"), "api"], env=env)
    want = [a for a, _ in api_calls(False) if not a.startswith("cuGetProcAddress")]
    cttest.check(t.apis("cuda") == want, "default profile: %s" % t.apis("cuda"), t)
    print("ok: %d driver APIs decoded" % sum(len(r[3]) for r in runs))


if __name__ == "__main__":
    main()
