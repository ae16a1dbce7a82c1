# SPDX-License-Identifier: MIT
"""The opencl plugin on the real ICD loader, with PoCL running the kernels on the CPU.

tests/programs/opencl_vadd.c runs two kernels and checks their results (the
program exits 1 if they are wrong). The trace must show every traced call in
order with its values: work dimensions and the global and local sizes read
from the arrays, the kernel's name (read when clCreateKernel made the handle)
on the calls that use the handle, buffer sizes, copy and fill sizes, the
build options string, the errcode_ret of the create calls as their result,
and the two deliberate failures by name. The summary sink counts the
buffers' bytes and the bytes each enqueued copy and fill moved, and its
kernels table names both kernels with their work sizes; the chrome trace
names each clEnqueueNDRangeKernel slice by its kernel; the memory sink sees
four buffers allocated and all four released.

Handles are unknown until the program runs: "@name" binds a value the first
time it is seen and must match it afterwards; "*" is any non-NULL pointer.
"""
import json
import os

import cttest

cttest.need_root()
prog = cttest.program("opencl_vadd")

OK = "CL_SUCCESS"
N = 256 * 4  # bytes of one buffer of 256 floats
WAIT_NONE = {"num_events_in_wait_list": 0, "event_wait_list": "0x0", "event": "0x0"}


def enq(**kw):
    d = dict(WAIT_NONE)
    d.update(kw)
    return d


# (api, result name, args, what "ret" binds to for the create calls)
EXPECTED = [
    ("clGetPlatformIDs", OK, {"num_entries": 1, "platforms": "*", "num_platforms": 1}, None),
    ("clGetDeviceIDs", OK, {"platform": "@platform", "device_type": "0xffffffff",
                            "num_entries": 1, "devices": "*", "num_devices": 1}, None),
    ("clCreateContext", OK, {"properties": "0x0", "num_devices": 1, "devices": "*",
                             "pfn_notify": "0x0", "user_data": "0x0", "errcode_ret": OK}, "@ctx"),
    ("clCreateCommandQueue", OK, {"context": "@ctx", "device": "@device", "properties": "0x0",
                                  "errcode_ret": OK}, "@q1"),
    ("clCreateCommandQueueWithProperties", OK, {"context": "@ctx", "device": "@device",
                                                "properties": "0x0", "errcode_ret": OK}, "@q"),
    ("clCreateBuffer", OK, {"context": "@ctx", "flags": "0x4", "size": N, "host_ptr": "0x0",
                            "mem": "@ba", "errcode_ret": OK}, "@ba"),
    ("clCreateBuffer", OK, {"context": "@ctx", "flags": "0x4", "size": N, "host_ptr": "0x0",
                            "mem": "@bb", "errcode_ret": OK}, "@bb"),
    ("clCreateBuffer", OK, {"context": "@ctx", "flags": "0x1", "size": N, "host_ptr": "0x0",
                            "mem": "@bc", "errcode_ret": OK}, "@bc"),
    # No errcode_ret pointer: nothing to read, the handle alone says it worked.
    ("clCreateBuffer", OK, {"context": "@ctx", "flags": "0x1", "size": N, "host_ptr": "0x0",
                            "mem": "@bd", "errcode_ret": None}, "@bd"),
    ("clCreateProgramWithSource", OK, {"context": "@ctx", "count": 1, "strings": "*",
                                       "lengths": "0x0", "errcode_ret": OK}, "@prog"),
    ("clBuildProgram", OK, {"program": "@prog", "num_devices": 1, "device_list": "*",
                            "options": "-DSCALE=3", "pfn_notify": "0x0", "user_data": "0x0"}, None),
    ("clCreateKernel", OK, {"program": "@prog", "kernel_name": "vadd", "kernel": "vadd",
                            "errcode_ret": OK}, "@vadd"),
    ("clCreateKernel", OK, {"program": "@prog", "kernel_name": "scale2d", "kernel": "scale2d",
                            "errcode_ret": OK}, "@scale2d"),
    ("clCreateKernel", "CL_INVALID_KERNEL_NAME", {"program": "@prog",
                                                  "kernel_name": "no_such_kernel",
                                                  "kernel": "0x0",
                                                  "errcode_ret": "CL_INVALID_KERNEL_NAME"}, "0x0"),
    ("clEnqueueWriteBuffer", OK, enq(command_queue="@q", buffer="@ba", blocking_write=1,
                                     offset=0, size=N, ptr="*"), None),
    ("clEnqueueWriteBuffer", OK, enq(command_queue="@q", buffer="@bb", blocking_write=1,
                                     offset=0, size=N, ptr="*"), None),
    ("clSetKernelArg", OK, {"kernel": "vadd", "arg_index": 0, "arg_size": 8, "arg_value": "*"},
     None),
    ("clSetKernelArg", OK, {"kernel": "vadd", "arg_index": 1, "arg_size": 8, "arg_value": "*"},
     None),
    ("clSetKernelArg", OK, {"kernel": "vadd", "arg_index": 2, "arg_size": 8, "arg_value": "*"},
     None),
    ("clEnqueueNDRangeKernel", OK, enq(command_queue="@q", kernel="vadd", work_dim=1,
                                       global_work_offset="0x0", global_work_size=[256],
                                       local_work_size=[64]), None),
    ("clSetKernelArg", OK, {"kernel": "scale2d", "arg_index": 0, "arg_size": 8,
                            "arg_value": "*"}, None),
    ("clEnqueueNDRangeKernel", OK, enq(command_queue="@q", kernel="scale2d", work_dim=2,
                                       global_work_offset="0x0", global_work_size=[16, 16],
                                       local_work_size=None), None),
    ("clEnqueueCopyBuffer", OK, enq(command_queue="@q", src_buffer="@bc", dst_buffer="@bd",
                                    src_offset=0, dst_offset=0, size=N), None),
    ("clEnqueueFillBuffer", OK, enq(command_queue="@q", buffer="@bc", pattern="*",
                                    pattern_size=4, offset=0, size=N, event="*"), None),
    ("clFlush", OK, {"command_queue": "@q"}, None),
    ("clWaitForEvents", OK, {"num_events": 1, "event_list": "*"}, None),
    ("clEnqueueReadBuffer", OK, enq(command_queue="@q", buffer="@bd", blocking_read=1,
                                    offset=0, size=N, ptr="*"), None),
    ("clEnqueueReadBuffer", OK, enq(command_queue="@q", buffer="@bc", blocking_read=1,
                                    offset=0, size=N, ptr="*"), None),
    ("clFinish", OK, {"command_queue": "@q"}, None),
    ("clReleaseMemObject", "CL_INVALID_MEM_OBJECT", {"memobj": "0x0"}, None),
    ("clReleaseMemObject", OK, {"memobj": "@bd"}, None),
    ("clReleaseMemObject", OK, {"memobj": "@bc"}, None),
    ("clReleaseMemObject", OK, {"memobj": "@bb"}, None),
    ("clReleaseMemObject", OK, {"memobj": "@ba"}, None),
    ("clReleaseKernel", OK, {"kernel": "scale2d"}, None),
    ("clReleaseKernel", OK, {"kernel": "vadd"}, None),
    ("clReleaseProgram", OK, {"program": "@prog"}, None),
    ("clReleaseCommandQueue", OK, {"command_queue": "@q"}, None),
    ("clReleaseCommandQueue", OK, {"command_queue": "@q1"}, None),
    ("clReleaseContext", OK, {"context": "@ctx"}, None),
]
ERRORS = {OK: 0, "CL_INVALID_KERNEL_NAME": -46, "CL_INVALID_MEM_OBJECT": -38}


class Bindings:
    def __init__(self):
        self.v = {}

    def match(self, want, got):
        if isinstance(want, str) and want.startswith("@"):
            if want not in self.v:
                ok = isinstance(got, str) and got.startswith("0x") and got != "0x0"
                self.v[want] = got
                return ok
            return self.v[want] == got
        if want == "*":
            return isinstance(got, str) and got.startswith("0x") and got != "0x0"
        return want == got


def check(trace):
    cttest.check(trace.rc == 0, "tracer exit %d (the program checks its results)" % trace.rc,
                 trace)
    cttest.check("0 wrong" in trace.stdout, "kernels gave wrong results:\n" + trace.stdout, trace)
    calls = trace.calls(plugin="opencl")
    got = [e["api"] for e in calls]
    want = [row[0] for row in EXPECTED]
    cttest.check(got == want, "opencl calls differ:\n got  %s\n want %s" % (got, want), trace)
    b = Bindings()
    for i, (ev, (api, result, args, ret)) in enumerate(zip(calls, EXPECTED)):
        where = "call %d %s" % (i, api)
        cttest.check(ev["result_name"] == result and ev["result"] == ERRORS[result]
                     and ev["error"] == (result != OK),
                     "%s: result %s %s" % (where, ev.get("result"), ev.get("result_name")), trace)
        cttest.check(ev["depth"] == 0, "%s: depth %d" % (where, ev["depth"]), trace)
        cttest.check(set(ev["args"]) == set(args),
                     "%s: argument names %s, want %s" % (where, sorted(ev["args"]), sorted(args)),
                     trace)
        for k, v in args.items():
            cttest.check(b.match(v, ev["args"][k]),
                         "%s: %s = %r, want %r %s" % (where, k, ev["args"][k], v,
                                                      b.v.get(v, "") if isinstance(v, str) else ""),
                         trace)
        if ret is not None:
            cttest.check("ret" in ev and b.match(ret, ev["ret"]),
                         "%s: ret %r, want %r" % (where, ev.get("ret"), ret), trace)
    # The device the queues were made for is the one clGetDeviceIDs returned.
    cttest.check(b.v["@device"] != b.v["@platform"], "device and platform handles are equal",
                 trace)
    cttest.check(len({e["tid"] for e in calls}) == 1, "calls came from several threads", trace)


SINKS = cttest.SUMMARY_AND_MEMORY_SINKS + """
[sink.chrome]
type = chrome
path = @TMP@/trace.json
"""
summary_rows = cttest.summary_rows

# The summary's kernels table: launches, errors, grids, blocks, runtime, kernel
# (the times between them vary). scale2d was given no local size: "-".
KERNELS = [("1", "0", "(256,1,1)", "(64,1,1)", "opencl", "vadd"),
           ("1", "0", "(16,16,1)", "-", "opencl", "scale2d")]


def kernel_rows(summary):
    rows, table = [], False
    for line in summary.splitlines():
        if line.startswith("Kernels (from launch calls"):
            table = True
        elif table and line.startswith("Launches"):
            continue
        elif table and not line.strip():
            break
        elif table:
            col = line.split()
            rows.append((col[0], col[1]) + tuple(col[4:]))
    return sorted(rows, key=lambda r: r[-1], reverse=True)


def check_sinks(trace):
    """Buffers count as device memory, enqueued copies and fills as bytes moved."""
    rows = summary_rows(os.path.join(trace.files, "summary.txt"))
    want = {}
    for api, result, _, _ in EXPECTED:
        calls, errors, _ = want.get(api, (0, 0, None))
        want[api] = (calls + 1, errors + (result != OK), "-")
    bytes_moved = {"clCreateBuffer": 4 * N, "clEnqueueWriteBuffer": 2 * N,
                   "clEnqueueReadBuffer": 2 * N, "clEnqueueCopyBuffer": N,
                   "clEnqueueFillBuffer": N}
    for api, n in bytes_moved.items():
        want[api] = want[api][:2] + (str(n),)
    cttest.check(rows == want, "summary:\n got  %s\n want %s" % (rows, want), trace)
    with open(os.path.join(trace.files, "summary.txt")) as f:
        summary = f.read()
    kernels = kernel_rows(summary)
    cttest.check(kernels == KERNELS, "summary's kernels table:\n got  %s\n want %s\n%s"
                 % (kernels, KERNELS, summary), trace)
    with open(os.path.join(trace.files, "trace.json")) as f:
        slices = [e["name"] for e in json.load(f)["traceEvents"]
                  if e.get("ph") == "X" and e.get("cat") == "opencl"]
    launches = [s for s in slices if s in ("vadd", "scale2d")]
    cttest.check(launches == ["vadd", "scale2d"] and "clEnqueueNDRangeKernel" not in slices,
                 "chrome slices of the launches: %s" % slices, trace)
    with open(os.path.join(trace.files, "memory.txt")) as f:
        mem = f.read()
    for line in ("runtime opencl", "allocations: 4 (%d bytes), frees: 4 (%d bytes)" % (4 * N, 4 * N),
                 "peak in use: device %d bytes" % (4 * N), "never freed: 0 allocations, 0 bytes"):
        cttest.check(line in mem, "memory report lacks %r:\n%s" % (line, mem), trace)


trace = cttest.run(["--plugin", "opencl"], command=[prog], extra_sinks=SINKS)
check(trace)
check_sinks(trace)
print("test_opencl: %d OpenCL calls traced and decoded on PoCL" % len(EXPECTED))
