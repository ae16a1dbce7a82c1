# SPDX-License-Identifier: MIT
"""A probed library unloaded with dlclose, then loaded again: the program
checks that dlclose really unmapped it; the calls made through both loads
are traced, in command mode and with -p, and the tracer neither fails nor
leaves the program stopped when the library comes back."""
import os
import shutil
import subprocess
import tempfile
import cttest as t


def private_copy():
    # A copy of the stand-in runtime that only dlopen brings in.
    tmp = tempfile.mkdtemp(prefix="cttest.")
    lib = os.path.join(tmp, "libcudart.so.98")
    shutil.copy(os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98"), lib)
    return lib


def main():
    t.need_root()
    prog = os.path.join(t.PROGRAMS, "fault_dlclose")
    if not os.path.exists(prog):
        t.skip("fault_dlclose was not built")
    lib = private_copy()
    tr = t.run(["--plugin", "cudart"], command=[prog, lib], timeout=60)
    t.check(tr.rc == 0, "rc %d (3: not loaded, 4: dlclose left it mapped)" % tr.rc, tr)
    t.check(tr.stdout.splitlines() == ["unloaded 1", "unloaded 2"], "program output %r" % tr.stdout, tr)
    got = [(e["api"], e["args"]["count"], e["result_name"]) for e in tr.events]
    t.check(got == [("cudaMemset", 1, "cudaSuccess"), ("cudaMemset", 2, "cudaSuccess")],
            "events %s" % got, tr)
    t.check(tr.lost() == 0, "lost records", tr)

    # The same with --lib, which probes the file before any process maps it.
    tr = t.run(["--plugin", "cudart", "--lib", lib], command=[prog, lib], timeout=60)
    t.check(tr.rc == 0, "--lib: rc %d" % tr.rc, tr)
    got = [e["args"]["count"] for e in tr.events]
    t.check(got == [1, 2], "--lib: events %s" % got, tr)
    # Attached with -p before the first load.
    target = subprocess.Popen([prog, lib, "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.check(target.stdout.readline().startswith("ready"), "program did not start")
    out = os.path.join(tempfile.mkdtemp(prefix="cttest."), "ev.jsonl")
    tp = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-p", str(target.pid), "-o", "jsonl:" + out],
                          stderr=subprocess.PIPE, text=True)
    err = t.wait_tracing(tp)
    target.stdin.write("go\n")
    target.stdin.flush()
    rc = target.wait(timeout=30)  # a program left stopped would time out here
    t.check(rc == 0, "-p: program rc %d" % rc)
    stderr = "".join(err) + tp.communicate(timeout=30)[1]
    t.check(tp.returncode == 0, "-p: tracer rc %d:\n%s" % (tp.returncode, stderr))
    got = [e["args"]["count"] for e in t.read_jsonl(out)]
    t.check(got == [1, 2], "-p: events %s\n%s" % (got, stderr))
    print("ok")


main()
