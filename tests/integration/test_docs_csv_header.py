#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/sinks.md's csv header is the csv sink's: the first line of the
example under "## csv" against the first line of a real run's file, so that
a column added to the sink cannot leave the docs behind."""
import os
import re
import subprocess
import tempfile

import cttest as t


def main():
    t.need_root()
    with open(os.path.join(t.SOURCE, "docs", "sinks.md")) as f:
        m = re.search(r"^## csv\n.*?^```\n([^\n]*)\n", f.read(), re.M | re.S)
    t.check(m, "docs/sinks.md: no example under ## csv")
    documented = m.group(1)
    tmp = tempfile.mkdtemp(prefix="cttest.")
    out = os.path.join(tmp, "t.csv")
    p = subprocess.run([t.TRACER, "--no-config", "-o", "csv:" + out, "--",
                        os.path.join(t.PROGRAMS, "sleep", "sleep_calls"), "1", "0"],
                       capture_output=True, text=True, timeout=60)
    t.check(p.returncode == 0, p.stderr)
    with open(out, newline="") as f:
        real = f.readline().rstrip("\r\n")
    os.unlink(out)
    os.rmdir(tmp)
    t.check(documented == real, "docs/sinks.md's csv header is stale:\n  docs: %s\n  sink: %s" % (documented, real))
    print("test_docs_csv_header: ok")


main()
