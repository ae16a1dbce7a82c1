# SPDX-License-Identifier: MIT
"""Started with stdin, stdout or stderr closed (issue 13), cudatracer opens
them on /dev/null before anything else: otherwise the jsonl sink's file
takes fd 1 (or 2) and gets the text sink's lines (or the closing report),
and is no longer JSON."""
import os
import subprocess
import tempfile
import cttest as t

N = 1000


def closed(fds):
    def close():
        for fd in fds:
            os.close(fd)
    return close


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    for fds in ((1,), (2,), (1, 2), (0, 1, 2)):
        out = os.path.join(tempfile.mkdtemp(prefix="ctstdio."), "ev.jsonl")
        p = subprocess.run([t.TRACER, "--plugin", "cudart", "-o", "text:-", "-o", "jsonl:" + out, "--",
                            prog, str(N)], preexec_fn=closed(fds), timeout=120,
                           stdout=subprocess.DEVNULL if 1 not in fds else None,
                           stderr=subprocess.DEVNULL if 2 not in fds else None,
                           stdin=subprocess.DEVNULL if 0 not in fds else None)
        with open(out) as f:
            text = f.read()
        t.check("cudaMemset(" not in text and "cudatracer:" not in text,
                "with fds %s closed, the jsonl file got other output:\n%s" % (fds, text[:1000]))
        ev = t.read_jsonl(out)
        t.check([e["args"]["count"] for e in ev] == list(range(N)),
                "with fds %s closed: %d of %d events" % (fds, len(ev), N))
        t.check(p.returncode == 0, "with fds %s closed: rc %d" % (fds, p.returncode))
    print("ok")


main()
