# SPDX-License-Identifier: MIT
"""Output that fails: a sink writing to a full disk (/dev/full) and a sink on
a stdout that its reader closed early (cudatracer ... | head -1, SIGPIPE).
The failing sink is named once, with the reason; the tracer is not killed
by SIGPIPE; the other sinks keep going and write every event; the exit
status is 1 although the traced command succeeded."""
import os
import re
import subprocess
import tempfile
import cttest as t

N = 100000


def sink_error(stderr, kind, path, why):
    pat = r"cudatracer: error: sink '[^']+' \(%s, %s\): (writing|writing an event|the final report) failed: %s; this sink stops, the others go on" % (
        kind, re.escape(path), why)
    lines = [l for l in stderr.splitlines() if re.match(pat, l)]
    t.check(len(lines) == 1, "want one line matching %r in:\n%s" % (pat, stderr[-3000:]))


def test_dev_full(prog):
    tr = t.run(["--plugin", "cudart", "-o", "jsonl:/dev/full", "-o", "text:/dev/full"], command=[prog, str(N)],
               timeout=120)
    sink_error(tr.stderr, "jsonl", "/dev/full", "No space left on device")
    sink_error(tr.stderr, "text", "/dev/full", "No space left on device")
    t.check(tr.rc == 1, "/dev/full: rc %d, want 1" % tr.rc, tr)
    t.check([e["args"]["count"] for e in tr.events] == list(range(N)), "the good sink missed events", tr)
    t.check(tr.lost() == 0, "lost records", tr)


def test_stdout_closed(prog):
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "ev.jsonl")
    # The command's own output goes elsewhere: only the tracer meets the closed pipe.
    p = subprocess.Popen([t.TRACER, "--plugin", "cudart", "-o", "text:-", "-o", "jsonl:" + out, "--",
                          "sh", "-c", "exec %s %d >/dev/null" % (prog, N)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()  # head -1
    p.stdout.close()
    stderr = p.stderr.read()
    p.wait(timeout=120)
    t.check(first.startswith("TIME"), "first line %r" % first)
    t.check(p.returncode == 1, "rc %d, want 1 (-13: killed by SIGPIPE)\n%s" % (p.returncode, stderr))
    sink_error(stderr, "text", "-", "Broken pipe")
    ev = t.read_jsonl(out)
    t.check([e["args"]["count"] for e in ev] == list(range(N)), "jsonl sink: %d of %d events" % (len(ev), N))
    t.check("cudatracer: %d events, 0 records lost" % N in stderr, "closing report:\n" + stderr[-2000:])


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    test_dev_full(prog)
    test_stdout_closed(prog)
    print("ok")


main()
