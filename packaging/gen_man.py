#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man pages cudatracer(1) and cudatracer.ini(5), from the built binary.

cudatracer(1) takes its options from `cudatracer --help`, which is printed
from the option table (core/options.c), and cudatracer.ini(5) its keys from
`cudatracer --config-help=markdown`, printed from the key tables: neither
page lists an option or a key by hand, so they cannot drift from the code.
What is not in a table (the description, files, environment) is here.

    gen_man.py CUDATRACER --page 1|5 --system-config PATH --plugin-dir DIR -o OUT
"""
import argparse
import re
import subprocess

DATE = ""  # no date: the page of a build is the same whenever it is built


def roff(text):
    """Plain text as roff: backslashes, hyphens of options and a leading dot escaped."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text[:1] in ".'" else text


def inline(md):
    """Markdown's `code` as bold; the rest as plain text."""
    parts = re.split(r"`([^`]*)`", md)
    return "".join("\\fB%s\\fR" % roff(p) if i % 2 else roff(p) for i, p in enumerate(parts))


def run(tracer, *args):
    return subprocess.run([tracer, *args], check=True, capture_output=True, text=True).stdout


def parse_help(text):
    """--help as (synopsis lines, description, [(group, [(spec, help)])])."""
    lines = text.splitlines()
    synopsis, desc, groups, i = [], [], [], 0
    while i < len(lines) and lines[i].strip():
        synopsis.append(re.sub(r"^(usage:)?\s*", "", lines[i]))
        i += 1
    while i < len(lines) and not lines[i].endswith(":"):
        if lines[i].strip():
            desc.append(lines[i].strip())
        i += 1
    for line in lines[i:]:
        if not line.strip():
            continue
        if not line.startswith(" "):
            groups.append((line.rstrip(":"), []))
        elif re.match(r"^ {2}\S|^ {6}--", line):
            spec, _, help_ = line.strip().partition("  ")
            groups[-1][1].append((spec.strip(), help_.strip()))
        else:  # a help line continued
            spec, help_ = groups[-1][1][-1]
            groups[-1][1][-1] = (spec, (help_ + " " + line.strip()).strip())
    return synopsis, " ".join(desc), groups


def option_spec(spec):
    """"-p, --pid PID" as roff: the option names bold, the argument italic."""
    out = []
    for word in spec.split(" "):
        m = re.match(r"^(--?[\w-]*)(,?)(.*)$", word)
        if m:  # --config-help[=FORMAT]: the name bold, what it takes italic
            out.append("\\fB%s\\fR%s" % (roff(m.group(1)), m.group(2))
                       + ("\\fI%s\\fR" % roff(m.group(3)) if m.group(3) else ""))
        else:
            out.append("\\fI%s\\fR" % roff(word))
    return " ".join(out)


def page1(tracer, version, a):
    synopsis, desc, groups = parse_help(run(tracer, "--help"))
    out = ['.TH CUDATRACER 1 "%s" "cudatracer %s" "User Commands"' % (DATE, version),
           ".SH NAME", "cudatracer \\- trace GPU runtime API calls with eBPF uprobes",
           ".SH SYNOPSIS"]
    for s in synopsis:
        out += [".B cudatracer", roff(s.split(" ", 1)[1] if " " in s else ""), ".br"]
    out += [".SH DESCRIPTION", roff(desc), ".PP",
            roff("cudatracer attaches eBPF uprobes to the GPU runtime library that each process "
                 "really maps (found through /proc/PID/maps, a private copy in a Python wheel or "
                 "conda, or a runtime linked statically into the executable) and shows every call "
                 "with its decoded arguments, its result by name, its duration and its thread. "
                 "Runtime plugins say what to trace: cudart (the CUDA runtime), cuda (the driver), "
                 "hip, opencl and nccl."),
            ".PP",
            roff("Settings come from the system config (see FILES), then the file given with -c, "
                 "then the options below, each overriding what came before; "
                 "cudatracer.ini(5) lists every key."),
            ".SH OPTIONS"]
    for group, rows in groups:
        out.append('.SS "%s"' % roff(group))
        for spec, help_ in rows:
            out += [".TP", option_spec(spec), roff(help_)]
    out += [".SH FILES",
            ".TP", "\\fI%s\\fR" % roff(a.system_config),
            roff("The system config, read when present unless -c names another file or "
                 "--no-config is given. As installed, every key in it is commented out."),
            ".TP", "\\fI%s\\fR" % roff(a.plugin_dir),
            roff("The runtime plugins (libct-NAME.so). An installed tree that was moved looks "
                 "beside its executable first, in the same layout; [tracer] plugin_path and "
                 "CUDATRACER_PLUGIN_PATH add folders before these."),
            ".SH ENVIRONMENT",
            ".TP", "\\fBCUDATRACER_PLUGIN_PATH\\fR",
            roff("Colon-separated folders searched for plugins. Ignored under sudo or setuid "
                 "unless CUDATRACER_ALLOW_ENV_PLUGIN_PATH=1."),
            ".TP", "\\fBCUDA_HOME\\fR",
            roff("Where the CUDA toolkit is, for a runtime that no process maps yet."),
            ".SH SIGNALS",
            ".TP", "\\fBSIGINT\\fR, \\fBSIGTERM\\fR",
            roff("Stop tracing: every record read, every output file closed complete, the report "
                 "printed."),
            ".TP", "\\fBSIGHUP\\fR",
            roff("With --daemon: read the config again and start a new session with it (a config "
                 "with a bad value is refused, said with its file and line, and the running session "
                 "goes on); the new session continues the files the one before wrote, never empties "
                 "them. Otherwise as SIGTERM."),
            ".TP", "\\fBSIGUSR1\\fR, \\fBSIGUSR2\\fR",
            roff("Pause recording, and resume it. While paused, calls that begin are not recorded "
                 "(nor counted as lost); the probes stay, so a resume is immediate. "
                 "[tracer] start_paused starts paused."),
            ".SH EXIT STATUS",
            roff("With a command: the command's exit status. Otherwise 0 on success, 1 when "
                 "tracing failed, 2 for a usage or config error."),
            ".SH PRIVILEGES",
            roff("cudatracer needs root, or CAP_BPF and CAP_PERFMON, and a kernel with BTF and "
                 "uprobes. Running privileged, it refuses plugins and config files that others "
                 "than root could change."),
            ".SH EXAMPLES",
            ".nf", roff("cudatracer -- ./app                      trace a command"),
            roff("cudatracer -p 4242                       trace a running process"),
            roff("cudatracer -o jsonl:/tmp/calls.jsonl -- ./app"),
            roff("cudatracer -C tracer.mode=aggregate -- ./app"), ".fi",
            ".SH SEE ALSO", "\\fBcudatracer.ini\\fR(5)"]
    return "\n".join(out) + "\n"


def split_row(row):
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def page5(tracer, version, a):
    md = run(tracer, "--config-help=markdown").splitlines()
    out = ['.TH CUDATRACER.INI 5 "%s" "cudatracer %s" "File Formats"' % (DATE, version),
           ".SH NAME", "cudatracer.ini \\- configuration file of cudatracer(1)",
           ".SH SYNOPSIS", "\\fI%s\\fR" % roff(a.system_config),
           ".SH DESCRIPTION",
           roff("An INI file: [section] headers, key = value lines, comments starting with ; "
                "or #, and the rest of a line from a blank and ; or #. cudatracer(1) reads the system config when present, or the file given "
                "with -c; -C SECTION.KEY=VALUE sets one key from the command line. Sizes take "
                "K, M and G; durations ns, us, ms and s (a bare number is us); lists are "
                "comma-separated."),
           ".PP"]
    header = None
    # The document's title and its note on how it is made: this page has its own.
    first = next((i for i, line in enumerate(md) if line.startswith("## ")), len(md))
    for line in md[first:]:
        if line.startswith("## "):
            out += ['.SH "%s"' % roff(line[3:].strip())]
        elif line.startswith("### "):
            out += ['.SS "%s"' % roff(line[4:].strip())]
        elif line.startswith("|"):
            cells = split_row(line)
            if header is None:
                header = cells
            elif not all(set(c) <= set("-:") for c in cells):
                row = dict(zip(header, cells))
                default = "unset" if row["default"] == "(unset)" else row["default"]
                out += [".TP", "%s (%s; default: %s)" % (inline(row["key"]), roff(row["type"]),
                                                         inline(default)),
                        inline(row["meaning"])]
        elif line.strip():
            header = None
            out += [inline(line.strip()), ".PP"]
        else:
            header = None
    out += [".SH FILES", "\\fI%s\\fR" % roff(a.system_config),
            ".SH SEE ALSO", "\\fBcudatracer\\fR(1)"]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tracer")
    ap.add_argument("--page", choices=("1", "5"), required=True)
    ap.add_argument("--system-config", required=True)
    ap.add_argument("--plugin-dir", required=True)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    version = run(a.tracer, "--version").split()[1]
    text = (page1 if a.page == "1" else page5)(a.tracer, version, a)
    with open(a.output, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
