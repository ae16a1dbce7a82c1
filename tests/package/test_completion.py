# SPDX-License-Identifier: MIT
"""The bash completion (made at build time from packaging/bash-completion/cudatracer.in),
driven as bash drives it.

bash sources the file; `complete -p cudatracer` must name its function;
then COMP_WORDS/COMP_CWORD (split as readline splits, at : and =) are set
and the function called, and COMPREPLY is compared with what the build's
cudatracer says: its options (--help), its plugins (--list-plugins), its
sink types and choices (--config-help=markdown).
"""
import os
import re
import shlex
import subprocess
import tempfile

import cttest

completion = os.path.join(cttest.BUILD, "packaging", "bash-completion", "cudatracer")
tmp = tempfile.mkdtemp(prefix="ct-completion.")
for f in ("trace-a.jsonl", "trace-b.jsonl"):
    open(os.path.join(tmp, f), "w").close()


def complete(*words, cword=None, path=None):
    """COMPREPLY for the words typed, the cursor in the last (or cword); path:
    PATH, by default with the build's cudatracer first."""
    cword = len(words) - 1 if cword is None else cword
    script = "\n".join([
        "source %s || exit 3" % shlex.quote(completion),
        "COMP_WORDS=(%s)" % " ".join(shlex.quote(w) for w in words),
        "COMP_CWORD=%d" % cword,
        "COMP_LINE=%s" % shlex.quote(" ".join(words)),
        "COMP_POINT=${#COMP_LINE}",
        "_cudatracer",
        'printf "%s\\n" "${COMPREPLY[@]}"',
    ])
    env = dict(os.environ, PATH=path or cttest.BUILD + ":" + os.environ["PATH"])
    p = subprocess.run(["/bin/bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                       env=env, cwd=tmp)
    cttest.check(p.returncode == 0 and not p.stderr, "completing %r: exit %d\n%s" % (words, p.returncode, p.stderr))
    return sorted(w for w in p.stdout.split("\n") if w)


def tracer(*args):
    return subprocess.run([cttest.TRACER, *args], capture_output=True, text=True).stdout


p = subprocess.run(["bash", "--norc", "-c", "source %s && complete -p cudatracer" % shlex.quote(completion)],
                   capture_output=True, text=True)
cttest.check(p.stdout.strip() == "complete -F _cudatracer cudatracer",
             "complete -p cudatracer: %r %s" % (p.stdout, p.stderr))

# Every long option, and only options.
longs = sorted(set(re.findall(r"^ +(?:-\w, )?(--[\w-]+)", tracer("--help"), re.M)))
cttest.check(len(longs) >= 20, "--help shows only %d options" % len(longs))
got = complete("cudatracer", "--")
cttest.check(got == longs, "cudatracer --<TAB>:\n got  %s\n want %s" % (got, longs))
cttest.check(complete("cudatracer", "--list-") == ["--list-apis", "--list-plugins"], "--list-<TAB>")
cttest.check(complete("cudatracer", "--no") == ["--no-config"], "--no<TAB>")

# Plugin names, also as the next item of a comma list.
plugins = sorted(re.findall(r"^(\w+) +\d", tracer("--list-plugins"), re.M))
cttest.check({"cudart", "cuda", "hip", "opencl"} <= set(plugins), "--list-plugins: %s" % plugins)
cttest.check(complete("cudatracer", "--plugin", "") == plugins, "--plugin <TAB>: %s" % complete("cudatracer", "--plugin", ""))
cttest.check(complete("cudatracer", "-P", "cu") == ["cuda", "cudart"], "-P cu<TAB>")
cttest.check(complete("cudatracer", "-P", "cudart,h") == ["cudart,hip"], "-P cudart,h<TAB>")

# Sink types; after TYPE: a path (readline replaces what follows the colon).
types = sorted(re.findall(r"^### type = (\w+)$", tracer("--config-help=markdown"), re.M))
cttest.check({"text", "jsonl", "summary", "chrome", "csv", "memory", "html"} <= set(types), "sink types %s" % types)
cttest.check(complete("cudatracer", "-o", "") == types, "-o <TAB>: %s" % complete("cudatracer", "-o", ""))
cttest.check(complete("cudatracer", "--output", "js") == ["jsonl"], "--output js<TAB>")
cttest.check(complete("cudatracer", "-o", "jsonl", ":", "trace-") == ["trace-a.jsonl", "trace-b.jsonl"],
             "-o jsonl:trace-<TAB>: %s" % complete("cudatracer", "-o", "jsonl", ":", "trace-"))

# Choices from the key table; --config-help's value only after "=".
cttest.check(complete("cudatracer", "--profile", "") == ["default", "full"], "--profile <TAB>")
cttest.check(complete("cudatracer", "--attach", "") == ["auto", "multi", "session", "single"], "--attach <TAB>")
cttest.check(complete("cudatracer", "--config-help", "=", "") == ["ini", "markdown"], "--config-help=<TAB>")
cttest.check(complete("cudatracer", "--config-help", "=", "m") == ["markdown"], "--config-help=m<TAB>")
cttest.check(complete("cudatracer", "-C", "tracer.ring") == ["tracer.ringbuf_size="], "-C tracer.ring<TAB>")
cttest.check("filter.min_duration=" in complete("cudatracer", "-C", "filter."), "-C filter.<TAB>")

# Files for -c; a command after "--", then its own arguments as files.
cttest.check(complete("cudatracer", "-c", "trace-a") == ["trace-a.jsonl"], "-c trace-a<TAB>")
cttest.check("bash" in complete("cudatracer", "--", "bas"), "-- bas<TAB>: %s" % complete("cudatracer", "--", "bas"))
cttest.check(complete("cudatracer", "--", "./app", "--plugin", "trace-b") == ["trace-b.jsonl"],
             "after --, the command's words are files")
cttest.check(complete("cudatracer", "me") == ["merge"], "me<TAB>")
cttest.check(complete("cudatracer", "") == ["capture", "merge", "report"], "cudatracer <TAB>: %s" %
             complete("cudatracer", ""))
cttest.check("--duration" in complete("cudatracer", "capture", "--"), "capture --<TAB>")
cttest.check(complete("cudatracer", "rep") == ["report"], "rep<TAB>")
cttest.check(complete("cudatracer", "report", "trace-") == ["trace-a.jsonl", "trace-b.jsonl"], "report trace-<TAB>")
report_opts = sorted(set(re.findall(r"^ +(?:-\w, )?(--[\w-]+)", tracer("report", "--help"), re.M)))
cttest.check({"--output", "--set", "--verbose"} <= set(report_opts) and
             complete("cudatracer", "report", "t.jsonl", "--") == report_opts,
             "report t.jsonl --<TAB>: %s, want %s" % (complete("cudatracer", "report", "t.jsonl", "--"), report_opts))
cttest.check("--tolerance" in complete("cudatracer", "merge", "a.jsonl", "--"), "merge a.jsonl --<TAB>")
# Nothing is run at TAB: with no cudatracer on PATH, the same words.
cttest.check(complete("cudatracer", "--", path="/usr/bin:/bin") == longs and
             complete("cudatracer", "-P", "cu", path="/usr/bin:/bin") == ["cuda", "cudart"],
             "with no binary on PATH: %s" % complete("cudatracer", "--", path="/usr/bin:/bin"))
cttest.check(complete("cudatracer", "merge", "trace-") == ["trace-a.jsonl", "trace-b.jsonl"], "merge trace-<TAB>")
print("test_completion: %d options, %d plugins, %d sink types completed" % (len(longs), len(plugins), len(types)))
