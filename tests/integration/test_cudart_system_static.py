# SPDX-License-Identifier: MIT
"""System-wide mode sees a program built with nvcc's default static runtime
from its first call: the watcher stops the first process of each new
executable at exec, the tracer probes it, then lets it run; a second
process of the file runs on at once. tracer.scan_execs = false turns it
off. A job of an interactive shell is not stopped (the shell would say
"Stopped" and take the terminal back)."""
import os
import pty
import select
import shutil
import signal
import subprocess
import tempfile
import time
import cttest as t


def system_wide(extra, runs):
    """Trace every process while `runs` (a function) runs; the events by pid."""
    d = tempfile.mkdtemp(prefix="ctsys.")
    out = os.path.join(d, "all.jsonl")
    p = subprocess.Popen([t.TRACER, "--plugin", "cudart", "-o", "jsonl:" + out] + extra,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t.wait_tracing(p)
    pids = runs(d)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    t.check(p.returncode in (0, 130), "tracer rc %d:\n%s" % (p.returncode, err))
    ev = t.read_jsonl(out)
    return {pid: [e["api"] for e in ev if e["pid"] == pid] for pid in pids}


def fresh_copy(prog, d, name):
    """A new file (a new inode): never checked before."""
    path = os.path.join(d, name)
    shutil.copy(prog, path)
    return path


def interactive(cmd):
    """cmd in an interactive bash on a terminal; what the terminal showed."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
    out = b""

    def read(secs):
        nonlocal out
        end = time.time() + secs
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    return
    read(0.5)
    os.write(fd, (cmd + "; echo rc=$?; exit\n").encode())
    read(5)
    os.waitpid(pid, 0)
    return out.decode(errors="replace")


def main():
    t.need_root()
    prog = t.program("cudart_calls_static")
    want = [e["api"] for e in t.run(["--plugin", "cudart"], command=[prog]).events]
    t.check(len(want) == 34 and want[0] == "cudaGetDeviceCount", "command mode: %s" % want)

    def two_runs(d):
        """The first process of the file waits for the check, the second runs on."""
        path = fresh_copy(prog, d, "static_app")
        pids = []
        for _ in range(2):
            p = subprocess.Popen([path], stdout=subprocess.DEVNULL)
            t.check(p.wait(timeout=60) == 0, "the program failed")
            pids.append(p.pid)
        return pids
    got = system_wide([], two_runs)
    for pid, apis in got.items():
        t.check(apis == want, "pid %d, system-wide: %d calls, want the %d of command mode: %s"
                % (pid, len(apis), len(want), apis[:5]))

    def one_run(d):
        p = subprocess.Popen([fresh_copy(prog, d, "static_app")], stdout=subprocess.DEVNULL)
        p.wait()
        return [p.pid]
    got = system_wide(["-C", "tracer.scan_execs=false"], one_run)
    t.check(list(got.values()) == [[]], "scan_execs=false still traced it: %s" % got)

    # A job of an interactive shell runs as it would untraced: no "Stopped", status 0.
    def job(d):
        shown = interactive(fresh_copy(prog, d, "static_job"))
        t.check("Stopped" not in shown and "rc=0" in shown, "the shell saw:\n" + shown)
        return []
    system_wide([], job)
    print("ok")


main()
