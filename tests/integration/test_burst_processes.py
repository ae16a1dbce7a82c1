# SPDX-License-Identifier: MIT
"""A burst of processes: 400 start at once, each loading a runtime and
making one call, more than aggregate mode's process slots (128) and more
than the watcher's old ring had room for (about 200 events). Every call is
counted, bytes and all, in aggregate mode on both of its program kinds, the
same as events mode gives; nothing is left uncounted, and no watcher event
is lost (each process is held until its probes are in place). System-wide,
every one of them is forgotten when it has ended, its series gone from
/metrics within the grace. The test
locks the machine against the soak test (ctest RESOURCE_LOCK): 1,600
processes in seconds, each seen by the soak's system-wide daemon, would
move that test's RSS and take the pids it checks."""
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import urllib.request
import cttest as t

N_PROCS = 400
AGG = ["--plugin", "cudart", "-C", "tracer.mode=aggregate"]
LINKS = ("auto", "multi")


def main():
    t.need_root()
    for attach in LINKS:
        many_processes(attach)
    ended_unknown()
    print("ok")


def ended_unknown():
    """System-wide, a process is known to the watcher (its exit heard) once
    one of its calls is read; one that ended before that is taken as ended
    then, at the end of the ring's batch. A burst ends hundreds so in one
    batch: every one of them must go (before, 64 a batch did, and the rest
    kept their state and their series in /metrics for good)."""
    lib = os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98")
    tmp = tempfile.mkdtemp(prefix="cttest.")
    conf = os.path.join(tmp, "burst.ini")
    with open(conf, "w") as f:
        f.write("[tracer]\nscan_execs = false\n[filter]\ncomm = fault_forks\n"
                "[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:0\nexited_grace = 1s\n")
    tr = subprocess.Popen([t.TRACER, "-v", "-c", conf, "--plugin", "cudart"], stderr=subprocess.PIPE, text=True)
    lines = []
    threading.Thread(target=lambda: lines.extend(tr.stderr), daemon=True).start()
    try:
        url = None
        for _ in range(300):
            m = [re.search(r"serving at (\S+)", l) for l in lines]
            m = [x for x in m if x]
            if m and any("Ctrl-C" in l for l in lines):
                url = m[0].group(1)
                break
            if tr.poll() is not None:
                break
            time.sleep(0.1)
        t.check(url, "the tracer did not start:\n" + "".join(lines[-20:]))
        out = subprocess.run([os.path.join(t.PROGRAMS, "fault_forks"), lib, str(N_PROCS)],
                             capture_output=True, text=True, timeout=120).stdout
        kids = {int(m.group(1)) for m in re.finditer(r"^child \d+ (\d+)$", out, re.M)}
        t.check(len(kids) == N_PROCS, "fault_forks started %d children" % len(kids))
        # The grace (1 s), the sink's tick, and slack for a loaded machine.
        deadline, left = time.time() + 30, kids
        while time.time() < deadline:
            time.sleep(1)
            text = urllib.request.urlopen(url, timeout=10).read().decode()
            seen = {int(p) for p in re.findall(r'pid="(\d+)"', text)}
            left = kids & seen
            if not left:
                break
        t.check(not left, "%d of %d ended processes still have series in /metrics %s s after their exit: %r"
                % (len(left), N_PROCS, 30, sorted(left)[:10]))
    finally:
        tr.send_signal(signal.SIGINT)
        tr.wait(timeout=60)
    t.check(tr.returncode == 0, "the system-wide tracer exited %d:\n%s" % (tr.returncode, "".join(lines[-20:])))


def many_processes(attach):
    """More processes than have a slot (128): the first ones'
    pairs find their totals by index, the rest by a hash; each is counted,
    bytes and all, whichever its place, though all start at once (a burst
    of first calls: the totals are preallocated; and the watcher's events of
    400 processes fit its ring, so each is held until its probes are in
    place). Child i's one cudaMemset
    (it succeeds in the stand-in runtime) sets i bytes."""
    lib = os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98")
    cmd = [os.path.join(t.PROGRAMS, "fault_forks"), lib, str(N_PROCS)]
    agg = t.run(AGG + ["-v", "-C", "tracer.attach=" + attach, "-C", "tracer.aggregate_path=@TMP@/summary.txt"],
                command=cmd, jsonl_sink=False)
    # Neither a count the pool had no room for, nor a watcher event its ring had none for.
    t.check(agg.rc == 0 and "not counted" not in agg.stderr and "events lost" not in agg.stderr,
            "%d processes: rc %d" % (N_PROCS, agg.rc), agg)
    ev = t.run(["--plugin", "cudart"], command=cmd, extra_sinks=t.SUMMARY_AND_MEMORY_SINKS)
    t.check(ev.rc == 0, "events: rc %d" % ev.rc, ev)
    a, e = by_process(os.path.join(agg.files, "summary.txt")), by_process(os.path.join(ev.files, "summary.txt"))
    rows = lambda procs: sorted(sorted(r.items()) for r in procs.values())  # the runs' pids differ
    t.check(len(a) == N_PROCS and rows(a) == rows(e),
            "%d processes (attach %s): aggregate %s, events %s" % (N_PROCS, attach, rows(a), rows(e)), agg)
    t.check(sorted(int(r["cudaMemset"][2]) for r in a.values()) == list(range(1, N_PROCS + 1)) and
            all(r["cudaMemset"][:2] == (1, 0) for r in a.values()),
            "each child's call and bytes: %s" % a, agg)
    t.check("%d events, 0 records lost" % N_PROCS in agg.stderr, "aggregate: %d calls counted" % N_PROCS, agg)


def by_process(path):
    """{pid: {api: (calls, errors, bytes)}} from every process's table of the summary."""
    procs, pid, table = {}, None, False
    with open(path) as f:
        for line in f:
            if line.startswith("pid "):
                pid, table = int(line.split()[1]), False
            elif line.startswith("Time(%)"):
                table = True
            elif not line.strip():
                table = False
            elif table and pid is not None:
                col = line.split()
                procs.setdefault(pid, {})[col[-1]] = (int(col[2]), int(col[3]), col[-3])
    return procs


if __name__ == "__main__":
    main()
