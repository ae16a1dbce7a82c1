# SPDX-License-Identifier: MIT
"""core/symbols/pyoffsets_gen.h is what tools/pyoffsets/gen.sh prints for
each CPython whose internal headers are here: Debian's python3.11-dev, and
pyenv's 3.10 to 3.13 where installed. A row edited by hand, or a header
that lays a version out otherwise, fails."""
import os
import re
import subprocess
import sys

SRC = os.environ.get("CT_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
GEN = os.path.join(SRC, "tools", "pyoffsets", "gen.sh")
TABLE = os.path.join(SRC, "core", "symbols", "pyoffsets_gen.h")


def rows(text):
    """{(major, minor): body} of a generated table, comments left out."""
    out = {}
    for m in re.finditer(r"\{ (\d+), (\d+), \{\n(.*?)\t\} \},", text, re.S):
        out[(int(m.group(1)), int(m.group(2)))] = m.group(3)
    return out


def main():
    dirs = [d for d in ["/usr/include/python3.11"] +
            ["/root/.pyenv/versions/%s/include/python%s" % (v, ".".join(v.split(".")[:2]))
             for v in sorted(os.listdir("/root/.pyenv/versions")) if os.path.isdir("/root/.pyenv/versions")
             and v.split(".")[0] == "3" and 10 <= int(v.split(".")[1]) <= 13]
            if os.path.isdir(os.path.join(d, "internal"))]
    with open(TABLE) as f:
        table = rows(f.read())
    checked = []
    for d in dirs:
        p = subprocess.run([GEN, d], capture_output=True, text=True)
        if p.returncode:
            print("gen.sh %s failed:\n%s" % (d, p.stderr))
            sys.exit(1)
        for ver, body in rows(p.stdout).items():
            if ver not in table:
                continue  # a version the table does not carry (3.7-3.9)
            if table[ver] != body:
                print("%s: the row of %d.%d differs from pyoffsets_gen.h:\n%s" % (d, ver[0], ver[1], body))
                sys.exit(1)
            checked.append("%s (%d.%d)" % (d, ver[0], ver[1]))
    if not checked:
        print("SKIP: no CPython internal headers here (python3.11-dev)")
        sys.exit(77)
    print("ok: " + ", ".join(checked))


main()
