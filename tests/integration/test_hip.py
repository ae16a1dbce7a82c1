# SPDX-License-Identifier: MIT
"""The hip plugin on Debian's real libamdhip64, on a machine with no AMD GPU.

tests/programs/hip_calls.c calls each of the 32 traced APIs once, in order,
with distinctive values; every call fails (hipErrorNoDevice for the device
count, hipErrorInvalidDevice for the rest). The trace must show every call,
in order, with its arguments decoded: sizes, copy kinds, dim3 grids from the
two registers they travel in, stack arguments, out-parameters read after the
call, the kernel name read from memory, and the error by name. The summary
and memory sinks count every call and error, and no memory: failed calls
allocate nothing. A second run with the default profile must leave out
hipGetDevice, the hot getter.
"""
import os
import re

import cttest

need = cttest.need_root
need()
prog = cttest.program("hip_calls")

# (api, result name, {arg: value}); None stands for "the value the program printed".
NODEV, INVDEV = "hipErrorNoDevice", "hipErrorInvalidDevice"
STREAM = "0x5100"
EXPECTED = [
    ("hipGetDeviceCount", NODEV, {"count": 0}),
    ("hipSetDevice", INVDEV, {"deviceId": 3}),
    ("hipGetDevice", INVDEV, {"deviceId": -7}),
    ("hipMalloc", INVDEV, {"ptr": "0x0", "size": 4096}),
    ("hipHostMalloc", INVDEV, {"ptr": "0x0", "size": 8192, "flags": "0x0"}),
    ("hipMallocManaged", INVDEV, {"dev_ptr": "0x0", "size": 12288, "flags": "0x1"}),
    ("hipMallocAsync", INVDEV, {"dev_ptr": "0x0", "size": 16384, "stream": STREAM}),
    ("hipStreamCreate", INVDEV, {"stream": "0x0"}),
    ("hipStreamCreateWithFlags", INVDEV, {"stream": "0x0", "flags": "0x1"}),
    ("hipMemcpy", INVDEV, {"dst": "0x7100000", "src": "host", "sizeBytes": 256,
                           "kind": "hipMemcpyHostToDevice"}),
    ("hipMemcpyAsync", INVDEV, {"dst": "host", "src": "0x7100000", "sizeBytes": 128,
                                "kind": "hipMemcpyDeviceToHost", "stream": STREAM}),
    ("hipMemcpyHtoD", INVDEV, {"dst": "0x7100000", "src": "host", "sizeBytes": 64}),
    ("hipMemcpyDtoH", INVDEV, {"dst": "host", "src": "0x7100000", "sizeBytes": 32}),
    ("hipMemcpyDtoD", INVDEV, {"dst": "0x7200000", "src": "0x7100000", "sizeBytes": 16}),
    ("hipMemset", INVDEV, {"dst": "0x7100000", "value": 0x5a, "sizeBytes": 1024}),
    ("hipMemsetAsync", INVDEV, {"dst": "0x7100000", "value": 7, "sizeBytes": 512,
                                "stream": STREAM}),
    # The launched function is named from the program's ELF symbols (symbols/symbolizer.c).
    ("hipLaunchKernel", INVDEV, {"function_address": "=kernel_stub", "numBlocks": [4, 3, 2],
                                 "dimBlocks": [64, 2, 1], "args": "kargs",
                                 "sharedMemBytes": 96, "stream": STREAM}),
    ("hipExtLaunchKernel", INVDEV, {"function_address": "=kernel_stub", "numBlocks": [8, 1, 1],
                                    "dimBlocks": [128, 1, 1], "args": "kargs",
                                    "sharedMemBytes": 48, "stream": STREAM,
                                    "startEvent": "0x6100", "stopEvent": "0x6200", "flags": 5}),
    ("hipModuleGetFunction", INVDEV, {"function": "0x0", "module": "0x6300", "kname": "vadd"}),
    ("hipModuleLaunchKernel", INVDEV, {"f": "0x6500", "gridDimX": 5, "gridDimY": 6,
                                       "gridDimZ": 7, "blockDimX": 32, "blockDimY": 4,
                                       "blockDimZ": 2, "sharedMemBytes": 256,
                                       "stream": STREAM, "kernelParams": "kargs",
                                       "extra": "0x0"}),
    ("hipEventCreate", INVDEV, {"event": "0x0"}),
    # Entry-only by the plugin's default: no result, no duration.
    ("hipEventRecord", None, {"event": "0x6100", "stream": STREAM}),
    ("hipStreamWaitEvent", None, {"stream": STREAM, "event": "0x6100", "flags": "0x0"}),
    ("hipEventSynchronize", INVDEV, {"event": "0x6200"}),
    ("hipEventElapsedTime", INVDEV, {"ms": 1.5, "start": "0x6100", "stop": "0x6200"}),
    ("hipEventDestroy", INVDEV, {"event": "0x6100"}),
    ("hipGraphLaunch", INVDEV, {"graphExec": "0x6400", "stream": STREAM}),
    ("hipStreamSynchronize", INVDEV, {"stream": STREAM}),
    ("hipDeviceSynchronize", INVDEV, {}),
    ("hipFreeAsync", INVDEV, {"dev_ptr": "0x7100000", "stream": STREAM}),
    ("hipFree", INVDEV, {"ptr": "0x7100000"}),
    ("hipHostFree", INVDEV, {"ptr": "0x7200000"}),
    ("hipStreamDestroy", INVDEV, {"stream": STREAM}),
]
ERROR_VALUES = {NODEV: 100, INVDEV: 101}


def program_addresses(stdout):
    """Addresses only the running program knows (PIE), from its last line."""
    m = re.search(r"kernel_stub=(0x[0-9a-f]+) kargs=(0x[0-9a-f]+) host=(0x[0-9a-f]+)", stdout)
    cttest.check(m, "hip_calls did not print its addresses:\n" + stdout)
    return {"kernel_stub": m.group(1), "kargs": m.group(2), "host": m.group(3)}


def check_full(trace):
    cttest.check(trace.rc == 0, "tracer exit %d" % trace.rc, trace)
    addr = program_addresses(trace.stdout)
    calls = trace.calls(plugin="hip")
    got = [e["api"] for e in calls]
    want = [api for api, _, _ in EXPECTED]
    cttest.check(got == want, "hip calls differ:\n got  %s\n want %s" % (got, want), trace)
    for ev, (api, result, args) in zip(calls, EXPECTED):
        if result is None:
            cttest.check(ev.get("entry_only") is True and "result" not in ev and "dur_ns" not in ev,
                         "%s: not entry-only: %s" % (api, ev), trace)
        else:
            cttest.check(ev["result_name"] == result and ev["result"] == ERROR_VALUES[result]
                         and ev["error"] is True,
                         "%s: result %s %s" % (api, ev.get("result"), ev.get("result_name")), trace)
        cttest.check(ev["depth"] == 0, "%s: depth %d" % (api, ev["depth"]), trace)
        cttest.check(ev["comm"] == "hip_calls", "%s: comm %r" % (api, ev["comm"]), trace)
        cttest.check(result is None or ev["dur_ns"] > 0, "%s: no duration" % api, trace)
        # "=name": that literal name; other strings may be a program address's placeholder.
        want_args = {k: (v[1:] if v.startswith("=") else addr.get(v, v)) if isinstance(v, str) else v
                     for k, v in args.items()}
        cttest.check(ev["args"] == want_args,
                     "%s args:\n got  %s\n want %s" % (api, ev["args"], want_args), trace)
    cttest.check(len({e["tid"] for e in calls}) == 1, "calls came from several threads", trace)


def check_default_profile(trace):
    cttest.check(trace.rc == 0, "tracer exit %d" % trace.rc, trace)
    got = trace.apis(plugin="hip")
    want = [api for api, _, _ in EXPECTED if api != "hipGetDevice"]
    cttest.check(got == want, "default profile:\n got  %s\n want %s" % (got, want), trace)


SINKS = cttest.SUMMARY_AND_MEMORY_SINKS
summary_rows = cttest.summary_rows


def check_sinks(trace):
    """Failed calls are counted as calls and errors; they allocate and copy nothing."""
    rows = summary_rows(os.path.join(trace.files, "summary.txt"))
    cttest.check(set(rows) == {api for api, _, _ in EXPECTED},
                 "summary APIs: %s" % sorted(rows), trace)
    entry_only = {api for api, result, _ in EXPECTED if result is None}
    for api, (calls, errors, nbytes) in rows.items():
        cttest.check(calls == 1 and errors == (0 if api in entry_only else 1) and nbytes in ("0", "-"),
                     "summary %s: %d calls, %d errors, %s bytes" % (api, calls, errors, nbytes),
                     trace)
    with open(os.path.join(trace.files, "memory.txt")) as f:
        mem = f.read()
    cttest.check("runtime hip" in mem and "allocations: 0 (0 bytes), frees: 0 (0 bytes)" in mem,
                 "memory report:\n" + mem, trace)


full = cttest.run(["--plugin", "hip"], config="[tracer]\nprofile = full\n", command=[prog],
                  extra_sinks=SINKS)
check_full(full)
check_sinks(full)
check_default_profile(cttest.run(["--plugin", "hip"], command=[prog]))
print("test_hip: 32 HIP calls traced and decoded")
