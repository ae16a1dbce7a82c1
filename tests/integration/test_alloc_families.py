# SPDX-License-Identifier: MIT
"""Every allocation family accounted, allocation by allocation (issue 30).

tests/programs/alloc runs each family's allocations and frees of the CUDA
runtime and driver, HIP and OpenCL on stand-in runtimes whose calls succeed
(tests/alloc.cmake). The memory sink must count each allocation at its exact
size (pitched rows, 3D extents on the stack, arrays from a channel format or
an array format, mipmap levels, pool and registered memory, VMM physical
memory by handle, OpenCL buffers by reference count, SVM), match every free to
its allocation (none "never seen allocated"), report exactly the leaks the
programs leave, and the summary's bytes per API must agree.
"""
import json
import os

import cttest

cttest.need_root()
KiB, MiB = 1024, 1 << 20

# runtime -> [(api, bytes, freed)], in the programs' order.
FAMILIES = {
    "cudart": [
        ("cudaMalloc", 1000, True), ("cudaMallocHost", 2000, True),
        ("cudaHostAlloc", 3000, True), ("cudaMallocManaged", 4000, True),
        ("cudaMallocAsync", 5000, True), ("cudaMallocFromPoolAsync", 6000, True),
        ("cudaMallocPitch", 1024 * 30, True), ("cudaMalloc3D", 1024 * 20 * 5, True),
        ("cudaMallocArray", 100 * 50 * 16, True), ("cudaMallocArray", 300, True),
        ("cudaMalloc3DArray", 64 * 32 * 4, True),
        ("cudaMallocMipmappedArray", (1024 + 256 + 64 + 16 + 4 + 2 + 1) * 4, True),
        ("cudaHostRegister", 8 * KiB, True),
        ("cudaMalloc", 7777, False), ("cudaMallocPitch", 512 * 3, False),
    ],
    "cuda": [
        ("cuMemAlloc_v2", 1100, True), ("cuMemAllocPitch_v2", 1024 * 10, True),
        ("cuMemAllocManaged", 1300, True), ("cuMemAllocHost_v2", 1400, True),
        ("cuMemHostAlloc", 1500, True), ("cuMemAllocAsync", 1600, True),
        ("cuMemAllocFromPoolAsync", 1700, True), ("cuMemHostRegister_v2", 4 * KiB, True),
        ("cuArrayCreate_v2", 100 * 2 * 4, True), ("cuArray3DCreate_v2", 64 * 8 * 4 * 4 * 2, True),
        ("cuMipmappedArrayCreate", (64 * 8 * 4 + 32 * 4 * 2) * 4 * 2, True),
        ("cuMemCreate", 2 * MiB, True),
        ("cuArrayCreate_v2", 100, False), ("cuMemCreate", 4 * MiB, False),
    ],
    "hip": [
        ("hipMalloc", 2100, True), ("hipMallocPitch", 1024 * 7, True),
        ("hipHostMalloc", 2300, True), ("hipMallocManaged", 2400, True),
        ("hipMallocAsync", 2500, True), ("hipExtMallocWithFlags", 2600, True),
        ("hipMallocArray", 32 * 16 * 4, True),
        ("hipMalloc3D", 1024 * 4 * 3, True), ("hipMalloc3DArray", 16 * 16 * 2 * 4, True),
        ("hipMallocMipmappedArray", (256 + 64 + 16) * 4, True), ("hipArrayCreate", 100 * 3 * 2 * 2, True),
        ("hipArray3DCreate", 16 * 8 * 2 * 4, True), ("hipMemCreate", 2 * MiB, True),
        ("hipHostRegister", 4 * KiB, True),
        ("hipMalloc", 2700, False),
    ],
    "opencl": [
        ("clCreateBuffer", 3100, True), ("clCreateBuffer", 3200, True),
        ("clSVMAlloc", 3300, True), ("clCreateBuffer", 3400, False),
    ],
}
RUNS = [("alloc/alloc_cuda_calls", "cudart,cuda"), ("alloc/alloc_hip_calls", "hip"),
        ("alloc/alloc_opencl_calls", "opencl")]
SINKS = cttest.SUMMARY_AND_MEMORY_SINKS.replace("path = @TMP@/memory.txt",
                                                "format = json\npath = @TMP@/memory.json")


def check_space(trace, sp, want):
    rt = sp["runtime"]
    got = {k: sp[k] for k in ("allocs", "alloc_bytes", "frees", "freed_bytes", "unreadable",
                              "replaced", "unknown_frees", "unfreed_count", "unfreed_bytes")}
    leaks = [(api, n) for api, n, freed in want if not freed]
    expect = {"allocs": len(want), "alloc_bytes": sum(n for _, n, _ in want),
              "frees": len(want) - len(leaks), "freed_bytes": sum(n for _, n, f in want if f),
              "unreadable": 0, "replaced": 0, "unknown_frees": 0, "unfreed_count": len(leaks),
              "unfreed_bytes": sum(n for _, n in leaks)}
    cttest.check(got == expect, "%s books:\n got  %s\n want %s\n%s" % (rt, got, expect, sp), trace)
    unfreed = [(a["api"], a["size"]) for a in sp["unfreed"]]
    cttest.check(unfreed == leaks, "%s leaks: got %s, want %s" % (rt, unfreed, leaks), trace)
    cttest.check(not sp["unknown_free_list"], "%s frees never seen allocated: %s"
                 % (rt, sp["unknown_free_list"]), trace)


def check_summary(trace, runtimes):
    rows = cttest.summary_rows(os.path.join(trace.files, "summary.txt"))
    for rt in runtimes:
        per_api = {}
        for api, n, _ in FAMILIES[rt]:
            per_api[api] = per_api.get(api, 0) + n
        for api, n in per_api.items():
            got = rows.get(api, (0, 0, "absent"))[2]
            cttest.check(got == str(n), "summary bytes of %s: %s, want %d" % (api, got, n), trace)


def main():
    for prog, plugins in RUNS:
        trace = cttest.run(["--plugin", plugins], command=[cttest.program(prog)], extra_sinks=SINKS)
        cttest.check(trace.rc == 0, "%s: tracer exit %d" % (prog, trace.rc), trace)
        with open(os.path.join(trace.files, "memory.json")) as f:
            doc = json.load(f)
        runtimes = plugins.split(",")
        spaces = {sp["runtime"]: sp for sp in doc["processes"]}
        cttest.check(sorted(spaces) == sorted(runtimes), "%s: runtimes %s" % (prog, sorted(spaces)),
                     trace)
        for rt in runtimes:
            check_space(trace, spaces[rt], FAMILIES[rt])
        check_summary(trace, runtimes)
    print("test_alloc_families: %d allocations of %d runtimes accounted exactly"
          % (sum(len(v) for v in FAMILIES.values()), len(FAMILIES)))


main()
