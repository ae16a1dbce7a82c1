#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The device of calls whose thread never said, from what the process holds
open (docs/events.md, device_from and gpu_uuid).

The tracer runs in a mount namespace of its own with a stand-in
/proc/driver/nvidia (two GPUs, and information files that are hostile: one
with no UUID after a long line, one whose keys lie past what is read); the
traced program, in a namespace of its own with a tmpfs /dev, holds stand-in
/dev/nvidiaN nodes (char 195:N) open and calls the real libcudart (its
calls fail, the probes fire) or the stand-in one (cudaSetDevice succeeds).
No production path is changed: the tracer reads /proc/driver/nvidia and
/proc/PID/fd as it always does.
"""
import os
import shutil
import subprocess

import cttest as t

UUID0 = "GPU-0a1b2c3d-0000-1111-2222-333344445555"
UUID1 = "GPU-ffffeeee-dddd-cccc-bbbb-aaaa99998888"
CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so")
FAKE = os.path.join(t.PROGRAMS, "fakegpu", "libcudart.so.98")


def info(minor, uuid, bus):
    return ("Model: \\t\\t NVIDIA H100 80GB HBM3\\nIRQ:   \\t\\t 42\\nGPU UUID: \\t %s\\n"
            "Video BIOS: \\t 96.00.74.00.01\\nBus Type: \\t PCIe\\nBus Location: \\t %s\\n"
            "Device Minor: \\t %d\\nGPU Excluded:\\t No\\n" % (uuid, bus, minor))


# The driver's folder as the tracer's namespace sees it: minors 0 and 1 are
# GPUs; minor 2's file has a 64 KiB line and no UUID; minor 3's keys begin
# past the 4 KiB read; minor 4's is a FIFO no one writes (a blocking open
# would hang the tracer); minor 5's is a symbolic link to a file elsewhere
# that says minor 5 (a link is not followed).
DRIVER = " && ".join([
    "mount -t tmpfs ct /proc/driver",
    "G=/proc/driver/nvidia/gpus",
    "mkdir -p $G/0000:3b:00.0 $G/0000:86:00.0 $G/0000:af:00.0 $G/0000:d8:00.0",
    "printf '%s' > $G/0000:3b:00.0/information" % info(0, UUID0, "0000:3b:00.0"),
    "printf '%s' > $G/0000:86:00.0/information" % info(1, UUID1, "0000:86:00.0"),
    "{ head -c 65536 /dev/zero | tr '\\\\0' A; printf '\\\\nDevice Minor: 2\\\\nGPU UUID: GPU-nope\\\\n'; }"
    " > $G/0000:af:00.0/information",
    "{ head -c 8192 /dev/zero | tr '\\\\0' '\\\\n'; printf '%s'; } > $G/0000:d8:00.0/information"
    % info(3, "GPU-33333333-3333-3333-3333-333333333333", "0000:d8:00.0"),
    "mkdir -p $G/0000:e1:00.0 $G/0000:e2:00.0 && mkfifo $G/0000:e1:00.0/information",
    "printf '%s' > /proc/driver/elsewhere" % info(5, "GPU-55555555-5555-5555-5555-555555555555", "0000:e2:00.0"),
    "ln -s /proc/driver/elsewhere $G/0000:e2:00.0/information",
    'exec "$@"',
])
WRAP = ["unshare", "-m", "--propagation", "private", "sh", "-c", DRIVER, "sh"]
# A node with one GPU, minor 0.
ONE = " && ".join([
    "mount -t tmpfs ct /proc/driver",
    "mkdir -p /proc/driver/nvidia/gpus/0000:3b:00.0",
    "printf '%s' > /proc/driver/nvidia/gpus/0000:3b:00.0/information" % info(0, UUID0, "0000:3b:00.0"),
    'exec "$@"',
])
WRAP_ONE = ["unshare", "-m", "--propagation", "private", "sh", "-c", ONE, "sh"]
# The program's /dev: the GPUs' nodes and nvidiactl (195:255, not a GPU).
DEV = ('mount -t tmpfs -o mode=755 ct /dev && for m in 0 1 2 3 4 5; do mknod /dev/nvidia$m c 195 $m; done && '
       'mknod /dev/nvidiactl c 195 255 && exec "$0" "$@"')


def trace(lib, ops, env=None, wrap=WRAP):
    # It lives on a while after its calls: their records are decoded while it
    # does (a process gone before has no descriptors left to read).
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", DEV, t.program("open_gpus"), lib] + ops + \
        ["sleep:700"]
    tr = t.run(["--plugin", "cudart"], command=cmd, wrap=wrap, env=env,
               extra_sinks="[sink.summary]\ntype = summary\npath = @TMP@/summary.txt\n")
    t.check(tr.rc == 0, "exit %d" % tr.rc, tr)
    with open(os.path.join(tr.files, "summary.txt")) as f:
        tr.summary = f.read()
    return tr


def devices(tr):
    return [(e["api"], e["device"], e.get("device_from"), e.get("gpu_uuid"))
            for e in tr.calls(plugin="cudart") if e["api"] in ("cudaSetDevice", "cudaMemsetAsync")]


def aggregate(ops, wrap):
    """A run in aggregate mode: (the summary's "By device" table, the metrics' final text)."""
    cmd = ["unshare", "-m", "--propagation", "private", "sh", "-c", DEV, t.program("open_gpus"), CUDART] + ops
    tr = t.run(["--plugin", "cudart"], command=cmd, wrap=wrap, jsonl_sink=False,
               config="[tracer]\nmode = aggregate\n",
               extra_sinks="[sink.summary]\ntype = summary\npath = @TMP@/summary.txt\n"
                           "[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:0\n"
                           "labels = api,device,gpu\npath = @TMP@/metrics.prom\n")
    t.check(tr.rc == 0, "aggregate: exit %d" % tr.rc, tr)
    with open(os.path.join(tr.files, "summary.txt")) as f:
        summary = f.read()
    with open(os.path.join(tr.files, "metrics.prom")) as f:
        return tr, by_device(summary), f.read()


def by_device(text):
    """The summary's "By device" table."""
    at = text.find("\nBy device")
    return text[at:text.find("\n\n", at + 1)] if at >= 0 else ""


def report_by_device(tr):
    """The same table from `cudatracer report` of the run's jsonl."""
    out = os.path.join(tr.files, "report.txt")
    p = subprocess.run([t.TRACER, "report", os.path.join(tr.files, "events.jsonl"), "-o", "summary:" + out],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0, "report: exit %d\n%s" % (p.returncode, p.stderr), tr)
    with open(out) as f:
        return by_device(f.read())


def want(tr, got, expected, what):
    t.check(got == expected, "%s:\n%s\nwant\n%s" % (what, "\n".join(map(str, got)),
                                                   "\n".join(map(str, expected))), tr)


def main():
    t.need_root()
    if not shutil.which("unshare"):
        t.skip("unshare(1) is needed for a stand-in /proc/driver/nvidia and /dev")
    if not os.path.exists(CUDART):
        t.skip("no libcudart at %s" % CUDART)

    # One GPU open (and nvidiactl, not a GPU): every call is on it; its CUDA
    # index is not known, so none is made up.
    tr = trace(CUDART, ["open:/dev/nvidiactl", "open:/dev/nvidia0", "set:0", "memset"])
    want(tr, devices(tr), [("cudaSetDevice", None, "open_gpu", UUID0), ("cudaMemsetAsync", None, "open_gpu", UUID0)],
         "one GPU open, real runtime")
    t.check("\nunknown  " in tr.summary and UUID0 + "  0000:3b:00.0" in tr.summary,
            "the summary's row by device names the GPU:\n" + tr.summary, tr)

    # ... and with CUDA_VISIBLE_DEVICES naming one device, the runtime's index 0.
    tr = trace(CUDART, ["open:/dev/nvidia1", "memset"], env={"CUDA_VISIBLE_DEVICES": UUID1})
    want(tr, devices(tr), [("cudaMemsetAsync", 0, "visible_devices", UUID1)], "one visible device")
    tr = trace(CUDART, ["open:/dev/nvidia1", "memset"], env={"CUDA_VISIBLE_DEVICES": "1,0"})
    want(tr, devices(tr), [("cudaMemsetAsync", None, "open_gpu", UUID1)], "two visible devices: no index")

    # Two GPUs open: neither, never a guess.
    tr = trace(CUDART, ["open:/dev/nvidia0", "open:/dev/nvidia1", "memset"], env={"CUDA_VISIBLE_DEVICES": "0"})
    want(tr, devices(tr), [("cudaMemsetAsync", None, None, None)], "two GPUs open")

    # A device the thread's calls set wins; the GPU the process holds stays named.
    tr = trace(FAKE, ["open:/dev/nvidia0", "memset", "set:2", "memset"])
    want(tr, devices(tr), [("cudaMemsetAsync", None, "open_gpu", UUID0), ("cudaSetDevice", 2, "call", UUID0),
                           ("cudaMemsetAsync", 2, "call", UUID0)], "cudaSetDevice wins")

    # ... and the report of its jsonl restores device, device_from and the
    # GPU (its bus too): the same "By device" table as the live run's.
    t.check(by_device(tr.summary).count(UUID0 + "  0000:3b:00.0") == 2,
            "two rows by device on the GPU:\n" + tr.summary, tr)
    got = report_by_device(tr)
    t.check(got == by_device(tr.summary), "report's by device:\n%s\nlive:\n%s" % (got, by_device(tr.summary)), tr)

    # The node's only GPU, open, and no CUDA_VISIBLE_DEVICES: the runtime
    # sees that one alone, as its device 0.
    tr = trace(CUDART, ["open:/dev/nvidia0", "memset"], wrap=WRAP_ONE)
    want(tr, devices(tr), [("cudaMemsetAsync", 0, "only_gpu", UUID0)], "the only GPU")
    got = report_by_device(tr)
    t.check(UUID0 in got and got == by_device(tr.summary),
            "report's by device, only GPU:\n%s\nlive:\n%s" % (got, by_device(tr.summary)), tr)
    # ... not when CUDA_VISIBLE_DEVICES says otherwise (two devices, or none).
    for cvd in ("1,0", ""):
        tr = trace(CUDART, ["open:/dev/nvidia0", "memset"], env={"CUDA_VISIBLE_DEVICES": cvd}, wrap=WRAP_ONE)
        want(tr, devices(tr), [("cudaMemsetAsync", None, "open_gpu", UUID0)], "only GPU, CUDA_VISIBLE_DEVICES=" + cvd)

    # Aggregate mode: no call says, the process does: its totals get the GPU
    # it holds (the node's only one: index 0), in the summary and the labels.
    # The calls after the last look, counted once it has exited, are its too.
    tr, table, prom = aggregate(["open:/dev/nvidia0", "memset", "memset", "sleep:1500", "memset", "memset",
                                 "memset"], WRAP_ONE)
    rows = [line.split() for line in table.splitlines()[3:]]
    t.check(table.startswith("\nBy device (calls by their process's device: aggregate mode") and
            len(rows) == 1 and rows[0][0] == "0" and rows[0][1] == "5" and rows[0][-2:] == [UUID0, "0000:3b:00.0"],
            "aggregate, only GPU: by device\n" + table, tr)
    t.check('cudatracer_calls_total{api="cudaMemsetAsync",device="0",gpu="%s"} 5\n' % UUID0 in prom and
            'device=""' not in prom,
            "aggregate, only GPU: metrics\n" + prom, tr)
    # ... two GPUs in the node: the GPU, no index.
    tr, table, prom = aggregate(["open:/dev/nvidia1", "memset", "sleep:1500"], WRAP)
    rows = [line.split() for line in table.splitlines()[3:]]
    t.check(len(rows) == 1 and rows[0][0] == "unknown" and rows[0][-2:] == [UUID1, "0000:86:00.0"],
            "aggregate, two GPUs: by device\n" + table, tr)
    t.check('cudatracer_calls_total{api="cudaMemsetAsync",device="",gpu="%s"} 1\n' % UUID1 in prom,
            "aggregate, two GPUs: metrics\n" + prom, tr)

    # Hostile information files are bounded and ignored: no GPU for minors 2 to 5.
    for minor in (2, 3, 4, 5):
        tr = trace(CUDART, ["open:/dev/nvidia%d" % minor, "memset"])
        want(tr, devices(tr), [("cudaMemsetAsync", None, None, None)], "minor %d's file is not believed" % minor)
    print("ok: the GPU a process holds open names its calls' device; two, or a bad file, name none")


if __name__ == "__main__":
    main()
