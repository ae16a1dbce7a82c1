#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make the bash completion file from the built binary's tables, at build
time: bash-completion/cudatracer.in with its @WORDS@ filled in. The options
come from `--help` (the option table) and the subcommands' `--help`, plugin
names from `--list-plugins`, sink types, keys and choices from
`--config-help=markdown` (the key tables).

usage: gen_completion.py CUDATRACER TEMPLATE -o OUTPUT
"""
import argparse
import re
import shlex
import subprocess


def run(binary, *args):
    p = subprocess.run([binary, *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("gen_completion: %s %s: exit %d\n%s" % (binary, " ".join(args), p.returncode, p.stderr))
    return p.stdout


def options(help_text):
    """-x and --long of every row of a --help text."""
    words = []
    for m in re.finditer(r"^ +(?:-(\w)(?:, |\s)+)?(?:--([\w-]+))?", help_text, re.M):
        words += ["-" + m.group(1)] if m.group(1) else []
        words += ["--" + m.group(2)] if m.group(2) else []
    return list(dict.fromkeys(words))  # -o has a row per form in merge's help


def words(values):
    return " ".join(shlex.quote(v) for v in values)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("template")
    ap.add_argument("-o", dest="out", required=True)
    a = ap.parse_args()
    md = run(a.binary, "--config-help=markdown")
    plugins = re.findall(r"^(\w+) +\d", run(a.binary, "--list-plugins"), re.M)
    sinks = re.findall(r"^#+ type = (\w+)", md, re.M)
    keys, choices, section = [], {}, None
    for line in md.splitlines():
        m = re.match(r"^## \[([\w]+)\]", line)
        if line.startswith("## "):
            section = m.group(1) if m else None
            continue
        cells = [c.strip() for c in line.split("|")]
        if section and len(cells) > 3 and cells[1].startswith("`"):
            key = cells[1].strip("`")
            keys.append("%s.%s=" % (section, key))
            if section == "tracer" and cells[2].startswith("choice: "):
                choices[key] = cells[2][len("choice: "):].replace(",", " ").split()
    if not plugins or not sinks or not keys:
        raise SystemExit("gen_completion: found %d plugins, %d sink types, %d keys: the tables did not read"
                         % (len(plugins), len(sinks), len(keys)))
    cases = "".join("\t%s) printf '%%s\\n' %s ;;\n" % (k, words(v)) for k, v in sorted(choices.items()))
    fill = {
        "OPTIONS": words(options(run(a.binary, "--help"))),
        "REPORT_OPTIONS": words(options(run(a.binary, "report", "--help"))),
        "MERGE_OPTIONS": words(options(run(a.binary, "merge", "--help"))),
        "CAPTURE_OPTIONS": words(options(run(a.binary, "capture", "--help"))),
        "PLUGINS": words(plugins),
        "SINK_TYPES": words(sinks),
        "KEYS": words(keys),
        "CHOICES": cases,
    }
    with open(a.template) as f:
        text = f.read()
    text = re.sub(r"@(\w+)@", lambda m: fill[m.group(1)], text)
    with open(a.out, "w") as f:
        f.write(text)


main()
