# SPDX-License-Identifier: MIT
"""--engine inproc against the eBPF engine, on the real libcudart (no GPU:
every call fails with error 35, but they are real calls):

- the same program under both engines gives the same calls, arguments and
  results one for one (addresses in the mmap and stack area, which move
  with the preload libraries and the environment, compared as such), the
  <<<>>> launch too: nvcc's stub calls __cudaLaunchKernel, a tail call to
  cudaLaunchKernel inside libcudart, which the eBPF engine sees as
  cudaLaunchKernel and the interposer records as it;
- the program's own output and exit status are the same traced and not;
- forked children (dlopen + dlsym) and exec'd programs are traced;
- a tracer killed with SIGKILL leaves the program running to its end;
- a runtime linked into the executable is refused, and --explain says why;
- calls are timed right by either clock (the TSC, turned into CLOCK_MONOTONIC
  by the tracer, and clock_gettime): a stand-in call that sleeps a known
  time starts and ends, as recorded, between the program's own clock reads
  around it, over a run long enough for the tracer to re-check the TSC;
- the driver's functions, found through cuGetProcAddress as libcudart
  finds them (it asks the getproc it dlsym'd for "cuGetProcAddress" itself
  and gets the rest through that), on a stand-in driver that answers as
  the real one does: the same driver calls with their cudart parents as
  the eBPF engine sees, the function each pointer really is (cuMemAlloc at
  3020 is cuMemAlloc_v2, a per-thread request cuLaunchKernel_ptsz), the
  others untouched, the program's output unchanged;
- out-parameters read at return, written by a stand-in runtime whose calls
  succeed: on the stack, in the executable's data, a pointer in the last
  word of a page, an int at the end of a page whose next page is not mapped
  (the 8-byte read fails in both engines, zeroed, the program unharmed), a
  failed call's (not written): the same values as the eBPF engine reads.
-p with --engine inproc is test_inproc_pid.py's.
"""
import os
import signal
import subprocess
import time
import cttest as t

SHARED = t.program("cudart_calls_shared")
STATIC = t.program("cudart_calls_static")
LOOP = t.program("cudart_loop_shared")
FORKS = os.path.join(t.PROGRAMS, "fault_forks")
SLEEPS = os.path.join(t.PROGRAMS, "sleep", "sleep_calls")
CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so.13")
NOASLR = ["setarch", "x86_64", "-R"]
GETPROC = os.path.join(t.PROGRAMS, "getproc")
OUTPARAMS = os.path.join(t.PROGRAMS, "outparams", "outparam_calls")


def mapped_area(v):
    """Stack, mmap'd libraries and heap chunks of mmap: where the two runs differ."""
    return isinstance(v, str) and v.startswith("0x") and int(v, 16) >= 0x7f0000000000


def comparable(ev):
    args = {k: ("<mapped>" if mapped_area(v) else v) for k, v in ev["args"].items()}
    # An entry-only call (cudaEventRecord by default) has no result: alike in both engines.
    return (ev["plugin"], ev["api"], ev["comm"], ev["depth"], ev.get("entry_only", False), ev.get("result"),
            ev.get("result_name"), ev.get("error"), ev.get("cgroup"), args)


def both(command, extra=()):
    e = t.run(["--no-config"] + list(extra), command=NOASLR + command)
    i = t.run(["--no-config", "--engine", "inproc"] + list(extra), command=NOASLR + command)
    t.check(e.rc == 0, "ebpf run failed: %d" % e.rc, e)
    t.check(i.rc == 0, "inproc run failed: %d" % i.rc, i)
    return e, i


def test_same_events():
    e, i = both([SHARED])
    ev, iv = [comparable(x) for x in e.calls()], [comparable(x) for x in i.calls()]
    # <<<>>> calls __cudaLaunchKernel, which tail-calls cudaLaunchKernel: seen once by each engine.
    for r in (e, i):
        n = [x for x in r.calls() if x["api"] == "cudaLaunchKernel" and x["args"]["grid"] == [9, 8, 1]]
        t.check(len(n) == 1 and n[0]["depth"] == 0, "%s: the <<<>>> launch not seen once: %r"
                % ("ebpf" if r is e else "inproc", r.apis()), r)
    t.check(len(iv) == len(ev), "inproc: %d calls, ebpf %d\n inproc: %s\n ebpf: %s" %
            (len(iv), len(ev), i.apis(), e.apis()), i)
    for k, (a, b) in enumerate(zip(ev, iv)):
        t.check(a == b, "call %d differs\n ebpf:   %r\n inproc: %r" % (k, a, b), i)
    # Kernel names come through the symbolizer the same way.
    launches = [x for x in i.calls() if x["api"] == "cudaLaunchKernel"]
    t.check(launches and launches[0]["args"]["func"] == "touch(int*)", "inproc: launch %r" % launches, i)
    t.check(all(x["dur_ns"] > 0 for x in i.calls() if not x.get("entry_only")), "inproc: a call without its duration", i)
    t.check(i.lost() == 0, "inproc: lost records", i)


def test_output_unchanged():
    plain = subprocess.run([LOOP, "5"], capture_output=True, text=True)
    i = t.run(["--no-config", "-q", "--engine", "inproc"], command=[LOOP, "5"])
    t.check(i.rc == plain.returncode == 0 and i.stdout == plain.stdout == "loop: 5 calls\n",
            "traced %d %r, untraced %d %r" % (i.rc, i.stdout, plain.returncode, plain.stdout), i)
    counts = [x["args"]["count"] for x in i.calls(api="cudaMemset")]
    t.check(counts == [0, 1, 2, 3, 4], "inproc: cudaMemset counts %r" % counts, i)


def test_children():
    if not os.path.exists(FORKS) or not os.path.exists(CUDART):
        t.skip("fault_forks or %s missing" % CUDART)
    i = t.run(["--no-config", "-v", "--engine", "inproc"], command=[FORKS, CUDART, "3"])
    t.check(i.rc == 0, "forked children: exit %d, %r" % (i.rc, i.stdout), i)
    got = sorted((x["args"]["count"], x["pid"]) for x in i.calls(api="cudaMemset"))
    t.check([c for c, _ in got] == [1, 2, 3] and len(set(p for _, p in got)) == 3,
            "forked children (dlopen + dlsym): %r" % got, i)
    i = t.run(["--no-config", "-v", "--engine", "inproc"], command=["sh", "-c", "%s 3; %s 2" % (LOOP, LOOP)])
    got = [(x["pid"], x["args"]["count"]) for x in i.calls(api="cudaMemset")]
    pids = sorted(set(p for p, _ in got), key=lambda p: [q for q, _ in got].index(p))
    t.check(i.rc == 0 and i.stdout == "loop: 3 calls\nloop: 2 calls\n", "exec'd programs: exit %d, %r"
            % (i.rc, i.stdout), i)
    t.check(len(pids) == 2 and [c for _, c in got] == [0, 1, 2, 0, 1], "exec'd programs: %r" % got, i)


def test_driver_getproc():
    prog, drv = os.path.join(GETPROC, "getproc_calls"), os.path.join(GETPROC, "libcuda.so.1")
    if not os.path.exists(prog) or not os.path.exists(CUDART):
        t.skip("getproc_calls or %s missing" % CUDART)
    command = [prog, drv, CUDART]
    plain = subprocess.run(command, capture_output=True, text=True)
    want_out = ("cudaGetDeviceCount: 100\ngetproc v2: 0\ngetproc v1: 0\ncuMemAlloc at 3020: 0 0x7e0000001000\n"
                "cuMemAlloc at 2000: 0 0x1400\ncuLaunchKernel per thread: 412\ncuDeviceGet: 0 42, untouched 1\n"
                "unexported: 42\nunknown: 500 status 1 null 1\nthreads: 0\n")
    t.check(plain.returncode == 0 and plain.stdout == want_out, "untraced: %d %r" % (plain.returncode, plain.stdout))
    e, i = both(command, ["--plugin", "cudart,cuda"])
    t.check(i.stdout == e.stdout == want_out, "traced output differs: inproc %r, ebpf %r" % (i.stdout, e.stdout), i)

    def driver(r):
        return sorted((x["api"], (x.get("parent") or {}).get("api"), x["result"],
                       tuple(sorted((k, str(v)) for k, v in x["args"].items() if k != "ctx")))
                      for x in r.calls() if x["plugin"] == "cuda")
    want = [("cuDriverGetVersion", "cudaGetDeviceCount", 0, (("driverVersion", "13000"),)),
            ("cuInit", "cudaGetDeviceCount", 100, (("Flags", "0x0"),)),
            ("cuMemAlloc", None, 0, (("bytesize", "1024"), ("dptr", "0x1400"))),
            ("cuMemAlloc_v2", None, 0, (("bytesize", "4096"), ("dptr", "0x7e0000001000")))]
    for r in (e, i):
        got = driver(r)
        name = "ebpf" if r is e else "inproc"
        for w in want:
            t.check(got.count(w) == 1, "%s: %r not seen once in %r" % (name, w, got), r)
        ptsz = [x for x in r.calls(api="cuLaunchKernel_ptsz")]
        t.check(len(ptsz) == 1 and ptsz[0]["result"] == 412 and ptsz[0]["args"]["blockDimZ"] == 5
                and ptsz[0]["args"]["gridDimX"] == 3, "%s: the per-thread launch: %r" % (name, ptsz), r)
        ctx = sorted(x["args"]["ctx"] for x in r.calls(api="cuCtxSetCurrent"))
        t.check(ctx == ["0xc00%d" % k for k in range(8)], "%s: the threads' calls: %r" % (name, ctx), r)
        t.check(not r.calls(api="cuDeviceGet") and not r.calls(api="cuLaunchKernel"),
                "%s: an untraced or wrong function recorded" % name, r)
    t.check(driver(i) == driver(e), "driver calls differ\n ebpf:   %r\n inproc: %r" % (driver(e), driver(i)), i)


def test_out_params():
    want_out = "outparams: 3 3 0xabc100 0xabc200 3 0x1234\n"
    plain = subprocess.run([OUTPARAMS], capture_output=True, text=True)
    t.check(plain.returncode == 0 and plain.stdout == want_out, "untraced: %d %r" % (plain.returncode, plain.stdout))
    e, i = both([OUTPARAMS])
    want = [("cudaGetDeviceCount", 0, {"count": 3}), ("cudaGetDeviceCount", 0, {"count": 3}),
            ("cudaMalloc", 0, {"devPtr": "0xabc100", "size": 256}),
            ("cudaMalloc", 0, {"devPtr": "0xabc200", "size": 512}),
            ("cudaGetDeviceCount", 0, {"count": 0}),  # the read ran into the unmapped page
            ("cudaMalloc", 2, {"devPtr": "0x1234", "size": 0})]
    for r in (e, i):
        name = "ebpf" if r is e else "inproc"
        t.check(r.stdout == want_out, "%s: the program's output %r" % (name, r.stdout), r)
        got = [(x["api"], x["result"], x["args"]) for x in r.calls()]
        t.check(got == want, "%s: out-parameters\n got:  %r\n want: %r" % (name, got, want), r)
    ev, iv = [comparable(x) for x in e.calls()], [comparable(x) for x in i.calls()]
    t.check(ev == iv, "out-parameters differ\n ebpf:   %r\n inproc: %r" % (ev, iv), i)


def test_ring_full():
    """A ring too small for the burst: the calls go on, every record that did
    not fit is counted, and the closing line names the key to raise."""
    n = 200000
    i = t.run(["--no-config", "--engine", "inproc", "-C", "tracer.inproc_ring_size=5000"], command=[LOOP, str(n)])
    t.check(i.rc == 0 and i.stdout == "loop: %d calls\n" % n, "ring full: exit %d, %r" % (i.rc, i.stdout), i)
    t.check("inproc_ring_size 5000 is not a power of two" in i.stderr and "using 8192" in i.stderr,
            "ring full: the size's rounding not said", i)
    events = len(i.calls(api="cudaMemset"))
    t.check(i.lost() > 0 and events + i.lost() == n and "raise [tracer] inproc_ring_size" in i.stderr,
            "ring full: %d events + %d lost, of %d calls" % (events, i.lost(), n), i)


def test_tracer_killed():
    n = 3000000
    tr = subprocess.Popen([t.TRACER, "--no-config", "-v", "--engine", "inproc", "-o", "summary:/dev/null",
                           "--", LOOP, str(n)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t.wait_tracing(tr)
    time.sleep(0.5)
    tr.send_signal(signal.SIGKILL)
    tr.wait()
    start = time.monotonic()
    out = tr.stdout.read()  # the command keeps the pipe until it ends
    t.check(out == "loop: %d calls\n" % n, "the command did not finish after its tracer was killed: %r" % out)
    t.check(time.monotonic() - start < 60, "the command took too long without its tracer")


def tsc_usable():
    with open("/proc/cpuinfo") as f:
        flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
        src = f.read().strip()
    return "constant_tsc" in flags and "nonstop_tsc" in flags and src == "tsc"


def check_times(clock, n, us):
    """n calls of us microseconds each, under tracer.inproc_clock = clock."""
    i = t.run(["--no-config", "-v", "--engine", "inproc", "-C", "tracer.inproc_clock=" + clock],
              command=[SLEEPS, str(n), str(us)])
    t.check(i.rc == 0, "inproc run failed: %d" % i.rc, i)
    want = "calls timed by TSC" if clock == "auto" and tsc_usable() else "calls timed by clock_gettime"
    t.check(want in i.stderr, "clock %s: -v does not say %r" % (clock, want), i)
    head, _ = t.read_jsonl(os.path.join(i.files, "events.jsonl"), meta=True)
    around = [tuple(map(int, l.split())) for l in i.stdout.splitlines()]
    calls = i.calls(api="cudaStreamSynchronize")
    t.check(len(calls) == len(around) == n, "clock %s: %d calls, %d printed" % (clock, len(calls), len(around)), i)
    for k, (ev, (before, after)) in enumerate(zip(calls, around)):
        start = ev["ts_ns"] - head["wall_offset_ns"]
        # CLOCK_MONOTONIC either way, to within the tracer's conversion (tens of ns).
        t.check(before - 1000 <= start and start + ev["dur_ns"] <= after + 1000 and ev["dur_ns"] >= us * 1000,
                "clock %s, call %d: recorded [%d, +%d] not within the program's [%d, %d], or shorter than %d us"
                % (clock, k, start, ev["dur_ns"], before, after, us), i)


def test_clock():
    if not os.path.exists(SLEEPS):
        t.skip("sleep_calls missing")
    check_times("auto", 14, 100000)  # 1.4 s: the TSC re-checked at 20, 40, ..., 640 ms
    check_times("monotonic", 3, 20000)
    r = t.run(["--no-config", "--engine", "inproc", "--explain"], command=[SLEEPS])
    want = "clock: the TSC" if tsc_usable() else "clock: clock_gettime"
    t.check(r.rc == 0 and want in r.stdout, "--explain does not say %r:\n%s" % (want, r.stdout), r)


def test_refusals():
    r = t.run(["--no-config", "--engine", "inproc"], command=[STATIC])
    t.check(r.rc != 0 and "links the cudart runtime in statically" in r.stderr and "--engine ebpf" in r.stderr,
            "static cudart: %d" % r.rc, r)
    t.check(not r.calls() and "cudart_calls: done" not in r.stdout, "static cudart: the command ran", r)
    r = t.run(["--no-config", "--engine", "inproc", "--explain"], command=[STATIC])
    t.check(r.rc == 0 and "NOT interposable in-process" in r.stdout and "cannot see" in r.stdout,
            "--explain of a static cudart", r)
    r = t.run(["--no-config", "--engine", "inproc", "--explain"], command=[SHARED])
    t.check(r.rc == 0 and "engine inproc" in r.stdout and "NOT interposable" not in r.stdout,
            "--explain of a shared cudart:\n" + r.stdout, r)


if __name__ == "__main__":
    t.need_root()  # the eBPF engine, for the comparison
    test_same_events()
    test_output_unchanged()
    test_children()
    test_driver_getproc()
    test_ring_full()
    test_out_params()
    test_tracer_killed()
    test_clock()
    test_refusals()
    print("ok")
