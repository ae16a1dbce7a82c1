# SPDX-License-Identifier: MIT
"""The tracer killed with SIGKILL, then started again.

- Nothing is left in the kernel: every BPF program, link and map the tracer
  held (read from its /proc/PID/fdinfo) is gone soon after, since links are
  owned by file descriptors and nothing is pinned in /sys/fs/bpf.
- A traced task that the watcher had stopped (SIGSTOP at the dlopen of a
  runtime) while the tracer could not answer is continued by the guard
  process (core/capture/guard.c) and runs to its end; without it the task would
  stay stopped for good.
- A new tracer starts and traces as before."""
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import cttest as t


def bpf_ids(pid):
    """{"prog": {...}, "link": {...}, "map": {...}} ids held by pid's fds."""
    ids = {"prog": set(), "link": set(), "map": set()}
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                info = f.read()
        except OSError:
            continue
        if not target.startswith("anon_inode:bpf"):
            continue
        for line in info.splitlines():
            key, _, val = line.partition(":")
            if key in ("prog_id", "link_id", "map_id"):
                ids[key[:-3]].add(int(val))
    return ids


def live_ids(kind):
    out = subprocess.run(["bpftool", "-j", kind, "list"], capture_output=True, text=True, check=True).stdout
    return {o["id"] for o in json.loads(out or "[]")}


def pinned():
    found = []
    for root, dirs, files in os.walk("/sys/fs/bpf"):
        found += [os.path.join(root, f) for f in files + dirs]
    return set(found)


def state(pid):
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


def guards(tracer_pid):
    """The ct-guard process the tracer forked."""
    found = []
    for task in os.listdir("/proc/%d/task" % tracer_pid):
        with open("/proc/%d/task/%s/children" % (tracer_pid, task)) as f:
            for kid in f.read().split():
                with open("/proc/%s/comm" % kid) as c:
                    if c.read().strip() == "ct-guard":
                        found.append(int(kid))
    return found


def gone(pid):
    try:
        return state(pid) in ("Z", "X")  # exited; reaped later by whoever adopted it
    except OSError:
        return True


def test_nothing_left():
    before_pins = pinned()
    prog = t.program("cudart_loop_shared")
    target = subprocess.Popen([prog, "1000000000"], stdout=subprocess.DEVNULL)
    tp = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-p", str(target.pid), "-o", "jsonl:/dev/null"],
                          stderr=subprocess.PIPE, text=True)
    t.wait_tracing(tp)
    time.sleep(0.3)
    held = bpf_ids(tp.pid)
    t.check(held["prog"] and held["link"] and held["map"], "tracer holds no BPF objects? %r" % held)
    for kind in ("prog", "link", "map"):
        t.check(held[kind] <= live_ids(kind), "%s ids %s not listed by bpftool" % (kind, held[kind]))
    tp.kill()
    tp.wait()
    left = held
    for _ in range(100):
        left = {k: held[k] & live_ids(k) for k in held}
        if not any(left.values()):
            break
        time.sleep(0.1)
    target.kill()
    target.wait()
    t.check(not any(left.values()), "still in the kernel 10 s after SIGKILL: %r" % left)
    t.check(pinned() == before_pins, "objects pinned in /sys/fs/bpf: %s" % (pinned() - before_pins))


def traced_target():
    """fault_dlclose with the stand-in runtime, dlopen'ed only after "go",
    and a tracer following it: (target, tracer)."""
    lib = os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98")
    target = subprocess.Popen([os.path.join(t.PROGRAMS, "fault_dlclose"), lib, "wait"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.check(target.stdout.readline().startswith("ready"), "program did not start")
    tp = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-p", str(target.pid), "-o", "jsonl:/dev/null"],
                          stderr=subprocess.PIPE, text=True)
    t.wait_tracing(tp)
    return target, tp


def hold_and_kill(target, tp, what):
    """The tracer frozen, the target told to go: the watcher stops it at
    that open and waits for the tracer, which is then killed. The target must
    be continued and finish its work."""
    os.kill(tp.pid, signal.SIGSTOP)
    target.stdin.write("go\n")
    target.stdin.flush()
    for _ in range(100):
        if state(target.pid) == "T":
            break
        time.sleep(0.05)
    t.check(state(target.pid) == "T", "the watcher did not stop the task at its dlopen (state %s)" % state(target.pid))
    guard = guards(tp.pid)
    t.check(len(guard) == 1, "no guard process: %s" % guard)
    tp.kill()
    tp.wait()
    try:
        rc = target.wait(timeout=10)
    except subprocess.TimeoutExpired:
        st = state(target.pid)
        os.kill(target.pid, signal.SIGKILL)
        raise AssertionError("the task stayed stopped (state %s) after %s" % (st, what))
    t.check(rc == 0 and target.stdout.read().split("\n")[:2] == ["unloaded 1", "unloaded 2"],
            "the continued task did not finish its work (rc %d)" % rc)
    for _ in range(50):
        if gone(guard[0]):
            break
        time.sleep(0.1)
    t.check(gone(guard[0]), "the guard process did not exit")


def test_stopped_task_continued():
    target, tp = traced_target()
    hold_and_kill(target, tp, "the tracer was killed")


def test_guard_killed():
    """The guard killed while the tracer runs: the tracer starts a new one
    and says so, and a task held when the tracer is killed next is continued
    (before: the tracer went on without a guard, and the task stayed stopped)."""
    target, tp = traced_target()
    guard = guards(tp.pid)
    t.check(len(guard) == 1, "no guard process: %s" % guard)
    lines = []
    threading.Thread(target=lambda: lines.extend(tp.stderr), daemon=True).start()
    os.kill(guard[0], signal.SIGKILL)
    for _ in range(100):
        said = "".join(lines)
        if "has died" in said:
            break
        time.sleep(0.1)
    new = [g for g in guards(tp.pid) if g != guard[0] and not gone(g)]
    t.check(len(new) == 1 and "the guard process (pid %d) has died: a new one (pid %d) continues the tasks "
            "held for probing if cudatracer is killed" % (guard[0], new[0]) in said,
            "no new guard after the first was killed (%s): %s" % (new, said))
    hold_and_kill(target, tp, "the guard and then the tracer were killed")


def test_start_again():
    tr = t.run(["--plugin", "cudart"], command=[t.program("cudart_loop_shared"), "1000"])
    t.check(tr.rc == 0 and [e["args"]["count"] for e in tr.events] == list(range(1000)),
            "a new tracer after the kill: rc %d, %d events" % (tr.rc, len(tr.events)), tr)
    t.check(tr.lost() == 0, "lost records", tr)


def main():
    t.need_root()
    if subprocess.run(["bpftool", "version"], capture_output=True).returncode:
        t.skip("bpftool is not installed")
    if not os.path.exists(os.path.join(t.PROGRAMS, "fault_dlclose")):
        t.skip("fault_dlclose was not built")
    test_nothing_left()
    test_stopped_task_continued()
    test_guard_killed()
    test_start_again()
    print("ok")


main()
