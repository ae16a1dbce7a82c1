#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cudaLaunchKernel shows the kernel's demangled name, wherever the kernel is.

The func argument of cudaLaunchKernel is the kernel's host stub; the tracer
names it from the ELF symbols of the file mapped at that address: the
executable, or a shared library. Covered: runtime linked statically (nvcc's
default) and shared; kernels in the executable and in a library; a
pip-style layout where libcudart sits in a folder of its own, found only
through the executable's RPATH; and that pip copy probed with --lib (one
file in every process that maps it), where the tracer hears of the process
only from its calls and the program exits a few milliseconds after its last
launch, long before the reader's next 100 ms poll.

Each program launches its kernels twice: by cudaLaunchKernel(stub, ...),
then with <<<>>>, which CUDA 13's nvcc compiles to __cudaGetKernel(&handle,
stub) once per kernel and __cudaLaunchKernel(handle, ...), a jump to
cudaLaunchKernel. Without a driver __cudaGetKernel hands back the stub
itself as the handle; with one the handle is the driver's, and the tracer
names it from the __cudaGetKernel call that made it.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import cttest

EXE_KERNELS = [
    ("vec_add(float*, float const*, int)", [2, 1, 1], [64, 1, 1]),
    ("void ct::scale<float>(float*, float, int)", [3, 1, 1], [32, 1, 1]),
    ("void ct::scale<double>(double*, double, int)", [4, 1, 1], [16, 1, 1]),
    ("plain_c_kernel", [1, 1, 1], [8, 1, 1]),
]
LIB_KERNELS = [
    ("lib::lib_fill(int*, int, int)", [5, 1, 1], [128, 1, 1]),
    ("void lib::lib_unrolled<4>(float*)", [6, 1, 1], [32, 1, 1]),
]


def launch_problems(t, expected, what):
    """What is wrong with this run's launches, as a list of lines."""
    expected = expected * 2  # cudaLaunchKernel, then <<<>>>
    launches = [e for e in t.calls(plugin="cudart") if e["api"] == "cudaLaunchKernel"]
    got = [(e["args"].get("func"), e["args"].get("grid"), e["args"].get("block")) for e in launches]
    want = [tuple(k) for k in expected]
    bad = []
    if t.rc != 0:
        bad.append("%s: exit %d\n%s" % (what, t.rc, t.stderr[-2000:]))
    if got != want:
        bad.append("%s: launches\n  %s\nexpected\n  %s\n%s" % (what, got, want, t.stderr[-2000:]))
    for e in launches:
        if e["result_name"] not in ("cudaErrorInsufficientDriver", "cudaSuccess"):
            bad.append("%s: result %r" % (what, e["result_name"]))
    return bad


class LibTrace:
    """A --lib run's results, read as launch_problems reads a Trace."""

    def __init__(self, rc, stderr, events):
        self.rc, self.stderr, self.events = rc, stderr, events

    def calls(self, plugin=None):
        return [e for e in self.events if "api" in e and e["plugin"] == plugin]


def lib_mode(name, kernels, args):
    """Probe the pip copy of libcudart with --lib while the program runs."""
    lib = os.path.join(cttest.PROGRAMS, "pip", "site-packages", "nvidia", "cuda_runtime", "lib",
                       "libcudart.so.13")
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    tr = subprocess.Popen([cttest.TRACER, "-v", "--plugin", "cudart", "--lib", lib, "-o", "jsonl:" + out],
                          stderr=subprocess.PIPE, text=True)
    try:
        err = cttest.wait_tracing(tr)
        subprocess.run([cttest.program(name)] + args, check=True, capture_output=True, timeout=60)
        time.sleep(0.3)
    finally:
        tr.send_signal(signal.SIGINT)
        err.append(tr.communicate(timeout=30)[1])
    events = cttest.read_jsonl(out)
    shutil.rmtree(tmp, True)
    return LibTrace(tr.returncode, "".join(err), events)


UNNAMED = re.compile(r"(\d+) address(?:es)? in (\d+) process(?:es)? left unnamed: the process ended before")


def lib_modes(name, kernels):
    """A job that lives 300 ms past its launches has every launch named; one
    that exits at once (the tracer's reader may come late on a busy machine)
    has them named, or each function it could not name counted in the
    tracer's warning: never an address passed off in silence."""
    t = lib_mode(name, kernels, ["linger"])
    bad = launch_problems(t, kernels, name + " --lib (lingering)")
    if UNNAMED.search(t.stderr):
        bad.append("%s --lib (lingering): addresses left unnamed\n%s" % (name, t.stderr[-2000:]))
    t = lib_mode(name, kernels, [])
    m = UNNAMED.search(t.stderr)
    unnamed = {e["args"].get("func") for e in t.calls(plugin="cudart")
               if e["api"] == "cudaLaunchKernel" and str(e["args"].get("func", "")).startswith("0x")}
    if not m:
        bad += launch_problems(t, kernels, name + " --lib")
    elif int(m.group(1)) < len(unnamed) or int(m.group(2)) != 1:
        bad.append("%s --lib: %d functions shown as addresses, the warning says %s\n%s" % (
            name, len(unnamed), m.group(0), t.stderr[-2000:]))
    else:
        print("note: %s --lib: the job ended before its maps were read (said: %s)" % (name, m.group(0)))
    return bad


def main():
    cttest.need_root()
    cases = [
        ("kname_static", EXE_KERNELS, []),
        ("kname_shared", EXE_KERNELS, []),
        # The runtime linked statically into a shared library: found with scan_libraries.
        ("kname_uselib_static", LIB_KERNELS, ["@scan"]),
        ("kname_uselib_shared", LIB_KERNELS, []),
        ("kname_pip", EXE_KERNELS, ["maps"]),
    ]
    bad = []
    for name, kernels, args in cases:
        opts = ["-C", "tracer.scan_libraries=true"] if "@scan" in args else []
        args = [a for a in args if a != "@scan"]
        t = cttest.run(["--plugin", "cudart"] + opts, command=[cttest.program(name)] + args)
        bad += launch_problems(t, kernels, name)
        if name == "kname_pip":
            pip = os.path.join(cttest.PROGRAMS, "pip", "site-packages", "nvidia", "cuda_runtime", "lib")
            if "runtime: " + pip + "/libcudart.so" not in t.stdout:
                bad.append("kname_pip did not map the pip copy of libcudart:\n" + t.stdout)
    bad += lib_modes("kname_pip", EXE_KERNELS)
    # Every layout is tried, and every failure reported at once.
    cttest.check(not bad, "\n\n".join(bad))
    print("ok: kernel names in %d layouts" % len(cases))


if __name__ == "__main__":
    main()
