#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A list option given twice adds up, as one comma-separated value does:
`--plugin cudart --plugin cuda` traces both layers of launch_layers (the
stand-in runtime and driver), as `--plugin cudart,cuda` does (before: the
last one alone was kept, and every runtime call went untraced, unsaid). A
plugin named twice that way is loaded once, and said; --include and
--exclude add up the same way. A -C between two of them still replaces
what came before it, as a later setting of a key does.
"""
import os
import subprocess

import cttest as t

FAKE_DIR = os.path.join(t.PROGRAMS, "fakegpu")


def apis(tr, plugin):
    return {e["api"] for e in tr.events if e.get("plugin") == plugin and "api" in e}


def list_apis(args):
    p = subprocess.run([t.TRACER, "--no-config"] + args + ["--list-apis"], capture_output=True, text=True,
                       timeout=60)
    t.check(p.returncode == 0, "%s --list-apis: exit %d\n%s" % (args, p.returncode, p.stderr))
    plugins = [line.split()[2] for line in p.stdout.splitlines() if line.startswith("# plugin ")]
    traced = {line.split()[0] for line in p.stdout.splitlines() if line.split()[1:2] == ["traced"]}
    return plugins, traced, p.stderr


def main():
    t.need_root()
    joined = t.run(["--plugin", "cudart,cuda"], command=[t.program("launch_layers"), FAKE_DIR])
    twice = t.run(["--plugin", "cudart", "--plugin", "cuda"], command=[t.program("launch_layers"), FAKE_DIR])
    for tr in (joined, twice):
        t.check(tr.rc == 0 and tr.stdout == "0 0 0 1 0 0\n", "launch_layers: exit %d, %r" % (tr.rc, tr.stdout), tr)
        t.check("cudaLaunchKernel" in apis(tr, "cudart") and "cuLaunchKernel" in apis(tr, "cuda"),
                "not both layers traced: cudart %s, cuda %s" % (sorted(apis(tr, "cudart")), sorted(apis(tr, "cuda"))),
                tr)
    t.check([(e.get("plugin"), e.get("api")) for e in twice.events] ==
            [(e.get("plugin"), e.get("api")) for e in joined.events],
            "-P cudart -P cuda and -P cudart,cuda traced different calls", twice)

    plugins, _, err = list_apis(["-P", "cudart", "-P", "cuda"])
    t.check(plugins == ["cudart", "cuda"], "-P cudart -P cuda loaded %s" % plugins)
    plugins, _, err = list_apis(["-P", "cudart", "--plugin", "cudart"])
    t.check(plugins == ["cudart"] and "plugin 'cudart' is named twice" in err and "loaded once" in err,
            "-P cudart --plugin cudart loaded %s, said %r" % (plugins, err))
    plugins, _, _ = list_apis(["-P", "cuda", "-C", "tracer.plugins=hip", "-P", "cudart"])
    t.check(plugins == ["cudart"], "-P cuda -C tracer.plugins=hip -P cudart loaded %s" % plugins)

    _, traced, _ = list_apis(["-P", "cudart", "--include", "cudaMalloc", "--include", "cudaFree,cudaMemset"])
    t.check(traced == {"cudaMalloc", "cudaFree", "cudaMemset"}, "--include twice traced %s" % sorted(traced))
    _, traced, _ = list_apis(["-P", "cudart", "--include", "cudaMalloc*", "--exclude", "cudaMallocHost",
                              "--exclude", "cudaMallocAsync*"])
    t.check("cudaMalloc" in traced and not traced & {"cudaMallocHost", "cudaMallocAsync", "cudaMallocAsync_ptsz"},
            "--exclude twice traced %s" % sorted(traced))
    print("ok: repeated list options add up")


if __name__ == "__main__":
    main()
