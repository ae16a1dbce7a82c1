#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The default config, conf/cudatracer.ini, from `cudatracer --config-help`.

Every key of the key tables is there with its default, commented out, so the
file changes nothing until a line is uncommented: installed as the system
config, it must not change what cudatracer does. Comments are wrapped to
fit inih's line limit; [sink.NAME] headers are commented out with their keys
(a sink section with no type would be refused).

    gen_config.py CUDATRACER [-o OUT]
"""
import argparse
import re
import subprocess
import sys
import textwrap

HEADER = """\
; SPDX-License-Identifier: MIT
; cudatracer's default configuration, generated from the key tables by
; `cudatracer --config-help` (packaging/gen_config.py; a test fails when it
; is out of date). Installed as the system config, read when present
; (cudatracer(1), FILES); -c FILE reads another instead, --no-config none.
; Every key is listed with its default, commented out: uncomment a line to
; change it. Command-line options override what is set here.
"""
WIDTH = 79  # inih reads at most 200 bytes a line: stay far below


def convert(text):
    out = []
    for line in text.splitlines():
        s = line.rstrip()
        if not s:
            out.append("")
        elif s[0] in "#;":
            prefix = re.match(r"[#;]+\s*", s).group(0)
            body = s[len(prefix):]
            if re.fullmatch(r"\w+ =( \S*)?", body.rstrip()):  # an unset key, already commented
                out.append(";" + body.rstrip())
                continue
            if len(s) <= WIDTH:  # --config-help wraps its own comments
                out.append(s)
                continue
            out.extend(textwrap.wrap(body, WIDTH - len(prefix), initial_indent=prefix,
                                     subsequent_indent=prefix, break_on_hyphens=False) or [prefix.rstrip()])
        elif s.startswith("["):
            out.append(s if "." not in s else ";" + s)
        elif "=" in s:
            key, val = (p.strip() for p in s.split("=", 1))
            out.append(";%s = %s" % (key, val) if val else ";%s =" % key)
        else:
            sys.exit("gen_config: cannot place this line of --config-help: %r" % line)
    while out and not out[0]:
        out.pop(0)
    return HEADER + "\n" + "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tracer", help="the cudatracer binary")
    ap.add_argument("-o", "--output", help="file to write (default: stdout)")
    args = ap.parse_args()
    text = subprocess.run([args.tracer, "--config-help"], check=True, capture_output=True,
                          text=True).stdout
    ini = convert(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(ini)
    else:
        sys.stdout.write(ini)


if __name__ == "__main__":
    main()
