# SPDX-License-Identifier: MIT
"""-p of a process that cannot be traced is refused at once, with the reason,
before any BPF is loaded: a zombie (state Z in /proc/PID/stat: it has exited
and waits to be reaped, so no exit event will ever end the run), a kernel
thread (PF_KTHREAD in the flags field: no user-space code), and a pid that
does not exist. Before, the first two waited forever ("process maps no
runtime yet")."""
import os
import subprocess
import time
import cttest as t

E = "cudatracer: error: "
PF_KTHREAD = 0x00200000


def stat(pid):
    with open("/proc/%d/stat" % pid) as f:
        text = f.read()
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return comm, fields[0], int(fields[1]), int(fields[6])  # comm, state, ppid, flags


def refused(pid, line):
    try:
        p = subprocess.run([t.TRACER, "--plugin", "cudart", "-p", str(pid)], capture_output=True, text=True,
                           timeout=20)
    except subprocess.TimeoutExpired:
        raise AssertionError("-p %d: still waiting after 20 s, want the refusal %r" % (pid, line))
    t.check(p.returncode == 1, "-p %d: rc %d, want 1:\n%s" % (pid, p.returncode, p.stderr))
    t.check(p.stderr.splitlines() == [line], "-p %d: want only the line %r, got:\n%s" % (pid, line, p.stderr))


def zombie():
    child = subprocess.Popen(["true"])
    try:
        for _ in range(200):
            if stat(child.pid)[1] == "Z":
                break
            time.sleep(0.01)
        comm, state, ppid, _ = stat(child.pid)
        t.check(state == "Z", "the child is not a zombie yet: %s" % state)
        refused(child.pid, E + "-p %d: process %d (%s) has exited (a zombie, waiting for its parent %d to reap it): "
                "there is nothing left to trace" % (child.pid, child.pid, comm, ppid))
    finally:
        child.wait()


def kernel_thread():
    kthreads = []
    for d in sorted(os.listdir("/proc"), key=lambda s: (len(s), s)):
        if d.isdigit():
            try:
                if stat(int(d))[3] & PF_KTHREAD:
                    kthreads.append(int(d))
            except OSError:
                continue
        if kthreads:
            break
    if not kthreads:
        print("no kernel thread visible in this pid namespace: that case is not checked")
        return
    pid = kthreads[0]
    refused(pid, E + "-p %d: %d (%s) is a kernel thread: it runs no user-space code, so no runtime call to trace"
            % (pid, pid, stat(pid)[0]))


def missing():
    p = subprocess.Popen(["true"])
    p.wait()  # reaped: the pid is free
    refused(p.pid, E + "-p %d: no such process" % p.pid)


def main():
    t.need_root()
    zombie()
    kernel_thread()
    missing()
    print("ok")


main()
