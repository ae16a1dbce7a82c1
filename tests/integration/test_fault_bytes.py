# SPDX-License-Identifier: MIT
"""Control bytes a traced program puts in its comm (prctl PR_SET_NAME) or
in a kernel's symbol name never reach a terminal or a file raw (issue 13).
Text, csv's columns and summary show them as \\x1b (bytes that are not UTF-8 too:
\\xff), html as character references (ESC as its control picture &#x241b;,
a byte that is not UTF-8 as &#xfffd;); JSON (jsonl, chrome) keeps valid
UTF-8 as it is ("é" stayed "é", not "Ã©"), csv's arguments object too, and escapes the rest: ESC as
\\u001b, the byte 0xff as \\u00ff. Messages on stderr escape them as text does."""
import csv
import io
import json
import os
import subprocess
import tempfile
import cttest as t

COMM = b"t\x1b[31m\xc3\xa9\xff"        # ESC [ 3 1 m, é, a byte that is not UTF-8
KERNEL = "kern\x1b[2J\u00e9"           # the stub's symbol (tests/programs/comm_bytes.c)
COMM_TEXT = "t\\x1b[31m\u00e9\\xff"
KERNEL_TEXT = "kern\\x1b[2J\u00e9"


def main():
    t.need_root()
    prog = t.program("comm_bytes")
    d = tempfile.mkdtemp(prefix="ctbytes.")
    f = {k: os.path.join(d, k) for k in ("text", "jsonl", "csv", "summary", "html", "chrome")}
    args = [t.TRACER, "--plugin", "cudart"]
    for k, path in f.items():
        args += ["-o", "%s:%s" % (k, path)]
    # The text sink on a terminal's stream too: stdout, as a user would see it.
    p = subprocess.run(args + ["-o", "text:-", "--", prog, COMM], capture_output=True, timeout=120)
    t.check(p.returncode == 0, "rc %d\n%s" % (p.returncode, p.stderr.decode(errors="replace")))
    raw = {k: open(path, "rb").read() for k, path in f.items()}
    raw["stdout"] = p.stdout
    for k, b in raw.items():
        bad = sorted({c for c in b if (c < 0x20 and c not in b"\n\r") or c == 0x7f})
        t.check(not bad, "%s output holds raw control bytes %r:\n%r" % (k, bad, b[:600]))
        try:
            b.decode("utf-8")
        except UnicodeDecodeError as e:
            raise AssertionError("%s output is not UTF-8 (%s): %r" % (k, e, b[max(0, e.start - 40):e.end + 40]))

    # jsonl: é as UTF-8 bytes (c3 a9), ESC and 0xff escaped; the same strings read back.
    t.check(b'"comm":"t\\u001b[31m\xc3\xa9\\u00ff"' in raw["jsonl"], "jsonl comm: %r" % raw["jsonl"][:400])
    ev = t.read_jsonl(f["jsonl"])
    t.check([e["api"] for e in ev] == ["cudaMemset"] * 3 + ["cudaLaunchKernel"], "events: %r" % ev)
    t.check(all(e["comm"] == "t\x1b[31m\u00e9\u00ff" for e in ev), "jsonl comm: %r" % ev[0]["comm"])
    t.check(ev[3]["args"]["func"] == KERNEL, "jsonl kernel name: %r" % ev[3]["args"]["func"])
    chrome = json.loads(raw["chrome"])
    names = {e["args"]["name"] for e in chrome["traceEvents"] if e.get("ph") == "M" and "name" in e.get("args", {})}
    t.check("t\x1b[31m\u00e9\u00ff" in names, "chrome thread and process names: %r" % names)

    # text, stdout included: the escapes, then the rest of the line.
    for k in ("text", "stdout"):
        lines = raw[k].decode().splitlines()
        calls = [l for l in lines[1:] if " cuda" in l]
        t.check(len(calls) == 4 and all(l.split()[1] == COMM_TEXT for l in calls), "%s lines:\n%s" % (k, "\n".join(lines)))
        t.check("cudaLaunchKernel(func=%s, grid=(1,1,1)" % KERNEL_TEXT in calls[3], "%s launch: %s" % (k, calls[3]))

    # csv: RFC 4180 still; the comm escaped as text, the arguments one JSON object (ESC as \u001b).
    rows = list(csv.reader(io.StringIO(raw["csv"].decode(), newline=""), strict=True))
    t.check(len(rows) == 5 and all(len(r) == 13 for r in rows), "csv rows: %r" % rows)
    t.check(all(r[3] == COMM_TEXT for r in rows[1:]), "csv comm: %r" % [r[3] for r in rows])
    t.check("\\u001b[2J\u00e9" in rows[4][11] and json.loads(rows[4][11])["func"] == KERNEL
            and json.loads(rows[4][11])["grid"] == ev[3]["args"]["grid"], "csv args: %r" % rows[4][11])

    # summary: the process line.
    t.check(("(%s): 4 calls" % COMM_TEXT) in raw["summary"].decode(), "summary:\n" + raw["summary"].decode())

    # html: character references; the page is still one document.
    html = raw["html"].decode()
    t.check("t&#x241b;[31m\u00e9&#xfffd;" in html, "html comm:\n" + html[:3000])

    # Messages name the target's paths: escaped the same way on stderr.
    p = subprocess.run([t.TRACER, "--lib", "/nonexistent/x\x1b[2Jy"], capture_output=True, timeout=60)
    t.check(b"\x1b" not in p.stderr and b"--lib /nonexistent/x\\x1b[2Jy: No such file or directory" in p.stderr,
            "stderr: %r" % p.stderr)
    print("ok")


main()
