# SPDX-License-Identifier: MIT
"""The man pages the build generates render with `man -l`, and list every
option of the option table and every key of the key tables.

The options are read from core/options.c itself (its rows' long names and
letters), not from --help, so a row that --help or the generator lost would
fail here; the keys from docs/config.md's tables, which docs_config_current
holds equal to the code's.
"""
import os
import re
import shutil
import subprocess

import cttest

if not shutil.which("man"):
    cttest.skip("man (man-db) is not installed: scripts/install-deps.sh installs it")
man_dir = os.path.join(cttest.BUILD, "packaging", "man")


def render(page):
    path = os.path.join(man_dir, page)
    cttest.check(os.path.exists(path), "the build made no %s" % path)
    # Wide, unjustified, unhyphenated: each name stays one word on one line.
    p = subprocess.run(["man", "--no-hyphenation", "--no-justification", "-l", path],
                       capture_output=True, text=True, env=dict(os.environ, MANWIDTH="250", MAN_KEEP_FORMATTING=""))
    cttest.check(p.returncode == 0 and not p.stderr.strip(), "man -l %s: exit %d\n%s" % (page, p.returncode, p.stderr))
    # Bold and underline as overstrikes, if the pager kept them.
    return re.sub(r".\x08", "", p.stdout)


with open(os.path.join(cttest.SOURCE, "core", "options.c")) as f:
    table = f.read()
longs = re.findall(r'\b(?:FLAG|ARG)\("([a-z-]+)", (\'.\'|0)', table)
longs += [(n, "0") for n in re.findall(r'\.name = "([a-z-]+)"', table)]
cttest.check(len(longs) >= 20, "read only %d options from core/options.c" % len(longs))

page1 = render("cudatracer.1.gz")
for name, letter in longs:
    cttest.check(re.search(r"(^|[ ,])--%s\b" % re.escape(name), page1, re.M),
                 "cudatracer(1) does not list --%s:\n%s" % (name, page1))
    if letter != "0":
        cttest.check(re.search(r"(^|\s)-%s, --%s\b" % (letter.strip("'"), re.escape(name)), page1, re.M),
                     "cudatracer(1) does not give -%s for --%s" % (letter.strip("'"), name))
# Every type of the sink table, with what -o TYPE:WHERE's WHERE is for it.
with open(os.path.join(cttest.SOURCE, "core", "sinks", "registry.c")) as f:
    sink_types = re.findall(r"^\t&ct_sink_(\w+),$", f.read(), re.M)
cttest.check(len(sink_types) >= 10, "read only %d sink types from core/sinks/registry.c" % len(sink_types))
for typ in sink_types:
    cttest.check(re.search(r"^\s+%s(\[:|:)(FILE|ADDR:PORT|URL)\]?$" % typ, page1, re.M),
                 "cudatracer(1) does not say what -o %s:WHERE is:\n%s" % (typ, page1))
for section in ("SYNOPSIS", "OPTIONS", "FILES", "ENVIRONMENT", "SIGNALS", "EXIT STATUS", "SEE ALSO"):
    cttest.check(re.search(r"^%s$" % section, page1, re.M), "cudatracer(1) has no %s section" % section)
# Every signal the tracer acts on (core/session.c's caught_signals), said.
caught = re.search(r"caught_signals\[\] = \{([^}]*)\}", open(os.path.join(cttest.SOURCE, "core", "session.c")).read())
cttest.check(caught, "no caught_signals in core/session.c")
for sig in re.findall(r"SIG[A-Z0-9]+", caught.group(1)):
    cttest.check(re.search(r"^\s+.*\b%s\b" % sig, page1.split("SIGNALS", 1)[1], re.M),
                 "cudatracer(1) SIGNALS does not say what %s does" % sig)
# The paths this build installs to, as the binary was built with them.
cache = open(os.path.join(cttest.BUILD, "CMakeCache.txt")).read()
prefix = re.search(r"^CMAKE_INSTALL_PREFIX:PATH=(.*)$", cache, re.M).group(1)
libdir = re.search(r"^CMAKE_INSTALL_LIBDIR:PATH=(.*)$", cache, re.M).group(1)
plugins = os.path.join(prefix, libdir, "cudatracer", "plugins")
cttest.check(plugins in page1, "cudatracer(1) FILES does not name %s" % plugins)
cttest.check("cudatracer.ini(5)" in page1, "cudatracer(1) does not point to cudatracer.ini(5)")

page5 = render("cudatracer.ini.5.gz")
with open(os.path.join(cttest.SOURCE, "docs", "config.md")) as f:
    md = f.read()
keys = re.findall(r"^\| `(\w+)` \|", md, re.M)
sections = re.findall(r"^#+ (\[[\w.]+\]|type = \w+)$", md, re.M)
cttest.check(len(keys) >= 30 and len(sections) >= 8, "read %d keys, %d sections from docs/config.md" % (len(keys), len(sections)))
for key in keys:
    cttest.check(re.search(r"^\s+%s \(" % key, page5, re.M), "cudatracer.ini(5) does not list the key %s:\n%s" % (key, page5))
for s in sections:
    cttest.check(re.search(r"^\s*%s$" % re.escape(s), page5, re.M), "cudatracer.ini(5) has no section %s" % s)
# A key's default and meaning, as the table has them.
cttest.check(re.search(r"^\s+ringbuf_size \(size; default: 16M\)$", page5, re.M),
             "cudatracer.ini(5) gives ringbuf_size without its default 16M")
print("test_man_pages: cudatracer(1) lists %d options, cudatracer.ini(5) %d keys" % (len(longs), len(keys)))
