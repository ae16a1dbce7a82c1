# SPDX-License-Identifier: MIT
"""The traced program killed with SIGKILL: in the middle of a loop of calls
(run as the tracer's command, and attached with -p), and in the middle of
one call that never returns. The tracer notices, drains what the program
did, writes complete output, reports its counts and exits: with the
command's status (128+9) in command mode, 0 with -p. A call that never
returned is not invented; no record is lost."""
import os
import signal
import subprocess
import tempfile
import time
import cttest as t


def children(pid):
    kids = []
    for task in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/children" % (pid, task)) as f:
            kids += [int(k) for k in f.read().split()]
    return kids


def start(args, env=None):
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.Popen([t.TRACER, "-v", "--plugin", "cudart", "-o", "jsonl:" + out] + args,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    err = t.wait_tracing(p)
    return p, out, err


def finish(p, err, timeout=30):
    try:
        out, rest = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the tracer did not exit after its target was killed:\n" + "".join(err))
    return "".join(err) + rest


def counts_line(stderr, events):
    """The closing report must count exactly the events written."""
    line = [l for l in stderr.splitlines() if "events," in l and "records lost" in l]
    t.check(len(line) == 1, "no closing report:\n" + stderr)
    want = "cudatracer: %d events, 0 records lost" % events
    t.check(line[0].startswith(want), "report %r, want %r" % (line[0], want))


def wait_file_grows(path, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return
        time.sleep(0.05)
    raise AssertionError("no event reached %s" % path)


def test_command_loop():
    prog = t.program("cudart_loop_shared")
    p, out, err = start(["--", prog, "100000000"])
    wait_file_grows(out)  # the first 1 MiB of events, or the first second's
    kids = [k for k in children(p.pid) if os.readlink("/proc/%d/exe" % k) == os.path.realpath(prog)]
    t.check(len(kids) == 1, "traced command not found among %s" % children(p.pid))
    os.kill(kids[0], signal.SIGKILL)
    stderr = finish(p, err)
    t.check(p.returncode == 128 + 9, "tracer rc %d, want the command's 137:\n%s" % (p.returncode, stderr))
    ev = t.read_jsonl(out)
    t.check(len(ev) > 1000, "only %d events before the kill" % len(ev))
    t.check([e["args"]["count"] for e in ev] == list(range(len(ev))), "events missing or repeated")
    t.check(all(e["pid"] == kids[0] for e in ev), "events from other processes")
    counts_line(stderr, len(ev))


def test_pid_loop():
    prog = t.program("cudart_loop_shared")
    target = subprocess.Popen([prog, "100000000", "wait"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    t.check(target.stdout.readline().startswith("ready"), "program did not start")
    p, out, err = start(["-p", str(target.pid)])
    target.stdin.write("go\n")
    target.stdin.flush()
    wait_file_grows(out)
    target.kill()
    target.wait()
    stderr = finish(p, err)
    t.check(p.returncode == 0, "tracer -p rc %d:\n%s" % (p.returncode, stderr))
    ev = t.read_jsonl(out)
    t.check(len(ev) > 1000, "only %d events before the kill" % len(ev))
    t.check([e["args"]["count"] for e in ev] == list(range(len(ev))), "events missing or repeated")
    counts_line(stderr, len(ev))


def test_mid_call():
    prog = os.path.join(t.PROGRAMS, "fault", "fault_user")
    p, out, err = start(["--", prog, "block"], env={"CT_FAULT_BLOCK": "1"})
    t.check(p.stdout.readline().startswith("ready"), "program did not start")
    t.check(p.stdout.readline() == "blocking\n", "program did not reach the blocking call")
    time.sleep(0.3)  # inside cudaDeviceSynchronize, which never returns
    kids = [k for k in children(p.pid) if os.readlink("/proc/%d/exe" % k) == os.path.realpath(prog)]
    t.check(len(kids) == 1, "traced command not found")
    os.kill(kids[0], signal.SIGKILL)
    stderr = finish(p, err)
    t.check(p.returncode == 128 + 9, "tracer rc %d:\n%s" % (p.returncode, stderr))
    ev = t.read_jsonl(out)
    t.check([(e["api"], e["args"].get("count")) for e in ev] == [("cudaMemset", 1), ("cudaMemset", 2), ("cudaMemset", 3)],
            "events %s: the unfinished call must not appear" % [e["api"] for e in ev])
    counts_line(stderr, 3)
    t.check("returns without their call" not in stderr, "unpaired returns after the kill:\n" + stderr)


def main():
    t.need_root()
    if not os.path.exists(os.path.join(t.PROGRAMS, "fault", "fault_user")):
        t.skip("fault_user was not built")
    test_command_loop()
    test_pid_loop()
    test_mid_call()
    print("ok")


main()
