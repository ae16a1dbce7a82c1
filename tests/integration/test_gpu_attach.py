#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--gpu-activity -p: GPU activity from a process that is already running.

tests/programs/gpu_activity (phase attach) loads a stand-in runtime and
waits in poll() for a line. The tracer brings the injection library into it
through one of its threads (core/capture/remote.c); the library opens the
stand-in libcupti the program's own CUDATRACER_CUPTI names and starts
there; the program then hands over one launch's activity records, which
must reach the trace, tied to the launch the probes saw. When the tracer
stops, the library turns the records off and flushes: a second set the
program hands over after that reaches nobody, and the program ends its work
untouched (its poll() went on waiting through each call made in it).

Then every guarantee: each refusal (a debugger attached, a seccomp filter,
no CUDA in the process, the library not visible in its mount namespace),
CUPTI already claimed in the process, and the tracer killed at each step of
a call (the thread stopped, the caves written, the thread pointed at the
trampoline): the process goes on and finishes as if never entered.
"""
import ctypes
import json
import os
import signal
import subprocess
import tempfile
import time

import cttest as t

FAKE_CUPTI = os.path.join(t.PROGRAMS, "libfake_cupti.so")
FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")
TRACER_ARGS = ["--plugin", "cudart,cuda", "--gpu-activity"]


def start(phases=("attach",), env=None, wrap=()):
    e = dict(os.environ, CUDATRACER_CUPTI=FAKE_CUPTI)
    e.update(env or {})
    p = subprocess.Popen(list(wrap) + [t.program("gpu_activity"), FAKE_DIR] + list(phases),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    line = p.stderr.readline()
    t.check(line == "gpu_activity: waiting for go\n", "gpu_activity did not start: %r" % line)
    # In poll() before any tracer comes (the line is written just before it).
    for _ in range(200):
        with open("/proc/%d/syscall" % p.pid) as f:
            if f.read().split()[0] == "7":
                break
        time.sleep(0.01)
    return p


def say(p, line, want=None):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    if want:
        got = p.stderr.readline()
        t.check(got == "gpu_activity: waiting for %s\n" % want, "gpu_activity: %r" % got)


def finish(p):
    """The program's own account, once it has done all its work."""
    out, err = p.communicate(timeout=60)
    t.check(p.returncode == 0, "gpu_activity exited %d: %s" % (p.returncode, err))
    return json.loads(out)


def refused(args, pid, want, rc=1):
    r = subprocess.run([t.TRACER, "-p", str(pid), "-o", "jsonl:/dev/null"] + args, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    t.check(r.returncode == rc and want in r.stderr, "wanted exit %d and %r:\n%s" % (rc, want, r.stderr))
    return r.stderr


def check_attached():
    p = start()
    tr, out, err = t.trace_pid(p.pid, TRACER_ARGS)
    said = "".join(err)
    t.check("CUPTI started there" in said and "libfake_cupti.so" in said, "not started:\n" + said)
    say(p, "go", "again")
    time.sleep(0.3)
    tr.send_signal(signal.SIGINT)
    stderr = said + tr.communicate(timeout=60)[1]
    t.check(tr.returncode == 0, "tracer exited %d:\n%s" % (tr.returncode, stderr))
    say(p, "again")
    got = finish(p)
    ev = t.read_jsonl(out)
    gpu = [e for e in ev if e.get("kind") == "gpu"]
    launch = [e for e in ev if e.get("api") == "cudaLaunchKernel"]
    t.check(got["attached"]["kinds"] == (1 << 10 | 1 << 1 | 1 << 2),
            "kernels, copies and sets enabled in the process: %r" % got["attached"])
    t.check(got["after"]["kinds"] == 0, "records still enabled after the tracer stopped: %r" % got["after"])
    t.check(got["library_loaded"], "the library is not in the process: %r" % got)
    t.check(len(launch) == 1 and launch[0]["tid"] == got["attached"]["tid"], "the launch: %r" % launch)
    ops = sorted(e["op"] for e in gpu)
    t.check(ops == ["kernel", "kernel", "kernel", "memcpy", "memset"],
            "the first set's records, none of the second's: %r\n%s" % (ops, stderr))
    k = [e for e in gpu if e["op"] == "kernel" and e.get("name") == "vecAdd(float*, float const*, int)"]
    t.check(len(k) == 1 and k[0]["correlation"]["api"] == "cudaLaunchKernel" and
            k[0]["correlation"]["tid"] == got["attached"]["tid"] and k[0]["pid"] == p.pid,
            "the kernel tied to its launch: %r" % k)
    t.check("GPU activity: 3 kernels" in stderr, "closing line:\n" + stderr)
    print("ok: attached, %d records, off after detach, program finished" % len(gpu))


def check_claimed():
    p = start(env={"FAKE_CUPTI_CLAIMED": "1"})
    tr, out, err = t.trace_pid(p.pid, TRACER_ARGS)
    said = "".join(err)
    t.check("CUPTI is already in use by another profiler" in said and "GPU activity is off" in said,
            "claimed CUPTI not said:\n" + said)
    say(p, "go", "again")
    tr.send_signal(signal.SIGINT)
    tr.communicate(timeout=60)
    say(p, "again")
    got = finish(p)
    t.check(got["attached"]["kinds"] == 0, "records enabled beside another subscriber: %r" % got)
    print("ok: CUPTI held by another tool: said, left alone")


def check_refusals():
    # A debugger: this test seizes the program itself.
    p = start()
    libc = ctypes.CDLL(None, use_errno=True)
    PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17
    t.check(libc.ptrace(PTRACE_SEIZE, p.pid, None, None) == 0, "seize: %d" % ctypes.get_errno())
    refused(TRACER_ARGS, p.pid, "process %d (a debugger or another tracer) is attached to it" % os.getpid())
    libc.ptrace(PTRACE_DETACH, p.pid, None, None)  # needs a stop: ending this test detaches it anyway
    p.kill()
    p.wait()
    # A seccomp filter.
    p = start(("seccomp", "attach"))
    refused(TRACER_ARGS, p.pid, "it runs under a seccomp filter")
    p.kill()
    p.wait()
    # No CUDA at all.
    s = subprocess.Popen(["sleep", "60"])
    refused(TRACER_ARGS, s.pid, "the process has not loaded CUDA")
    s.kill()
    s.wait()
    # The library is another file in the process's mount namespace.
    empty = tempfile.NamedTemporaryFile()
    lib = os.path.join(os.path.dirname(t.TRACER), "libcudatracer-inject.so")
    p = start(wrap=("unshare", "-m", "--propagation", "private", "sh", "-c",
                    'mount --bind "$0" "$1" && shift && exec "$@"', empty.name, lib))
    refused(TRACER_ARGS, p.pid, "does not see %s as the tracer does" % lib)
    p.kill()
    p.wait()
    print("ok: debugger, seccomp, no CUDA, another mount namespace: refused, said why")


def check_killed(stage):
    """The tracer SIGKILLed at one step of its first call: the program must finish its work."""
    p = start()
    env = dict(os.environ, CUDATRACER_TEST_REMOTE_PAUSE=stage)
    tr = subprocess.Popen([t.TRACER, "-v", "-p", str(p.pid), "-o", "jsonl:/dev/null"] + TRACER_ARGS,
                          stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    while True:
        line = tr.stderr.readline()
        t.check(line != "", "tracer ended before pausing at %s:\n%s" % (stage, "".join(lines)))
        lines.append(line)
        if "test: paused at " + stage in line:
            break
    tr.kill()
    tr.wait()
    with open("/proc/%d/status" % p.pid) as f:
        t.check("TracerPid:\t0\n" in f.read(), "%s: the program is still traced" % stage)
    say(p, "go", "again")
    say(p, "again")
    got = finish(p)
    # Killed before the thread was pointed at the call, the library never came in.
    t.check(got["library_loaded"] == (stage == "pointed"), "%s: library loaded %r" % (stage, got))
    print("ok: tracer killed at %s: the program finished its work" % stage)


def main():
    t.need_root()
    check_attached()
    check_claimed()
    check_refusals()
    for stage in ("stopped", "written", "pointed"):
        check_killed(stage)


if __name__ == "__main__":
    main()
