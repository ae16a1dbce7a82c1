#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The daemon over time: `cudatracer --daemon` system-wide with the
prometheus and jsonl sinks, while a driver starts some hundreds of processes
calling the real libcudart (cudart_loop: N calls of cudaMemset, said on its
stdout; short lives and lives held open for seconds), several at a time, for SOAK_SECONDS (600 by default).

Every 5 s the daemon's RSS, descriptors and BPF maps and links (from
/proc/PID/fd and fdinfo) are sampled; every 2 s /metrics is read. Asserted:
descriptors, maps and links flat after the warm-up; RSS growth over the
second half under RSS_BOUND_KIB; each driver process's calls in /metrics
and in the jsonl file exactly its N; its series gone from /metrics within
the grace (exited_grace = 20s here) of its exit, and none left at the end;
a clean stop at SIGTERM (STOPPING=1, exit 0, a jsonl file whose every line
parses). A progress line each minute; the figures at the end."""
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import cttest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from metrics_common import free_port  # noqa: E402

GRACE = 20
CONCURRENCY = 4
WARMUP = 60
# The daemon's state per process goes at its exit; what stays is bounded by
# the processes alive or within the grace (tens here), each some KiB of
# series and maps. A leak of the symbolizer's or procenv's per-process state
# (hundreds of KiB a process: libcudart's symbol table) would be megabytes
# over the half's hundreds of processes; allocator noise is under 2 MiB.
# Each new file probed (the suite's other tests run beside this one, with
# runtimes of their own) keeps its probes and symbols while the daemon runs:
# ~80 KiB measured, allowed 256 KiB.
RSS_BOUND_KIB = 4096
RSS_PER_FILE_KIB = 256


def files_probed(log):
    """Files the daemon has set probes on so far (it says each, with -v)."""
    with open(log) as f:
        return len(set(re.findall(r"plugin \S+: \d+ probes on (.+?) \(", f.read())))


def links_per_file(text):
    """The links a probed file keeps, from the daemon's -v lines: one uprobe
    session link (the default where the kernel has them), or an entry and a
    return link."""
    return 1 if "(uprobe session)" in text else 2


def sample(pid):
    with open("/proc/%d/status" % pid) as f:
        rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
    fds = maps = links = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        fds += 1
        maps += target == "anon_inode:bpf-map"
        links += target == "anon_inode:bpf_link"
    return rss, fds, maps, links


SERIES = re.compile(r'^cudatracer_calls_total\{([^}]*)\} (\d+)$', re.M)


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        text = r.read().decode()
    calls = {}
    for labels, v in SERIES.findall(text):
        m = re.search(r'pid="(\d+)"', labels)
        if m and 'api="cudaMemset"' in labels:
            calls[int(m.group(1))] = calls.get(int(m.group(1)), 0) + int(v)
    pids = {int(p) for p in re.findall(r'pid="(\d+)"', text)}
    return calls, pids


class Driver:
    """Processes several at a time: (pid, N, start, end) of each that ended."""

    def __init__(self, prog, until):
        self.prog, self.until = prog, until
        self.done, self.failed, self.lock = [], [], threading.Lock()
        self.threads = [threading.Thread(target=self.worker, args=(i,), daemon=True)
                        for i in range(CONCURRENCY)]

    def worker(self, i):
        rnd = random.Random(1000 + i)
        while time.time() < self.until:
            held = rnd.random() < 0.2
            n = rnd.randint(100, 1000) if held else rnd.randint(1, 50)
            args = [self.prog, str(n)] + (["wait"] if held else [])
            begin = time.time()
            p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            if held:
                p.stdout.readline()  # "ready PID"
                time.sleep(rnd.uniform(3, 15))
                p.stdin.write("go\n")
                p.stdin.flush()
            out, _ = p.communicate(timeout=120)
            end = time.time()
            with self.lock:
                if p.returncode == 0 and ("loop: %d calls" % n) in out:
                    self.done.append((p.pid, n, begin, end))
                else:
                    self.failed.append((p.pid, p.returncode, out))

    def start(self):
        for t in self.threads:
            t.start()

    def join(self):
        for t in self.threads:
            t.join()


def main():
    cttest.need_root()
    seconds = int(os.environ.get("SOAK_SECONDS", "600"))
    tmp = tempfile.mkdtemp(prefix="ctsoak.")
    # The shared build under a name whose comm (its first 15 bytes) is this
    # test's own, kept by filter.comm: the machine's other processes that
    # call a runtime (the suite's other tests, cudart_loop among them) are
    # traced too, but neither fill the jsonl file nor the metrics counted
    # here. scan_execs off: the daemon then never stops a process at its
    # exec (a static build's first process would be held until probed),
    # which would race the other tests' own tracers, run beside this one.
    comm = "ctsoak_loop_%03d" % (os.getpid() % 1000)
    prog = os.path.join(tmp, comm + "_shared")
    shutil.copy(cttest.program("cudart_loop_shared"), prog)
    port = free_port()
    url = "http://127.0.0.1:%d/metrics" % port
    jsonl = os.path.join(tmp, "calls.jsonl")
    conf = os.path.join(tmp, "cudatracer.ini")
    with open(conf, "w") as f:
        f.write("[tracer]\nscan_execs = false\n[filter]\ncomm = %s\n"
                "[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:%d\nexited_grace = %ds\n"
                "[sink.calls]\ntype = jsonl\npath = %s\n" % (comm, port, GRACE, jsonl))
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(os.path.join(tmp, "notify"))
    notify.settimeout(120)
    env = dict(os.environ, NOTIFY_SOCKET=os.path.join(tmp, "notify"))
    err = open(os.path.join(tmp, "daemon.log"), "w+")  # noqa: SIM115
    log = os.path.join(tmp, "daemon.log")
    d = subprocess.Popen([cttest.TRACER, "--daemon", "-v", "-c", conf, "--plugin", "cudart"],
                         stdout=subprocess.PIPE, stderr=err, env=env)
    try:
        msg = notify.recv(4096).decode()
        cttest.check(msg == "READY=1", "first notification %r" % msg)
        start = time.time()
        driver = Driver(prog, start + seconds)
        driver.start()
        samples, seen = [], {}  # pid -> [(time, calls or None)] of each scrape that showed it
        next_sample = next_scrape = next_progress = start
        while any(t.is_alive() for t in driver.threads):
            now = time.time()
            if now >= next_sample:
                samples.append((now - start,) + sample(d.pid) + (files_probed(log),))
                next_sample += 5
            if now >= next_scrape:
                calls, pids = scrape(url)
                for pid in pids:
                    seen.setdefault(pid, []).append((now, calls.get(pid)))
                next_scrape += 2
            if now >= next_progress:
                s = samples[-1]
                print("soak: %4.0fs: %d processes done, RSS %d KiB, %d fds, %d maps, %d links, %d files probed, "
                      "%d pids in /metrics" % (now - start, len(driver.done), s[1], s[2], s[3], s[4], s[5], len(pids)),
                      flush=True)
                next_progress += 60
            time.sleep(0.2)
            cttest.check(d.poll() is None, "the daemon ended (%s)" % d.returncode)
        # Every process has ended: after the grace, none of their series is
        # left (read on meanwhile: the last ones' calls are seen in it).
        for _ in range(int((GRACE + 6) / 2)):
            time.sleep(2)
            calls, pids = scrape(url)
            for pid in pids:
                seen.setdefault(pid, []).append((time.time(), calls.get(pid)))
        final_sample = sample(d.pid) + (files_probed(log),)
    finally:
        if d.poll() is None:
            d.send_signal(signal.SIGTERM)
        rc = d.wait(timeout=120)
    stops = []
    notify.settimeout(1)
    try:
        while True:
            stops.append(notify.recv(4096).decode())
    except OSError:
        pass
    err.seek(0)
    log = err.read()
    cttest.check(rc == 0 and "STOPPING=1" in stops, "daemon exit %d, notifications %r\n%s" % (rc, stops, log[-3000:]))
    out = d.stdout.read()
    cttest.check(out == b"", "the daemon wrote to stdout: %r" % out[:300])
    cttest.check(not driver.failed, "programs failed: %r" % driver.failed[:5])
    done = driver.done
    cttest.check(len(done) >= min(200, seconds // 3), "only %d processes ran" % len(done))

    # Calls: in the jsonl file, and as /metrics counted them, exactly each
    # program's N. A pid may be used again in ten minutes (pid_max is 32768
    # here): the file's events are told apart by their time, /metrics by
    # the scrapes within the grace after the process ended.
    events = {}
    with open(jsonl) as f:
        for line in f:
            e = json.loads(line)  # every line parses: the file is complete
            if e.get("api") == "cudaMemset":
                events.setdefault(e["pid"], []).append(e["ts_ns"] / 1e9)
    wrong = [(p, n, c) for p, n, b, e in done
             for c in [sum(b - 0.05 <= t <= e + 0.05 for t in events.get(p, []))] if c != n]
    cttest.check(not wrong, "jsonl calls differ for %d processes (pid, made, seen): %r" % (len(wrong), wrong[:10]))
    wrong = [(p, n, [v for t, v in seen.get(p, []) if e <= t <= e + GRACE]) for p, n, b, e in done
             if n not in [v for t, v in seen.get(p, []) if e <= t <= e + GRACE]]
    cttest.check(not wrong, "/metrics calls differ for %d processes (pid, made, seen): %r" % (len(wrong), wrong[:10]))
    # Series gone within the grace (+ the 1 s tick, the 2 s scrape, slack),
    # unless one of ours took the pid again.
    starts = {}
    for p, _, b, _ in done:
        starts.setdefault(p, []).append(b)
    late = [(p, round(t - e, 1)) for p, _, _, e in done for t, _ in seen.get(p, [])
            if t > e + GRACE + 5 and not any(e < b < t for b in starts[p])]
    cttest.check(not late, "series kept past the grace (pid, seconds after exit): %r" % late[:10])
    left = {p for p, _, _, _ in done} & pids
    cttest.check(not left, "series left at the end for %r" % sorted(left)[:10])

    # Resources: flat after the warm-up; RSS over the second half. Each file
    # probed keeps its links (one session link, or entry and return) and one
    # descriptor while the daemon runs (the uprobes live on the file, for its later processes):
    # the machine's other processes may bring new runtimes, so descriptors
    # and links are counted net of the files probed.
    warm = [s for s in samples if s[0] >= min(WARMUP, seconds / 4)]
    half = [s for s in samples if s[0] >= seconds / 2]
    final = (time.time() - start,) + final_sample
    k = links_per_file(log)
    nets = {"fds": lambda s: s[2] - (1 + k) * s[5], "BPF maps": lambda s: s[3], "BPF links": lambda s: s[4] - k * s[5]}
    for what, net in nets.items():
        vals = [net(s) for s in warm + [final]]
        slack = 2 if what == "fds" else 0  # a scrape's connection may be open
        cttest.check(max(vals) - min(vals) <= slack, "%s not flat after warm-up: %d..%d (net of files probed)\n%r"
                     % (what, min(vals), max(vals), warm + [final]))
    growth = half[-1][1] - half[0][1]
    bound = RSS_BOUND_KIB + RSS_PER_FILE_KIB * (half[-1][5] - half[0][5])
    cttest.check(growth < bound, "RSS grew %d KiB over the second half (bound %d: %d files probed meanwhile)"
                 % (growth, bound, half[-1][5] - half[0][5]))
    print("soak: %ds, %d processes (%d calls); RSS %d KiB at warm-up, %d at half, %d at the end "
          "(second half %+d KiB, bound %d); at warm-up and the end: fds %d and %d, maps %d and %d, links %d "
          "and %d, files probed %d and %d"
          % (seconds, len(done), sum(d[1] for d in done), warm[0][1], half[0][1], final[1],
             growth, bound, warm[0][2], final[2], warm[0][3], final[3], warm[0][4], final[4],
             warm[0][5], final[5]))
    print("ok: the daemon stayed flat, counted every call, dropped exited processes' series")


if __name__ == "__main__":
    main()
