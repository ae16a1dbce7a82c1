# SPDX-License-Identifier: MIT
"""A plugin named twice is loaded once, with a warning that names it: in one
list (-P cudart,cudart), or by name and by path (-P
cudart,/path/libct-cudart.so). Each call
of the real libcudart is recorded once, as with -P cudart alone, the run
says it traces one cudart (not a second that found no library), and
--list-apis lists each API once."""
import os
import re
import subprocess
import cttest as t

CALLS = t.program("cudart_calls_shared")
PLUGIN = os.path.join(t.BUILD, "plugins", "libct-cudart.so")


def warned(stderr, second):
    want = "warning: plugin 'cudart' is named twice (%s, then %s): loaded once" % (PLUGIN, second)
    return [l for l in stderr.splitlines() if l.endswith(want)]


def main():
    t.need_root()
    once = t.run(["-P", "cudart"], command=[CALLS])
    t.check(once.rc == 0 and once.calls(), "-P cudart: rc %d, %d calls" % (once.rc, len(once.calls())), once)
    want = [(e["api"], e.get("result_name")) for e in once.calls()]
    for args, second in ((["-P", "cudart,cudart"], "cudart"),
                         (["-P", "cudart," + PLUGIN], PLUGIN)):
        tr = t.run(args, command=[CALLS])
        got = [(e["api"], e.get("result_name")) for e in tr.calls()]
        t.check(tr.rc == 0 and got == want, "%s: %d calls, not the %d of -P cudart:\n%s" %
                (" ".join(args), len(got), len(want), got), tr)
        t.check(len(warned(tr.stderr, second)) == 1, "%s: no one warning naming the duplicate" % " ".join(args), tr)
        t.check(re.search(r"Tracing \d+ APIs of cudart in ", tr.stderr) and "no process loaded a library" not in tr.stderr,
                "%s: not traced as one plugin" % " ".join(args), tr)

    p = subprocess.run([t.TRACER, "-P", "cudart", "--list-apis"], capture_output=True, text=True, timeout=60)
    twice = subprocess.run([t.TRACER, "-P", "cudart,cudart", "--list-apis"], capture_output=True, text=True,
                           timeout=60)
    t.check(p.returncode == 0 and twice.returncode == 0 and twice.stdout == p.stdout and p.stdout,
            "--list-apis with cudart named twice differs:\n%s" % twice.stdout[:3000])
    t.check(len(warned(twice.stderr, "cudart")) == 1, "--list-apis: no warning:\n" + twice.stderr)
    print("ok")


main()
