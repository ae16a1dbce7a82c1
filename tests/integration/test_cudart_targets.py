# SPDX-License-Identifier: MIT
"""Targets: a running process (-p), a runtime loaded with dlopen after
tracing began (command mode and -p, from a pip-style private copy), --lib,
a stand-in runtime that lacks most symbols (warned once, the rest traced),
success codes and out-parameters, and the command's exit status."""
import os
import shutil
import subprocess
import tempfile
import time
import cttest as t

CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so")


def start_waiting(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    t.check(line.startswith("ready"), "program did not start: %r" % line)
    return p


def trace_pid(pid, args=()):
    """Start the tracer on pid; return (process, jsonl path) once it is attached."""
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    tr = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-p", str(pid), "-o", "jsonl:" + out] + list(args),
                          stderr=subprocess.PIPE, text=True)
    return tr, out, t.wait_tracing(tr)


def finish(tr, err):
    rest = tr.communicate(timeout=60)[1]
    return "".join(err) + rest


def test_pid():
    """-p traces that process alone, while another one calls the same probed
    library at the same time (entry and exit, and entry-only)."""
    for extra in ([], ["-C", "tracer.entry_only=cudaMemset"]):
        p = start_waiting([t.program("cudart_loop_shared"), "50", "wait"])
        bystander = start_waiting([t.program("cudart_loop_shared"), "20000", "wait"])
        tr, out, err = trace_pid(p.pid, extra)
        for q in (bystander, p):
            q.stdin.write("go\n")
            q.stdin.flush()
        p.wait(timeout=60)
        bystander.wait(timeout=60)
        stderr = finish(tr, err)
        t.check(tr.returncode == 0 and bystander.returncode == 0,
                "tracer -p exited %d, bystander %d:\n%s" % (tr.returncode, bystander.returncode, stderr))
        ev = t.read_jsonl(out)
        t.check([e["args"]["count"] for e in ev] == list(range(50)), "-p %s: saw %d calls" % (extra, len(ev)))
        t.check(all(e["pid"] == p.pid for e in ev), "-p %s: the bystander's calls were traced" % extra)
        t.check(all(e.get("entry_only", False) == bool(extra) for e in ev), "-p %s: entry_only" % extra)


def test_late_dlopen():
    # A private copy, as pip wheels and conda ship: not the system's file.
    tmp = tempfile.mkdtemp(prefix="cttest.")
    os.makedirs(os.path.join(tmp, "site-packages/nvidia/cuda_runtime/lib"))
    lib = os.path.join(tmp, "site-packages/nvidia/cuda_runtime/lib/libcudart.so.13")
    shutil.copy(os.path.realpath(CUDART), lib)
    prog = t.program("late_dlopen")

    tr = t.run(["--plugin", "cudart"], command=[prog, lib])
    t.check(tr.rc == 0, "late dlopen: rc %d" % tr.rc, tr)
    t.check(tr.apis() == ["cudaGetDeviceCount", "cudaMalloc"], "late dlopen (command): %s" % tr.apis(), tr)
    t.check(tr.events[1]["args"]["size"] == 777, "late dlopen: size", tr)
    # The same with the watcher on every syscall, as on kernels built without
    # syscall tracepoints.
    tr = t.run(["-v", "--plugin", "cudart"], command=[prog, lib], env={"CUDATRACER_SYSCALL_HOOKS": "all"})
    t.check(tr.rc == 0 and tr.apis() == ["cudaGetDeviceCount", "cudaMalloc"] and "every syscall" in tr.stderr,
            "late dlopen (all-syscalls watcher): %s" % tr.apis(), tr)

    # Where tracefs is not mounted (minimal VM images), the tracer mounts it
    # for the syscall tracepoints; here in a mount namespace of its own, with
    # debugfs (which carries a tracefs of its own) unmounted too.
    if shutil.which("unshare"):
        out = os.path.join(tmp, "nofs.jsonl")
        unmount = ("umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null; "
                   "umount /sys/kernel/debug 2>/dev/null; exec \"$@\"")
        p = subprocess.run(["unshare", "-m", "sh", "-c", unmount, "sh",
                            t.TRACER, "-v", "--plugin", "cudart", "-o", "jsonl:" + out, "--", prog, lib],
                           capture_output=True, text=True, timeout=120)
        apis = [e["api"] for e in t.read_jsonl(out)] if os.path.exists(out) else []
        t.check(p.returncode == 0 and "mounted tracefs" in p.stderr and "on their syscall tracepoints" in p.stderr
                and apis == ["cudaGetDeviceCount", "cudaMalloc"],
                "late dlopen without tracefs mounted: rc %d, %s\n%s" % (p.returncode, apis, p.stderr))
    else:
        print("skipped: late dlopen without tracefs mounted (no unshare(1))")

    p = start_waiting([prog, lib, "wait"])
    trp, out, err = trace_pid(p.pid)
    p.stdin.write("go\n")
    p.stdin.flush()
    p.wait(timeout=60)
    stderr = finish(trp, err)
    ev = t.read_jsonl(out)
    t.check([e["api"] for e in ev] == ["cudaGetDeviceCount", "cudaMalloc"],
            "late dlopen (-p): %s\n%s" % ([e["api"] for e in ev], stderr))


def test_fake_runtime():
    prog = os.path.join(t.PROGRAMS, "fake", "fake_user")
    tr = t.run(["--plugin", "cudart", "-v"], command=[prog])
    t.check(tr.rc == 0, "fake: rc %d" % tr.rc, tr)
    t.check(tr.apis() == ["cudaGetDeviceCount", "cudaMalloc", "cudaFree", "cudaFree"], "fake: %s" % tr.apis(), tr)
    count, malloc, free_ok, free_bad = tr.events
    t.check(count["args"]["count"] == 4 and count["result_name"] == "cudaSuccess" and not count["error"],
            "fake: out-param count", tr)
    t.check(malloc["args"]["devPtr"] == hex(0xdead0000 + 256) and malloc["args"]["size"] == 256,
            "fake: cudaMalloc out-param %r" % malloc["args"], tr)
    t.check(free_ok["args"]["devPtr"] == hex(0xdead0000 + 256) and free_ok["result"] == 0, "fake: free", tr)
    t.check(free_bad["result_name"] == "cudaErrorInvalidValue" and free_bad["error"], "fake: free(NULL)", tr)
    # The stand-in lacks cudaMemcpy: said once, the rest traced.
    missing = [l for l in tr.stderr.splitlines() if "not in " + os.path.realpath(os.path.join(t.PROGRAMS, "fake", "lib")) in l
               or "not in " in l and "libcudart.so.99" in l]
    t.check(len(missing) == 1 and "cudaMemcpy," in missing[0] and "cudaMalloc," not in missing[0],
            "fake: missing symbols said once, in one line: %s" % missing, tr)

    # --lib names the file directly; every process that maps it is traced. A
    # private copy, so that other tests running at the same time are not.
    tmp = tempfile.mkdtemp(prefix="cttest.")
    shutil.copytree(os.path.join(t.PROGRAMS, "fake"), os.path.join(tmp, "fake"))
    lib = os.path.join(tmp, "fake", "lib", "libcudart.so.99")
    prog = os.path.join(tmp, "fake", "fake_user")
    out = os.path.join(tmp, "ev.jsonl")
    tr = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "--lib", lib, "-o", "jsonl:" + out],
                          stderr=subprocess.PIPE, text=True)
    t.wait_tracing(tr)
    subprocess.run([prog], check=True, capture_output=True)
    time.sleep(0.5)
    tr.send_signal(2)
    stderr = tr.communicate(timeout=30)[1]
    t.check(tr.returncode == 0, "--lib: rc %d %s" % (tr.returncode, stderr))
    apis = [e["api"] for e in t.read_jsonl(out)]
    t.check(apis == ["cudaGetDeviceCount", "cudaMalloc", "cudaFree", "cudaFree"], "--lib: %s" % apis)


def test_exit_status():
    tr = t.run(["--plugin", "cudart"], command=["sh", "-c", "exit 7"])
    t.check(tr.rc == 7, "exit status: %d" % tr.rc, tr)
    tr = t.run(["--plugin", "cudart"], command=["sh", "-c", "kill -TERM $$"])
    t.check(tr.rc == 128 + 15, "killed command: %d" % tr.rc, tr)
    tr = t.run(["--plugin", "cudart"], command=["/nonexistent/program"])
    t.check(tr.rc == 127 and "cannot run /nonexistent/program" in tr.stderr, "missing command: %d" % tr.rc, tr)


def main():
    t.need_root()
    test_pid()
    test_late_dlopen()
    test_fake_runtime()
    test_exit_status()
    print("ok")


main()
