# SPDX-License-Identifier: MIT
"""An out-parameter that was not read is unknown, never a value. cudaMalloc
made entry-only by tracer.entry_only is recorded at entry, before the call
writes *devPtr: its devPtr is null in jsonl and "?" in text, while its size
is known. Traced in full, the same call shows the pointer it read after the
call (NULL: without a GPU cudaMalloc fails and leaves it as it was)."""
import os
import cttest as t


def main():
    t.need_root()
    prog = t.program("cudart_calls_shared")
    full = t.run(["--plugin", "cudart"], command=[prog])
    ev = full.calls("cudaMalloc")
    t.check(len(ev) == 1 and ev[0]["args"] == {"devPtr": "0x0", "size": 4096}, "full: %s" % ev, full)

    text = "[sink.text]\ntype = text\npath = @TMP@/out.txt\n"
    tr = t.run(["--plugin", "cudart", "-C", "tracer.entry_only=cudaMalloc"], command=[prog], extra_sinks=text)
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    ev = tr.calls("cudaMalloc")
    t.check(len(ev) == 1 and ev[0].get("entry_only") and ev[0]["args"] == {"devPtr": None, "size": 4096},
            "entry-only cudaMalloc: %s" % ev, tr)
    # Other out-parameters of the same run are still read after their calls.
    host = tr.calls("cudaMallocHost")
    t.check(len(host) == 1 and host[0]["args"]["ptr"] == "0x0", "cudaMallocHost: %s" % host, tr)
    with open(os.path.join(tr.files, "out.txt")) as f:
        lines = [l for l in f if "cudaMalloc(" in l]
    t.check(len(lines) == 1 and "devPtr=?" in lines[0] and "size=4096" in lines[0],
            "text line: %s" % lines, tr)
    print("ok")


main()
