#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--engine inproc -p PID is refused with the reason read from the process's
maps (docs/engines.md): a process without the interposer cannot take it
(a preload library enters at exec); one that maps it (here a sleep started
with it preloaded and no ring, as a command of an ended --engine inproc
run is left) is told what re-attaching would need. Nothing is traced, and
the process goes on.
"""
import os
import subprocess
import time
import cttest as t

CORE = os.path.join(os.path.dirname(t.TRACER), "libcudatracer-inproc.so")


def refused(pid):
    r = t.run(["--no-config", "--engine", "inproc", "-p", str(pid)], jsonl_sink=False)
    t.check(r.rc == 1, "-p %d: exit %d" % (pid, r.rc), r)
    return r


def main():
    if not os.path.exists(CORE):
        t.skip("no %s" % CORE)
    plain = subprocess.Popen(["sleep", "60"])
    env = dict(os.environ, LD_PRELOAD=CORE)
    left = subprocess.Popen(["sleep", "60"], env=env)
    try:
        r = refused(plain.pid)
        t.check("cannot attach to process %d: its interposer (libcudatracer-inproc.so) is not in it" % plain.pid
                in r.stderr and "LD_PRELOAD, read at exec" in r.stderr and
                "--engine ebpf (sudo cudatracer -p %d)" % plain.pid in r.stderr and
                "cudatracer --engine inproc -- COMMAND" in r.stderr, "not loaded:\n" + r.stderr, r)
        # The preload is in once the dynamic linker has run: wait for its mapping.
        for _ in range(500):
            with open("/proc/%d/maps" % left.pid) as f:
                if CORE in f.read():
                    break
            time.sleep(0.01)
        r = refused(left.pid)
        t.check("the interposer (libcudatracer-inproc.so) is in it" in r.stderr and
                "ended with it" in r.stderr and "this version does not do" in r.stderr and
                "--engine ebpf (sudo cudatracer -p %d)" % left.pid in r.stderr, "loaded:\n" + r.stderr, r)
        r = refused(2 ** 22 + 7)
        t.check("-p %d: no such process" % (2 ** 22 + 7) in r.stderr,
                "no such process:\n" + r.stderr, r)
        t.check(plain.poll() is None and left.poll() is None, "the processes go on")
    finally:
        for p in (plain, left):
            p.kill()
            p.wait()
    print("ok: --engine inproc -p says why, loaded or not")


if __name__ == "__main__":
    main()
