#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attached mid-run (-p), a driver launch whose handle was made before
attach is named from the runtime launch it was made in.

tests/programs/kname_attach launches my_kern(float*) once, waits for the
tracer, then launches it COUNT more times, through a stand-in runtime whose
cudaLaunchKernel calls the stand-in driver's cuLaunchKernel with a handle
made at the first launch (the real runtime needs a GPU to get that far).
Records come as calls return: the first traced cuLaunchKernel comes before
the cudaLaunchKernel it was made in and is written unnamed; from then on
the handle has its parent's name. The closing line counts both.
"""
import os
import re
import subprocess

import cttest as t

FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")
COUNT = 5
NAME = "my_kern(float*)"


def main():
    t.need_root()
    p = subprocess.Popen([t.program("kname_attach"), FAKE_DIR, str(COUNT), "wait"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    t.check(line.startswith("ready"), "kname_attach did not start: %r" % line)
    # The tracer ends while the process lives: the stubs are named from
    # its maps, which go with it.
    tr, out, stderr, line = t.trace_pid_while(p, ["--plugin", "cudart,cuda"])
    t.check(line == "launched %d\n" % (COUNT + 1), "kname_attach: %r" % line)
    t.check(p.wait(timeout=60) == 0, "kname_attach exited %d" % p.returncode)
    t.check(tr.returncode == 0, "tracer exited %d:\n%s" % (tr.returncode, stderr))
    ev = t.read_jsonl(out)
    rt = [e["args"].get("func") for e in ev if e.get("api") == "cudaLaunchKernel"]
    drv = [e for e in ev if e.get("api") == "cuLaunchKernel"]
    t.check(rt == [NAME] * COUNT, "runtime launches: %s\n%s" % (rt, stderr))
    t.check(len(drv) == COUNT, "%d driver launches, not %d\n%s" % (len(drv), COUNT, stderr))
    for e in drv:
        t.check(e.get("parent") == {"plugin": "cudart", "api": "cudaLaunchKernel"},
                "cuLaunchKernel with parent %r" % e.get("parent"))
    names = [e["args"].get("f") for e in drv]
    # The first: a handle made before attach, written before its parent came.
    t.check(re.fullmatch(r"0x[0-9a-f]+", str(names[0])) is not None, "first driver launch: f %r" % names[0])
    t.check(names[1:] == [NAME] * (COUNT - 1), "later driver launches not named from the parent: %s" % names)
    m = re.search(r"launches: (\d+) with their kernel named, (\d+) unnamed", stderr)
    t.check(m and (int(m.group(1)), int(m.group(2))) == (2 * COUNT - 1, 1),
            "closing line: %s\n%s" % (m and m.group(0), stderr))
    print("ok: %d of %d driver launches named from their parent after attach" % (COUNT - 1, COUNT))


if __name__ == "__main__":
    main()
