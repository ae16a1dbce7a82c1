# SPDX-License-Identifier: MIT
"""The exact sequence of CUDA runtime calls of tests/programs/cudart_calls.cu,
decoded, with the runtime linked shared (-cudart shared) and statically
(nvcc's default), traced in command mode; and the hot getter that only the
full profile shows."""
import cttest as t

# (api, {arg: value}) in program order; values are what the program passed.
EXPECTED = [
    ("cudaGetDeviceCount", {}),
    ("cudaSetDevice", {"device": 3}),
    ("cudaMalloc", {"size": 4096}),
    ("cudaMallocHost", {"size": 8192}),
    ("cudaHostAlloc", {"size": 12288, "flags": "0x2"}),
    ("cudaMallocManaged", {"size": 16384, "flags": "0x1"}),
    ("cudaMallocAsync", {"size": 20480, "stream": "0x5100"}),
    ("cudaMemcpy", {"dst": "0x1000", "src": "0x2000", "count": 1000, "kind": "cudaMemcpyHostToDevice"}),
    ("cudaMemcpyAsync", {"dst": "0x3000", "src": "0x4000", "count": 2000,
                         "kind": "cudaMemcpyDeviceToHost", "stream": "0x5100"}),
    ("cudaMemcpy2D", {"dpitch": 512, "spitch": 256, "width": 200, "height": 30,
                      "kind": "cudaMemcpyDeviceToDevice"}),
    ("cudaMemcpy2DAsync", {"width": 100, "height": 40, "kind": "cudaMemcpyHostToDevice", "stream": "0x5200"}),
    ("cudaMemset", {"devPtr": "0x6000", "value": 0x5a, "count": 3000}),
    ("cudaMemsetAsync", {"devPtr": "0x7000", "value": 7, "count": 4000, "stream": "0x5100"}),
    ("cudaLaunchKernel", {"grid": [7, 5, 3], "block": [32, 4, 2], "sharedMem": 1024, "stream": "0x5300"}),
    # <<<>>> in CUDA 13: a kernel handle for the stub, then the launch.
    ("__cudaGetKernel", {"entryFuncAddr": "touch(int*)"}),
    ("cudaLaunchKernel", {"grid": [9, 8, 1], "block": [64, 1, 1], "sharedMem": 0, "stream": "0x5400"}),
    ("cudaLaunchKernelExC", {"grid": [11, 12, 13], "block": [14, 15, 16], "sharedMem": 2048, "stream": "0x5500"}),
    ("cudaStreamCreate", {}),
    ("cudaStreamCreateWithFlags", {"flags": "0x1"}),
    ("cudaEventCreate", {}),
    ("cudaEventCreateWithFlags", {"flags": "0x2"}),
    ("cudaEventRecord", {"event": "0xe100", "stream": "0x5100"}),
    ("cudaStreamWaitEvent", {"stream": "0x5100", "event": "0xe100", "flags": "0x0"}),
    ("cudaEventSynchronize", {"event": "0xe100"}),
    ("cudaEventElapsedTime", {"start": "0xe100", "end": "0xe200"}),
    ("cudaEventDestroy", {"event": "0xe100"}),
    ("cudaGraphLaunch", {"graphExec": "0x9900", "stream": "0x5100"}),
    ("cudaStreamSynchronize", {"stream": "0x5100"}),
    ("cudaStreamDestroy", {"stream": "0x5100"}),
    ("cudaMemGetInfo", {}),
    ("cudaFreeAsync", {"devPtr": "0x8000", "stream": "0x5100"}),
    ("cudaFreeHost", {"ptr": "0x8100"}),
    ("cudaFree", {"devPtr": "0x8200"}),
    ("cudaDeviceSynchronize", {}),
]
# Recorded at entry only by the plugin's default (tracer.timed times them):
# no result, no duration; the arguments all the same.
ENTRY_ONLY = {"cudaEventRecord", "cudaStreamWaitEvent"}


def check_sequence(tr, expected, what):
    got = tr.apis("cudart")
    want = [api for api, _ in expected]
    t.check(got == want, "%s: calls differ\n got: %s\nwant: %s" % (what, got, want), tr)
    launch_funcs = set()
    for ev, (api, args) in zip(tr.calls(plugin="cudart"), expected):
        for k, v in args.items():
            t.check(ev["args"].get(k) == v, "%s: %s %s = %r, want %r" % (what, api, k, ev["args"].get(k), v), tr)
        if api in ENTRY_ONLY:
            t.check(ev.get("entry_only") is True and "result" not in ev and "dur_ns" not in ev
                    and ev["depth"] == 0, "%s: %s is not entry-only: %s" % (what, api, ev), tr)
            continue
        t.check(ev["result"] == 35 and ev["result_name"] == "cudaErrorInsufficientDriver" and ev["error"],
                "%s: %s result %r %r" % (what, api, ev.get("result"), ev.get("result_name")), tr)
        t.check(ev["dur_ns"] > 0 and ev["depth"] == 0, "%s: %s duration/depth" % (what, api), tr)
        if api.startswith("cudaLaunchKernel"):
            launch_funcs.add(ev["args"]["func"])
    # The three launches run the same kernel, named from the stub's ELF symbol.
    t.check(launch_funcs == {"touch(int*)"}, "%s: launches name kernels %s" % (what, launch_funcs), tr)


def main():
    t.need_root()
    for variant in ("shared", "static"):
        prog = t.program("cudart_calls_" + variant)
        tr = t.run(["--plugin", "cudart"], command=[prog])
        t.check(tr.rc == 0, "%s: tracer exited %d" % (variant, tr.rc), tr)
        check_sequence(tr, EXPECTED, variant)
        t.check(tr.lost() == 0, "%s: records lost" % variant, tr)
        t.check(len({e["pid"] for e in tr.events}) == 1, "one process", tr)

    # The fallback for kernels without uprobe_multi: one link per symbol, same events.
    tr = t.run(["--plugin", "cudart", "--attach", "single", "-v"], command=[t.program("cudart_calls_static")])
    check_sequence(tr, EXPECTED, "attach=single")
    t.check("one link per symbol" in tr.stderr, "attach=single: not said", tr)

    # profile = full adds the hot getter cudaGetDevice, in its place, and
    # what nvcc's code calls on its own (rows generated from the header, hot):
    # the module and its kernel registered at start, the <<<>>> launch's
    # configuration pushed and popped around it, the module unregistered at exit.
    tr = t.run(["--plugin", "cudart", "--profile", "full"], command=[t.program("cudart_calls_shared")])
    nvcc = ["__cudaRegisterFatBinary", "__cudaRegisterFunction", "__cudaRegisterFatBinaryEnd",
            "__cudaPushCallConfiguration", "__cudaGetKernel", "__cudaPopCallConfiguration", "__cudaUnregisterFatBinary"]
    got = [a for a in tr.apis("cudart") if a in nvcc]
    t.check(got == nvcc, "profile=full: nvcc's own calls %s" % got, tr)
    tr.events = [e for e in tr.events if e.get("api") not in nvcc or e["api"] == "__cudaGetKernel"]
    full = EXPECTED[:2] + [("cudaGetDevice", {})] + EXPECTED[2:]
    check_sequence(tr, full, "profile=full")

    # include/exclude globs choose APIs at attach time.
    tr = t.run(["--plugin", "cudart", "--include", "cudaMemcpy*,cudaFree*", "--exclude", "cudaMemcpy2D*"],
               command=[t.program("cudart_calls_shared")])
    want = [a for a, _ in EXPECTED if (a.startswith("cudaMemcpy") or a.startswith("cudaFree"))
            and not a.startswith("cudaMemcpy2D")]
    t.check(tr.apis() == want, "include/exclude: %s" % tr.apis(), tr)
    print("ok")


main()
