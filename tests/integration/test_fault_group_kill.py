# SPDX-License-Identifier: MIT
"""A signal to the tracer's whole process group (timeout -s KILL, Ctrl-\\, a
service stop: kill -KILL -PGID) while tasks the watcher stopped wait for it.

The traced command forks children that leave its process group (setsid, as
a job launcher's workers do) and load the runtime late with dlopen: the
watcher stops each at its open. The tracer is frozen (SIGSTOP) so that it
cannot continue them, then its group gets SIGKILL, or SIGQUIT (Ctrl-\\). The
guard (core/capture/guard.c) lives in its own session and ignores group
signals: it sees the tracer die and continues every stopped child. Within
1 s of the kill no child is in state T, and each then finishes its call.
Without that, the group signal kills the guard with the tracer and the
children stay stopped for good."""
import os
import resource
import signal
import subprocess
import time
import cttest as t

N_CHILDREN = 3


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def no_core():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def guard_of(tracer_pid):
    with open("/proc/%d/task/%d/children" % (tracer_pid, tracer_pid)) as f:
        for kid in f.read().split():
            with open("/proc/%s/comm" % kid) as c:
                if c.read().strip() == "ct-guard":
                    return int(kid)
    return None


def group_signal(sig):
    lib = os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98")
    # A session of its own, as a shell gives a job: the group is the tracer's
    # (its command and the guard before the fix), not this test's.
    tp = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-o", "jsonl:/dev/null", "--",
                           os.path.join(t.PROGRAMS, "fault_forks"), lib, str(N_CHILDREN), "wait"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          start_new_session=True, preexec_fn=no_core)
    kids = []
    try:
        t.wait_tracing(tp)
        t.check(tp.stdout.readline().startswith("ready"), "program did not start")
        guard = guard_of(tp.pid)
        t.check(guard is not None, "no ct-guard process under the tracer")
        os.kill(tp.pid, signal.SIGSTOP)
        tp.stdin.write("go\n")
        tp.stdin.flush()
        for _ in range(N_CHILDREN):
            line = tp.stdout.readline().split()
            t.check(len(line) == 3 and line[0] == "child", "want 'child I PID', got %r" % line)
            kids.append(int(line[2]))
        end = time.time() + 10
        while time.time() < end and any(state(k) != "T" for k in kids):
            time.sleep(0.02)
        t.check(all(state(k) == "T" for k in kids),
                "the watcher did not stop every child at its dlopen: %s" % [state(k) for k in kids])
        os.killpg(tp.pid, sig)
        if sig != signal.SIGKILL:
            # A frozen process acts on SIGQUIT once it runs again: let the
            # tracer (only the tracer) run into it.
            os.kill(tp.pid, signal.SIGCONT)
        killed = time.time()
        while time.time() < killed + 5 and any(state(k) == "T" for k in kids):
            time.sleep(0.01)
        took = time.time() - killed
        stopped = [k for k in kids if state(k) == "T"]
        t.check(not stopped, "%s: children %s still stopped %.1f s after the group signal" %
                (signal.Signals(sig).name, stopped, took))
        t.check(took < 1.0, "%s: the children stayed stopped %.2f s after the group signal" %
                (signal.Signals(sig).name, took))
        rc = tp.wait(timeout=10)
        t.check(rc == -sig, "tracer rc %d, want death by %s" % (rc, signal.Signals(sig).name))
        # Each child, continued, makes its call and prints; then the pipe ends.
        out, _ = tp.communicate(timeout=20)
        t.check(sorted(out.split("\n")[:-1]) == ["done %d" % i for i in range(1, N_CHILDREN + 1)],
                "the continued children did not finish their calls: %r" % out)
        end = time.time() + 5
        while time.time() < end and state(guard) not in ("gone", "Z", "X"):
            time.sleep(0.05)
        t.check(state(guard) in ("gone", "Z", "X"), "the guard outlived its job: state %s" % state(guard))
        print("%s to the group: children continued %.3f s after" % (signal.Signals(sig).name, took))
    finally:
        for k in kids:
            if state(k) == "T":
                os.kill(k, signal.SIGKILL)
        if tp.poll() is None:
            os.killpg(tp.pid, signal.SIGKILL)
            tp.wait()


def main():
    t.need_root()
    if not os.path.exists(os.path.join(t.PROGRAMS, "fault_forks")):
        t.skip("fault_forks was not built")
    group_signal(signal.SIGKILL)
    group_signal(signal.SIGQUIT)
    print("ok")


main()
