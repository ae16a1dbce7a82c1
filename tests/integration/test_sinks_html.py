#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The html report of a real traced run, rendered by headless Chromium (Debian's
package): the page renders with the expected numbers, fetches nothing, and a
screenshot is saved to build/tests/sinks_report.png for a person to look at."""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import cttest
import test_sinks_common as common


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    cttest.skip("chromium is not installed (scripts/install-deps.sh installs it)")


def browse(browser, page, *what):
    profile = tempfile.mkdtemp(prefix="ct-chromium.")
    # no network of any kind: a page that tried to fetch would fail to, and say so in the log
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run",
           "--user-data-dir=" + profile, "--host-resolver-rules=MAP * ~NOTFOUND",
           "--window-size=1300,1600"] + list(what) + ["file://" + page]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    assert p.returncode == 0, "chromium failed (%d):\n%s" % (p.returncode, p.stderr[-3000:])
    return p


def screenshot(browser, page, name, trace):
    """The page's pixels in build/tests/NAME; returns the path."""
    shot = os.path.join(cttest.BUILD, "tests", name)
    os.makedirs(os.path.dirname(shot), exist_ok=True)
    if os.path.exists(shot):
        os.unlink(shot)
    browse(browser, page, "--screenshot=" + shot)
    with open(shot, "rb") as f:
        png = f.read()
    cttest.check(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000, "screenshot " + name, trace)
    return shot


def cells(dom, table_class):
    m = re.search(r'<table class="%s"[^>]*>(.*?)</table>' % table_class, dom, re.S)
    assert m, "no table %s in the rendered page" % table_class
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", m.group(1), re.S)
    return [[re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, re.S)]
            for r in rows]


def main():
    cttest.need_root()
    browser = chromium()
    tmp = common.tmpdir()
    prog = common.build_fake(tmp)
    conf = common.write_config(tmp)
    p = subprocess.run([cttest.TRACER, "-c", conf, "--plugin", "cudart", "--", prog, "5"],
                       capture_output=True, text=True, timeout=120)
    trace = cttest.Trace(p.returncode, p.stdout, p.stderr, [], tmp)
    cttest.check(p.returncode == 0, "tracer exited %d" % p.returncode, trace)
    d = common.files(tmp)
    common.check_consistent(d, trace)
    page = os.path.join(tmp, "report.html")
    pid = d["events"][0]["pid"]

    # the DOM after Chromium parsed and laid it out
    dom = browse(browser, page, "--dump-dom").stdout
    apis = {r[0]: r for r in cells(dom, "apis")[1:]}
    # sizes as people read them, exact in the cell's title
    cttest.check(apis["cudaMemcpy"][4] == "10" and apis["cudaMemcpy"][11] == "7.32 KiB",
                 "cudaMemcpy row %r" % apis.get("cudaMemcpy"), trace)
    cttest.check(apis["cudaMalloc"][4] == "2" and apis["cudaMalloc"][11] == "12.0 KiB",
                 "cudaMalloc row %r" % apis.get("cudaMalloc"), trace)
    cttest.check('title="7500 bytes">7.32 KiB<' in dom, "exact bytes in the title", trace)
    summary = {a["api"]: a for a in d["summary"]["processes"][0]["apis"]}
    for name, row in apis.items():
        s = summary[name]
        cttest.check([int(row[3]), int(row[4]), int(row[8])] == [s["total_ns"], s["calls"], s["max_ns"]],
                     "html and summary disagree on %s: %r vs %r" % (name, row, s), trace)
    mem = cells(dom, "memory")
    cttest.check(mem[1][:3] == [str(pid), "sinks_user", "cudart"] and mem[1][5:10] ==
                 ["12.0 KiB", "1000 B", "0 B", "1", "8.00 KiB"], "memory row %r" % mem[1], trace)
    rects = re.findall(r'<rect class="([a-z ]+)" x=', dom.split('id="timeline"', 1)[1])
    cttest.check(len(rects) == len(d["events"]), "timeline has %d calls, trace %d" %
                 (len(rects), len(d["events"])), trace)
    cttest.check(rects.count("copy") == 10 and rects.count("alloc") == 3, "timeline kinds", trace)
    cttest.check('id="memplot"' in dom, "device memory plot", trace)

    # and the pixels, for a person to look at
    print("ok: screenshot in " + screenshot(browser, page, "sinks_report.png", trace))
    kernels_page(browser, tmp, trace)


# A recording with launches of two kernels (one with a long C++ name), two grid
# shapes, a failing free and a 1.36 GiB allocation, as the jsonl sink writes it,
# replayed by `cudatracer report` into the html sink.
LONG = "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<cutlass::gemm::threadblock::MmaMultistage<128>>>(Params)"


def recording(path):
    wall, mono = 1796000000000000000, 5000000000
    meta = {"kind": "meta", "format": "cudatracer-jsonl", "version": 1, "host": "h", "boot_id": "b",
            "tracer_pid": 1, "wall_ns": wall, "mono_ns": mono, "wall_offset_ns": wall - mono}
    lines, t = [meta], wall + 1000

    def call(api, dur, result, name, args):
        nonlocal t
        lines.append({"ts_ns": t, "plugin": "cudart", "api": api, "pid": 4242, "tid": 4242, "comm": "train",
                      "depth": 0, "dur_ns": dur, "result": result, "result_name": name,
                      "error": result != 0, "args": args})
        t += dur + 500

    call("cudaMalloc", 9000, 0, "cudaSuccess", {"devPtr": "0x7f0000000000", "size": 1462763520})
    for i in range(6):
        call("cudaLaunchKernel", 3000 + i, 0, "cudaSuccess",
             {"func": "vecAdd(float*, float*, int)", "grid": [4096 * (1 + i % 2), 1, 1], "block": [256, 1, 1],
              "args": "0x7ffd00001000", "sharedMem": 0, "stream": "0x0"})
    call("cudaLaunchKernel", 5000, 0, "cudaSuccess",
         {"func": LONG, "grid": [64, 2, 1], "block": [128, 1, 1], "args": "0x7ffd00002000", "sharedMem": 49152,
          "stream": "0x0"})
    call("cudaFree", 800, 1, "cudaErrorInvalidValue", {"devPtr": "0xbad000"})
    call("cudaFree", 700, 0, "cudaSuccess", {"devPtr": "0x7f0000000000"})
    with open(path, "w") as f:
        for l in lines:
            f.write(json.dumps(l, separators=(",", ":")) + "\n")


def kernels_page(browser, tmp, trace):
    rec = os.path.join(tmp, "kernels.jsonl")
    recording(rec)
    page = os.path.join(tmp, "kernels.html")
    p = subprocess.run([cttest.TRACER, "report", rec, "-o", "html:" + page], capture_output=True, text=True,
                       timeout=60)
    cttest.check(p.returncode == 0, "report: %d\n%s" % (p.returncode, p.stderr), trace)
    dom = browse(browser, page, "--dump-dom").stdout
    k = cells(dom, "kernels")
    cttest.check(k[0] == ["Kernel", "Runtime", "Launches", "Errors", "Total(ns)", "Avg(ns)", "Grids", "Blocks"],
                 "kernels header %r" % k[0], trace)
    cttest.check(k[1] == ["vecAdd(float*, float*, int)", "cudart", "6", "0", "18015", "3002", "2 shapes",
                          "(256,1,1)"], "vecAdd row %r" % k[1], trace)
    cttest.check(html.unescape(k[2][0]) == LONG[:77] + "..." and k[2][1:] == ["cudart", "1", "0", "5000", "5000", "(64,2,1)",
                                                               "(128,1,1)"], "long kernel row %r" % k[2], trace)
    cttest.check('title="%s"' % LONG.replace("<", "&lt;").replace(">", "&gt;") in dom, "whole name in title", trace)
    cttest.check(cells(dom, "errors")[1:] == [["cudaErrorInvalidValue", "cudaFree", "cudart", "1"]],
                 "errors table %r" % cells(dom, "errors"), trace)
    apis = {r[0]: r for r in cells(dom, "apis")[1:]}
    cttest.check(apis["cudaMalloc"][11] == "1.36 GiB", "size %r" % apis["cudaMalloc"], trace)
    print("ok: screenshot of a report with kernels and errors in " +
          screenshot(browser, page, "sinks_report_kernels.png", trace))


if __name__ == "__main__":
    sys.exit(main())
