# SPDX-License-Identifier: MIT
"""The tracer refuses a broken plugin table with its row and field named, and
never crashes on one: a row with an argument of 3 bytes, a descriptor from a
"newer" cudatracer whose unknown tail is in use, a row whose symbol is a wild
pointer (tests/unit/bad_plugin.c). The same refusal with a good plugin next
to the bad one, and --list-plugins over a folder of bad plugins lists none of
them as loaded and says why for each."""
import os
import subprocess
import cttest as t

BAD = os.path.join(t.BUILD, "tests", "badplugins")
with open(os.path.join(t.BUILD, "CMakeCache.txt")) as f:
    VERSION = [l.split("=", 1)[1].strip() for l in f if l.startswith("CMAKE_PROJECT_VERSION:")][0]

WANT = {
    "row": "plugin bad: row 1 (badFree): arg 0 (ptr): size 3, want 1, 2, 4 or 8",
    "tail": "its descriptor is 128 bytes, and byte 122, past the 120 this cudatracer (%s) knows, "
            "is not zero: it needs a newer cudatracer" % VERSION,
    "wild": "plugin bad: row 1: symbol points to unreadable memory",
}


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([t.TRACER] + args, capture_output=True, text=True, timeout=60, env=e)


def main():
    for name, want in WANT.items():
        path = os.path.join(BAD, "libct-bad%s.so" % name)
        line = "cudatracer: error: cannot load plugin %s: %s" % (path, want)
        for args in (["--plugin", path, "--list-apis"], ["--plugin", "cudart", "--plugin", path, "--list-apis"]):
            p = run(args)
            # 1: refused; a crash would be a negative return code (the signal).
            t.check(p.returncode == 1, "%s: exit %d\n%s" % (args, p.returncode, p.stderr))
            t.check(line in p.stderr.splitlines(), "%s:\n got  %s\n want %s" % (args, p.stderr, line))
            t.check("cudaMalloc" not in p.stdout, "%s: listed APIs though a plugin was refused" % args)

    p = run(["--list-plugins"], env={"CUDATRACER_PLUGIN_PATH": BAD})
    t.check(p.returncode == 0, "--list-plugins exit %d\n%s" % (p.returncode, p.stderr))
    # Listed as not loaded, each with its reason, on stdout; none in the table.
    table, failed = p.stdout.split("\n\nnot loaded (")[0], p.stdout.split("\n\nnot loaded (")[1]
    for name, want in WANT.items():
        t.check("%s: %s" % (os.path.join(BAD, "libct-bad%s.so" % name), want) in failed,
                "--list-plugins did not say why libct-bad%s.so was left out:\n%s" % (name, p.stdout))
    t.check(BAD not in table, "--list-plugins listed a broken plugin:\n" + p.stdout)
    t.check(p.stderr == "", "--list-plugins said more on stderr:\n" + p.stderr)
    print("ok")


main()
