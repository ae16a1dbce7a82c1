# SPDX-License-Identifier: MIT
"""System-wide mode (no -p, no command) and runtimes that processes load
after the tracer started. System-wide no process is stopped, so by the time
the tracer looks, ld.so has closed the descriptor the watcher saw (and its
number may name another file), or the process has ended:

 - a pip-style private copy of the real libcudart, dlopened by a process
   started after the tracer, is probed (entry and exit links) and every
   call the process makes after that is traced, with no error line (before:
   "failed to attach multi-uprobe: No such file or directory", the
   /proc/PID/fd/N path gone, and the entry link left without its exit);
 - 50 short-lived processes loading another private copy and exiting while
   the tracer runs give no error line (a process that ended first is counted
   on the closing line);
 - the system's libcudart, already probed, opened by a path that exists only
   in the process's mount namespace (a bind mount): no spurious "cannot probe
   ...: No such file or directory", and its calls are traced;
 - a private copy written while the tracer runs (pip installing a wheel),
   then loaded: the half-written file is not read (the watcher ignores
   opens for writing), and the copy is probed once it is loaded.
Each part runs under a tracer of its own; every process on the machine is
traced, so the records kept are the test program's (filter.comm), and its
calls are told apart by pid.
"""
import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import cttest as t

# The tracer on one CPU, the processes it traces on another, as on a host
# whose jobs keep their own cores: woken on the CPU of the process that
# opened the library, the tracer (at nice -10) would run before that process
# gets back to user space and closes the descriptor.
CPUS = sorted(os.sched_getaffinity(0))
TRACER_CPU, PROGRAM_CPU = ({CPUS[0]}, {CPUS[1]}) if len(CPUS) > 1 else (set(CPUS), set(CPUS))


def on_cpu(cpus):
    return lambda: os.sched_setaffinity(0, cpus)


CUDART = os.path.realpath(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so"))


class SystemTracer:
    """cudatracer -v with no target; its stderr read as it comes, so that a
    busy machine cannot fill the pipe."""

    def __init__(self, tmp):
        self.out = os.path.join(tmp, "ev.jsonl")
        # Every process on the machine that calls libcudart is traced: the
        # ring is made large, and only the test program's records are kept.
        self.p = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-o", "jsonl:" + self.out,
                                   "-C", "tracer.ringbuf_size=64M", "-C", "filter.comm=late_dlopen"],
                                  stderr=subprocess.PIPE, text=True, preexec_fn=on_cpu(TRACER_CPU))
        self.lines, self.cond = [], threading.Condition()
        t.wait_tracing(self.p, self.lines)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stderr:
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()

    def wait_line(self, text, timeout=20):
        end = time.monotonic() + timeout
        with self.cond:
            while not any(text in l for l in self.lines):
                left = end - time.monotonic()
                if left <= 0 or not self.reader.is_alive():
                    return False
                self.cond.wait(left)
        return True

    def stop(self):
        self.p.send_signal(signal.SIGINT)
        self.p.wait(timeout=60)
        self.reader.join(timeout=10)
        self.stderr = "".join(self.lines)
        return t.read_jsonl(self.out) if os.path.exists(self.out) else []

    def errors(self):
        return [l for l in self.stderr.splitlines() if l.startswith("cudatracer: error:")]


def copy_cudart(tmp, where):
    """A copy of the real libcudart in a folder of its own, as pip wheels ship it."""
    d = os.path.join(tmp, where, "site-packages", "nvidia", "cuda_runtime", "lib")
    os.makedirs(d)
    lib = os.path.join(d, "libcudart.so.13")
    shutil.copy(CUDART, lib)
    return lib


def held(cmd):
    """Start late_dlopen in "hold" mode. It opens the library and closes it
    at once; it is let go on a second later, the tracer having seen the open
    by then while nothing took the descriptor's number again. When this
    returns it has loaded the library, and waits to call it."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         preexec_fn=on_cpu(PROGRAM_CPU))
    line = p.stdout.readline()
    t.check(line.startswith("opened "), "program did not open its library: %r" % line)
    time.sleep(1)
    p.stdin.write("go\n")
    p.stdin.flush()
    line = p.stdout.readline()
    t.check(line.startswith("loaded "), "program did not load its library: %r" % line)
    return p, int(line.split()[1])


def release(p):
    p.stdin.write("go\n")
    p.stdin.flush()
    t.check(p.wait(timeout=60) == 0, "program exited %d" % p.returncode)


def calls_of(events, pid):
    return [(e["api"], e["args"].get("size")) for e in events if e["pid"] == pid]


def traced(name, prepare, part):
    """prepare(tmp) before the tracer starts (files made while it runs would
    be seen being written), then part(state, tracer) under a system-wide
    tracer of its own; part returns check(events, tracer), a list of what
    went wrong. Returns that list, with the tracer's own faults."""
    tmp = tempfile.mkdtemp(prefix="cttest.")
    atexit.register(shutil.rmtree, tmp, True)
    state = prepare(tmp)
    tr = SystemTracer(tmp)
    try:
        check = part(state, tr)
    finally:
        events = tr.stop()
    bad = []
    if tr.p.returncode != 0:
        bad.append("tracer exited %d" % tr.p.returncode)
    bad += ["error line: " + l for l in tr.errors()]
    lost = re.search(r"(\d+) records? lost", tr.stderr)
    if not lost or int(lost.group(1)):
        bad.append("records lost (other processes on this machine filled the ring?)")
    bad += check(events, tr)
    if bad:
        return ["%s: %s" % (name, b) for b in bad] + ["--- %s: tracer stderr ---\n%s" % (name, tr.stderr[-3000:])]
    print("ok: %s: %s" % (name, [l for l in tr.stderr.splitlines() if " events, " in l][-1]))
    return []


TWO_CALLS = [("cudaGetDeviceCount", None), ("cudaMalloc", 777)]


def both_calls(events, pid, what):
    got = calls_of(events, pid)
    bad = [] if got == TWO_CALLS else ["%s: calls traced %s, not %s" % (what, got, TWO_CALLS)]
    if any(e.get("entry_only") or "dur_ns" not in e for e in events if e["pid"] == pid):
        bad.append("%s: a call traced without its return" % what)
    return bad


def load_and_call(prog, lib, tr, what):
    """late_dlopen loads lib in a process started after the tracer; once the
    tracer has probed lib, it calls it. Returns the check."""
    p, pid = held([prog, lib, "hold"])
    probed = tr.wait_line("probes on " + lib)
    release(p)
    return lambda events, tr: ([] if probed else ["%s was not probed" % lib]) + both_calls(events, pid, what)


def private_copy(prog):
    """A process started after the tracer dlopens a private copy and calls it."""
    return (lambda tmp: copy_cudart(tmp, "pip"),
            lambda lib, tr: load_and_call(prog, lib, tr, "private copy"))


def short_lived(prog):
    """50 processes that load a private copy, call it and exit at once."""
    def part(lib, tr):
        for batch in range(10):
            procs = [subprocess.Popen([prog, lib], stdout=subprocess.DEVNULL, preexec_fn=on_cpu(PROGRAM_CPU))
                     for _ in range(5)]
            for q in procs:
                t.check(q.wait(timeout=60) == 0, "short-lived program exited %d" % q.returncode)
        return lambda events, tr: []
    return (lambda tmp: copy_cudart(tmp, "short"), part)


def foreign_path(prog):
    """The system's libcudart opened by a path that does not exist in the
    tracer's root: bound in a mount namespace of the process's own."""
    def prepare(tmp):
        mnt = os.path.join(tmp, "mnt")
        os.makedirs(mnt)
        return mnt

    def part(mnt, tr):
        inner = os.path.join(mnt, os.path.basename(CUDART))
        t.check(not os.path.exists(inner), "%s exists in the tracer's root" % inner)
        script = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
        p, pid = held(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                       os.path.dirname(CUDART), mnt, prog, inner, "hold"])
        time.sleep(1)  # the tracer looks at the load while the process lives
        release(p)
        return lambda events, tr: both_calls(events, pid, "system libcudart by " + inner) + \
            ["a spurious: " + l for l in tr.stderr.splitlines() if "cannot probe" in l]
    return (prepare, part)


def being_written(prog):
    """A private copy written while the tracer runs (pip installing a wheel),
    then loaded: the half-written file is not read as a runtime."""
    def part(tmp, tr):
        d = os.path.join(tmp, "wheel", "nvidia", "cuda_runtime", "lib")
        os.makedirs(d)
        lib = os.path.join(d, "libcudart.so.13")
        with open(CUDART, "rb") as f:
            data = f.read()
        with open(lib, "wb") as f:
            f.write(data[:len(data) // 2])
            f.flush()
            time.sleep(1)
            f.write(data[len(data) // 2:])
        check = load_and_call(prog, lib, tr, "copy written, then loaded")
        return lambda events, tr: check(events, tr) + \
            ["the file was read while written: " + l for l in tr.stderr.splitlines() if lib + " is not an ELF" in l]
    return (lambda tmp: tmp, part)


def two_tracers(prog):
    """A second system-wide tracer beside the first: each probes the copy
    through the process's /proc/PID/root, which the other must not take for
    a program loading a runtime (it would stop that tracer, and open the
    file again through /proc/TRACER/root/proc/PID/root/..., without end)."""
    def part(lib, tr):
        d = tempfile.mkdtemp(prefix="cttest.")
        atexit.register(shutil.rmtree, d, True)
        other = SystemTracer(d)
        try:
            check = load_and_call(prog, lib, tr, "beside another tracer")
        finally:
            theirs = other.stop()
        pid = max([e["pid"] for e in theirs if e.get("comm") == "late_dlopen"] or [0])

        def both(events, tr):
            bad = check(events, tr) + (["the other tracer exited %d" % other.p.returncode]
                                       if other.p.returncode else [])
            if pid:
                bad += both_calls(theirs, pid, "the other tracer")
            else:
                bad.append("the other tracer saw no call: %s" % other.stderr[-2000:])
            bad += ["a /proc path followed: " + l for l in (tr.stderr + other.stderr).splitlines()
                    if "/root/proc/" in l]
            return bad
        return both
    return (lambda tmp: copy_cudart(tmp, "two"), part)


PARTS = {"private copy": private_copy, "two system-wide tracers": two_tracers, "50 short-lived processes": short_lived,
         "path only in the process's mount namespace": foreign_path, "copy being written": being_written}


def main():
    t.need_root()
    prog = t.program("late_dlopen")
    if not os.path.exists(CUDART):
        t.skip("no libcudart at %s" % CUDART)
    if not shutil.which("unshare"):
        t.skip("unshare(1) is needed for a path that exists only in another mount namespace")
    bad = []
    for name, part in PARTS.items():
        if name.startswith(os.environ.get("CT_PART", "")):  # one part alone, to try it
            bad += traced(name, *part(prog))
    t.check(not bad, "\n".join(bad))
    print("ok")


main()
