# SPDX-License-Identifier: MIT
"""Shared by the metric sink tests (not a test itself): a real Prometheus
server from Debian's package on loopback (a temp config and storage, a free
port, started and stopped here), its query API, the tracer held open until a
test lets it go, and small HTTP endpoints that refuse, fail or hang."""
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import cttest

# What tests/programs/cudart_calls.cu makes with the default profile: the
# real libcudart without a GPU fails every call (error 35), and each counts.
CUDART_CALLS = {
    "cudaGetDeviceCount": 1, "cudaSetDevice": 1, "cudaMalloc": 1, "cudaMallocHost": 1,
    "cudaHostAlloc": 1, "cudaMallocManaged": 1, "cudaMallocAsync": 1, "cudaMemcpy": 1,
    "cudaMemcpyAsync": 1, "cudaMemcpy2D": 1, "cudaMemcpy2DAsync": 1, "cudaMemset": 1,
    "cudaMemsetAsync": 1, "cudaLaunchKernel": 2, "__cudaGetKernel": 1, "cudaLaunchKernelExC": 1,
    "cudaStreamCreate": 1, "cudaStreamCreateWithFlags": 1, "cudaEventCreate": 1,
    "cudaEventCreateWithFlags": 1, "cudaEventRecord": 1, "cudaStreamWaitEvent": 1,
    "cudaEventSynchronize": 1, "cudaEventElapsedTime": 1, "cudaEventDestroy": 1,
    "cudaGraphLaunch": 1, "cudaStreamSynchronize": 1, "cudaStreamDestroy": 1, "cudaMemGetInfo": 1,
    "cudaFreeAsync": 1, "cudaFreeHost": 1, "cudaFree": 1, "cudaDeviceSynchronize": 1,
}
# Of those, the calls the cudart plugin records at entry only by default: they
# count as calls, with error="false" (no result), and have no duration.
CUDART_ENTRY_ONLY = {"cudaEventRecord", "cudaStreamWaitEvent"}
CUDART_TIMED = {a: n for a, n in CUDART_CALLS.items() if a not in CUDART_ENTRY_ONLY}


def tmpdir():
    d = tempfile.mkdtemp(prefix="ctmetrics.")
    import atexit
    atexit.register(shutil.rmtree, d, True)
    return d


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def prometheus_binary():
    p = shutil.which("prometheus")
    if not p:
        cttest.skip("Debian's prometheus is not installed (scripts/install-deps.sh installs it)")
    return p


class Prometheus:
    """A real server: scrapes `targets` every second, or receives remote writes."""

    def __init__(self, tmp, targets=(), remote_write=False):
        self.port = free_port()
        conf = os.path.join(tmp, "prometheus.yml")
        with open(conf, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n")
            if targets:
                f.write("scrape_configs:\n  - job_name: cudatracer\n    scrape_interval: 1s\n"
                        "    static_configs:\n      - targets: [%s]\n" %
                        ", ".join("'%s'" % t for t in targets))
        args = [prometheus_binary(), "--config.file=" + conf,
                "--storage.tsdb.path=" + os.path.join(tmp, "tsdb"),
                "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"]
        if remote_write:
            args.append("--web.enable-remote-write-receiver")
        self.log = open(os.path.join(tmp, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % self.port, timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                raise AssertionError("prometheus did not become ready:\n" + self.output())
            time.sleep(0.2)

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-4000:]

    def query(self, expr):
        """An instant query through Prometheus's own HTTP API: [(labels, value)]."""
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.port, urllib.parse.urlencode({"query": expr}))
        with urllib.request.urlopen(url, timeout=10) as r:
            doc = json.load(r)
        assert doc["status"] == "success", doc
        return [(x["metric"], float(x["value"][1])) for x in doc["data"]["result"]]

    def by(self, expr, label):
        return {m.get(label, ""): v for m, v in self.query(expr)}

    def wait_for(self, expr, label, want, timeout=60):
        """Poll until `sum by (label) (expr)` is `want`; the last answer either way."""
        got, deadline = None, time.time() + timeout
        while time.time() < deadline:
            got = self.by("sum by (%s) (%s)" % (label, expr), label)
            if got == want:
                break
            time.sleep(0.5)
        return got

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class HeldTracer:
    """The tracer on `sh -c 'PROGRAM; read x'`: the program runs and ends,
    the tracer stays until release() closes the shell's stdin. Its stdout
    and stderr are drained by threads, so that it never blocks on a pipe."""

    def __init__(self, tmp, config, program, args=()):
        self.conf = os.path.join(tmp, "ct.ini")
        self.jsonl = os.path.join(tmp, "events.jsonl")
        with open(self.conf, "w") as f:
            f.write(config + "\n[sink.events]\ntype = jsonl\npath = %s\n" % self.jsonl)
        cmd = " ".join([program] + list(args)) + "; read x"
        self.proc = subprocess.Popen([cttest.TRACER, "-v", "-c", self.conf, "--plugin", "cudart", "--",
                                      "sh", "-c", cmd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.out, self.err = [], []
        self.threads = [threading.Thread(target=self._drain, args=(f, l), daemon=True)
                        for f, l in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self.threads:
            t.start()

    @staticmethod
    def _drain(f, lines):
        for line in f:
            lines.append(line)

    def _wait(self, lines, needle, what, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            for line in list(lines):
                if needle in line:
                    return line
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError("%s never said %r:\n%s" % (what, needle, "".join(self.err)[-4000:]))

    def read_err_until(self, needle, timeout=60):
        """The first stderr line that holds `needle`."""
        return self._wait(self.err, needle, "the tracer", timeout)

    def wait_stdout(self, needle, timeout=60):
        return self._wait(self.out, needle, "the program", timeout)

    def release(self, timeout=60):
        self.proc.stdin.write("\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=timeout)
        for t in self.threads:
            t.join(10)
        events = cttest.read_jsonl(self.jsonl) if os.path.exists(self.jsonl) else []
        return cttest.Trace(self.proc.returncode, "".join(self.out), "".join(self.err), events, None)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def count_apis(events):
    c = {}
    for e in events:
        c[e["api"]] = c.get(e["api"], 0) + 1
    return c


class Endpoint:
    """A loopback HTTP endpoint whose answers a test scripts: a list of
    status codes, one per request (the last repeats); 'hang' never answers."""

    def __init__(self, answers, body=b"bad samples"):
        self.answers, self.body, self.requests = list(answers), body, []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", 0))
                data = self.rfile.read(n)
                outer.requests.append((self.path, dict(self.headers), data))
                code = outer.answers[min(len(outer.requests), len(outer.answers)) - 1]
                self.send_response(code)
                self.send_header("Content-Length", str(len(outer.body)))
                self.end_headers()
                self.wfile.write(outer.body)

            def log_message(self, *a):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
