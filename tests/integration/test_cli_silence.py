# SPDX-License-Identifier: MIT
"""A run that traces nothing says why: no process loaded the plugin's
runtime; an --include or --exclude pattern that names no API is warned by
name, and refused when nothing at all would be traced; --stacks=WORD that
is neither a kind of call nor an API is refused with the accepted words."""
import subprocess

import cttest as t

NOTHING = "cudatracer: warning: no process loaded a library of plugin %s (%s): nothing to trace\n"


def run(args):
    return subprocess.run([t.TRACER, "--no-config"] + args, capture_output=True, text=True, timeout=60)


def main():
    t.need_root()
    prog = t.program("cudart_calls_shared")

    p = run(["--", "/bin/true"])
    t.check(p.returncode == 0 and NOTHING % ("cudart", "libcudart.so") in p.stderr, p.stderr)
    p = run(["-P", "hip", "--", prog])
    t.check(p.returncode == 0 and NOTHING % ("hip", "libamdhip64.so") in p.stderr, p.stderr)
    # One plugin traced, one not: a note on the one, no "nothing to trace".
    p = run(["-P", "cudart,hip", "--", prog])
    t.check("cudatracer: no process loaded a library of plugin hip (libamdhip64.so): none of its calls traced\n"
            in p.stderr and "nothing to trace" not in p.stderr, p.stderr)
    p = run(["--", prog])
    t.check("no process loaded" not in p.stderr, p.stderr)

    p = run(["--include", "cudaMaloc", "--", prog])
    t.check(p.returncode == 1 and p.stderr ==
            "cudatracer: error: filter.include (--include): 'cudaMaloc' matches no API of the loaded plugins "
            "(--list-apis lists them)\n"
            "cudatracer: error: filter.include (--include) and filter.exclude (--exclude) leave no API of the "
            "loaded plugins to trace: nothing would be traced\n", p.stderr)
    p = run(["--include", "cudaMaloc,cudaMalloc", "--", prog])
    t.check(p.returncode == 0 and "cudatracer: warning: filter.include (--include): 'cudaMaloc' matches no API "
            "of the loaded plugins (--list-apis lists them)\n" in p.stderr, p.stderr)
    p = run(["--exclude", "cudaFrree", "--", prog])
    t.check(p.returncode == 0 and "warning: filter.exclude (--exclude): 'cudaFrree' matches no API" in p.stderr,
            p.stderr)

    p = run(["--stacks=bogus", "--", prog])
    t.check(p.returncode == 1 and p.stderr ==
            "cudatracer: error: stacks.apis (--stacks=APIS): 'bogus' is neither a kind of call (all, errors, "
            "alloc, free, launch, copy, set, sync) nor a glob that matches an API of the loaded plugins "
            "(--list-apis lists them)\n", p.stderr)
    p = run(["--stacks=alloc,cudaLaunch*", "--", prog])
    t.check(p.returncode == 0 and "stacks.apis" not in p.stderr, p.stderr)
    print("test_cli_silence: ok")


main()
