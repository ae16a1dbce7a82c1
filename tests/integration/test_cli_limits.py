# SPDX-License-Identifier: MIT
"""Options past a limit are never dropped in silence (issue 13): every -o
and -C is applied however many there are (17 -o sinks all write; a setting
after 70 others takes effect), more sinks than supported is an error, and a
ring buffer size that is rounded up or capped says so in one line."""
import os
import subprocess
import tempfile
import cttest as t

E = "cudatracer: error: "
W = "cudatracer: warning: "


def run(args, timeout=120):
    return subprocess.run([t.TRACER] + args, capture_output=True, text=True, timeout=timeout)


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    # 17 sinks from the command line (the 17th was dropped): each gets every call.
    d = tempfile.mkdtemp(prefix="ctlimits.")
    outs = [os.path.join(d, "s%02d.jsonl" % i) for i in range(17)]
    args = ["--plugin", "cudart"]
    for o in outs:
        args += ["-o", "jsonl:" + o]
    p = run(args + ["--", prog, "10"])
    t.check(p.returncode == 0, "17 sinks: rc %d\n%s" % (p.returncode, p.stderr))
    for o in outs:
        t.check(os.path.exists(o), "sink %s was dropped" % o)
        t.check([e["args"]["count"] for e in t.read_jsonl(o)] == list(range(10)), "sink %s missed events" % o)

    # More than the supported number of sinks: an error, nothing traced.
    p = run(["--plugin", "cudart"] + ["-o", "jsonl:/dev/null"] * 65 + ["--", prog, "10"])
    want = E + "65 sinks configured ([sink.NAME] sections and -o): at most 64 are supported"
    t.check(p.returncode == 2 and want in p.stderr.splitlines(), "65 sinks: rc %d\n%s" % (p.returncode, p.stderr))

    # A setting after 70 others is applied: -C (refused past 64 with a wrong
    # message) and options that set a key (dropped past 64).
    for many in (["-C", "filter.errors_only=false"] * 70, ["--profile", "default"] * 70):
        p = run(many + ["-C", "tracer.plugins=nosuch", "--list-apis"])
        t.check(p.returncode != 0 and "plugin 'nosuch' not found" in p.stderr,
                "%s x70 then a plugin: rc %d\n%s" % (many[0], p.returncode, p.stderr))
        p = run(many + ["--plugin", "nosuch", "--list-apis"])
        t.check(p.returncode != 0 and "plugin 'nosuch' not found" in p.stderr,
                "%s x70 then --plugin: rc %d\n%s" % (many[0], p.returncode, p.stderr))

    # Ring sizes: a power of two is used as it is; others say what is used.
    for size, line in (("16M", None),
                       ("10M", W + "tracer.ringbuf_size 10M is not a power of two: using 16M"),
                       ("10000000", W + "tracer.ringbuf_size 10000000 is not a power of two: using 16M"),
                       ("8G", W + "tracer.ringbuf_size 8G is more than the most a ring buffer can be: using 2G"),
                       ("100", W + "tracer.ringbuf_size 100 is less than a page: using 4K")):
        p = run(["--plugin", "cudart", "--ringbuf-size", size, "-o", "jsonl:/dev/null", "--", prog, "10"])
        notes = [l for l in p.stderr.splitlines() if "ringbuf_size" in l]
        t.check(p.returncode == 0 and notes == ([line] if line else []),
                "--ringbuf-size %s: rc %d, lines %r\n%s" % (size, p.returncode, notes, p.stderr))
    print("ok")


main()
