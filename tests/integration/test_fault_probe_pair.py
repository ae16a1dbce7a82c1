# SPDX-License-Identifier: MIT
"""A library's entry and exit links are attached together or not at all.

The tracer follows a process (-p) that then loads a private copy of the real
libcudart; just before that load the tracer's descriptor limit is lowered
(prlimit) so that only 1 to 6 more descriptors can be opened: and once the
return links are made and the entry links fail (a test hook, since files are
read before either direction is attached). Whatever the
limit, the copy is either probed whole (both calls traced, with their
returns) or not at all: one error line that says the links already made were
removed, the library counted on the closing line, and no call seen without
its return (before: the entry link stayed, each call's frame was never
popped).
"""
import os
import re
import resource
import shutil
import subprocess
import tempfile
import cttest as t

CUDART = os.path.realpath(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so"))
CALLS = ["cudaGetDeviceCount", "cudaMalloc"]


def limit_leaving(pid, free):
    """The lowest descriptor limit under which `free` more can be opened."""
    used = set(int(fd) for fd in os.listdir("/proc/%d/fd" % pid))
    limit = 0
    while limit - len([fd for fd in used if fd < limit]) < free:
        limit += 1
    return limit


def run(prog, lib, free, env=None):
    target = subprocess.Popen([prog, lib, "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.check(target.stdout.readline().startswith("ready"), "program did not start")
    # Entry and return programs: two links per file, the pair under test (a
    # uprobe session's one link per file has no second direction to fail).
    tr, out, err = t.trace_pid(target.pid, ["--plugin", "cudart", "-C", "tracer.attach=multi"], env=env)
    limit = limit_leaving(tr.pid, free)
    resource.prlimit(tr.pid, resource.RLIMIT_NOFILE, (limit, limit))
    target.stdin.write("go\n")
    target.stdin.flush()
    t.check(target.wait(timeout=60) == 0, "program exited %d" % target.returncode)
    stderr = "".join(err) + tr.communicate(timeout=60)[1]
    events = t.read_jsonl(out) if os.path.exists(out) else []
    return tr.returncode, stderr, events


def main():
    t.need_root()
    prog = t.program("late_dlopen")
    if not os.path.exists(CUDART):
        t.skip("no libcudart at %s" % CUDART)
    tmp = tempfile.mkdtemp(prefix="cttest.")
    lib = os.path.join(tmp, "libcudart.so.13")
    shutil.copy(CUDART, lib)
    paths = {}
    # Limits 1 to 6, then no limit with the entry links made to fail after the
    # return links (CUDATRACER_TEST_FAIL_ENTRY_LINKS: the files are read before
    # either direction is attached, so no descriptor limit lands between them).
    fault = dict(os.environ, CUDATRACER_TEST_FAIL_ENTRY_LINKS="1")
    for free in list(range(1, 7)) + ["fault"]:
        rc, stderr, events = run(prog, lib, 64 if free == "fault" else free,
                                 fault if free == "fault" else None)
        closing = [l for l in stderr.splitlines() if " events, " in l]
        what = "%s descriptors free: " % free
        t.check(rc == 0 and closing, what + "tracer exited %d:\n%s" % (rc, stderr))
        t.check("without their call" not in closing[-1] and "nested too deep" not in closing[-1],
                what + "calls seen without their return: " + closing[-1])
        failed = [l for l in stderr.splitlines() if l.startswith("cudatracer: error: attaching") and lib in l]
        if "probes on " + lib in stderr:
            t.check(not failed and [e["api"] for e in events] == CALLS and all("dur_ns" in e for e in events),
                    what + "probed, but traced %s\n%s" % ([e["api"] for e in events], stderr))
            paths[free] = "probed"
        else:
            t.check(events == [], what + "not probed, yet %d calls traced" % len(events))
            t.check(len(failed) <= 1, what + "the failure said %d times" % len(failed))
            if failed:
                t.check(re.search(r"1 library could not be probed", closing[-1]),
                        what + "not counted: " + closing[-1])
                paths[free] = "links removed" if "were removed" in failed[0] else "failed"
            else:
                paths[free] = "not attached"
    print("paths taken by limit: %s" % paths)
    t.check("links removed" in paths.values(),
            "no run made the second direction's links fail after the first's (the path under test): %s" % paths)
    t.check(paths["fault"] == "links removed", "the entry links' failure did not remove the return links: %s" % paths)
    t.check("probed" in paths.values(), "no limit let the copy be probed: %s" % paths)
    shutil.rmtree(tmp, True)
    print("ok")


main()
