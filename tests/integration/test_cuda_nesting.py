#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Both layers at once: --plugin cudart,cuda.

Each call shows once per layer, and the driver calls that libcudart makes
inside a runtime call are on the same thread and nested in time within it.
Both layers' records come through the engine's one ring in the order the
thread finished the calls (an inner driver call before the runtime call it
was made in), and depth counts the calls of both layers.
libcudart loads the driver as libcuda.so.1: the system's on a GPU machine;
elsewhere the toolkit's stub, which tests/stubs names libcuda.so.1 (libcudart
asks it for its entry points and driver version, gets
CUDA_ERROR_STUB_LIBRARY and fails the runtime call).
"""
import ctypes
import os

import cttest


def have_system_driver():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def main():
    cttest.need_root()
    prog = cttest.program("kname_shared")
    stubs = os.path.join(cttest.BUILD, "tests", "stubs")
    if have_system_driver():
        env = {}
    elif os.path.exists(os.path.join(stubs, "libcuda.so.1")):
        env = {"LD_LIBRARY_PATH": stubs}
    else:
        cttest.skip("no libcuda.so.1: neither a driver nor the toolkit's stub link in tests/stubs")
    t = cttest.run(["--plugin", "cudart,cuda"], config="[tracer]\nprofile = full\n",
                   command=[prog], env=env)
    cttest.check(t.rc == 0, "exit %d" % t.rc, t)
    rt = t.calls(plugin="cudart")
    drv = t.calls(plugin="cuda")
    launches = [e for e in rt if e["api"] == "cudaLaunchKernel"]
    # Once per layer: eight runtime launches (four by cudaLaunchKernel, four
    # by <<<>>>), no duplicates from the other plugin.
    cttest.check(len(launches) == 8, "%d cudaLaunchKernel events" % len(launches), t)
    cttest.check(not any(e["api"].startswith("cuda") for e in drv), "runtime calls in the cuda plugin", t)
    cttest.check(not any(e["api"].startswith("cu") and not e["api"].startswith("cuda") for e in rt),
                 "driver calls in the cudart plugin", t)
    cttest.check(drv, "no driver calls seen (libcudart loads libcuda.so.1)", t)

    # The runtime initialises itself inside its first call: the first launch.
    first = launches[0]
    start, end = first["ts_ns"], first["ts_ns"] + first["dur_ns"]
    inside = [e for e in drv if e["tid"] == first["tid"]
              and start <= e["ts_ns"] and e["ts_ns"] + e["dur_ns"] <= end]
    cttest.check(inside, "no driver call nested in %s [%d, %d]; driver calls: %s"
                 % (first["api"], start, end, [(e["api"], e["tid"], e["ts_ns"]) for e in drv]), t)
    # The first calls libcudart makes into a driver it just loaded (on the stub
    # it goes no further); calls through pointers from cuGetProcAddress are
    # seen only where the pointer is the exported symbol.
    boot = {"cuGetProcAddress_v2", "cuDriverGetVersion", "cuInit"}
    cttest.check(boot & set(e["api"] for e in inside),
                 "none of %s nested: %s" % (sorted(boot), [e["api"] for e in inside]), t)
    # Each driver call made inside it names the runtime call it was made in.
    for e in inside:
        cttest.check(e.get("parent") == {"plugin": "cudart", "api": "cudaLaunchKernel"},
                     "%s: parent %r" % (e["api"], e.get("parent")), t)
    # And a driver call made outside every runtime call names none.
    def in_runtime(e):
        return any(r["tid"] == e["tid"] and r["ts_ns"] <= e["ts_ns"] and
                   e["ts_ns"] + e["dur_ns"] <= r["ts_ns"] + r["dur_ns"] for r in rt)
    for e in drv:
        cttest.check(in_runtime(e) or "parent" not in e, "%s outside runtime calls has parent %r"
                     % (e["api"], e.get("parent")), t)
    # One ring: per thread, records in the order the calls returned, across
    # both layers; a driver call inside a runtime call is one deeper.
    for tid in set(e["tid"] for e in t.events):
        ends = [e["ts_ns"] + e.get("dur_ns", 0) for e in t.events if e["tid"] == tid]
        cttest.check(ends == sorted(ends), "thread %d: records out of call order across layers" % tid, t)
    for e in inside:
        cttest.check(e["depth"] >= first["depth"] + 1, "%s inside a launch at depth %d: depth %d"
                     % (e["api"], first["depth"], e["depth"]), t)
    # Runtime calls are made by the program itself: no parent.
    cttest.check(not any("parent" in e for e in rt), "a runtime call with a parent", t)
    print("ok: %d driver calls nested in the first cudaLaunchKernel (%s)"
          % (len(inside), "system driver" if not env else "stub driver"))


if __name__ == "__main__":
    main()
