# SPDX-License-Identifier: MIT
"""Every BPF program passes this kernel's verifier: the watcher, with one to
eight distinct plugins loaded (its library-name patterns loop once per
plugin library; test plugins of one API make up the eight), and each plugin's capture engine in its three attach modes (one
uprobe session link per file, the default; one uprobe_multi link per file
and direction, for kernels before 6.13; or one link per symbol, for kernels
before 6.6), events and aggregate, then attached for real to a library of that runtime when the
machine has one (in single mode, to the small stand-in runtime only: each
link takes about 0.1 s to attach and detach). docs/reliability.md lists the kernels and features."""
import os
import platform
import re
import subprocess
import cttest as t

PLUGINS = ["cudart", "cuda", "hip", "opencl"]
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
LIBS = {
    "cudart": [os.path.join(CUDA, "lib64", "libcudart.so")],
    "cuda": [os.path.join(CUDA, "lib64", "stubs", "libcuda.so")],
    "hip": ["/usr/lib/x86_64-linux-gnu/libamdhip64.so", "/opt/rocm/lib/libamdhip64.so"],
    "opencl": ["/usr/lib/x86_64-linux-gnu/libOpenCL.so.1"],
}
FAULT_LIB = os.path.join(t.PROGRAMS, "fault", "lib", "libcudart.so.98")


def trace(args):
    p = subprocess.run([t.TRACER, "-v"] + args + ["--", "true"], capture_output=True, text=True, timeout=120)
    return p, p.returncode == 0 and "failed" not in p.stderr and "Ctrl-C to end." in p.stderr


def main():
    t.need_root()
    have = [n for n in PLUGINS if os.path.exists(os.path.join(t.BUILD, "plugins", "libct-%s.so" % n))]
    if not have:
        t.skip("no plugin was built")
    print("kernel %s, BTF %s" % (platform.release(), os.path.exists("/sys/kernel/btf/vmlinux")))
    # The watcher with 1..8 plugins, so 1..8 patterns: the runtimes built, then
    # test plugins of one API each (a plugin named twice is loaded once).
    watch = [os.path.join(t.PROGRAMS, "plugins", "libct-watch%d.so" % i) for i in range(1, 8)]
    t.check(all(os.path.exists(w) for w in watch), "test plugins not built: %s" % watch)
    names = (have + watch)[:8]
    for n in range(1, 9):
        p, ok = trace(["--plugin", ",".join(names[:n])])
        t.check(ok, "%d plugins (%s): rc %d\n%s" % (n, ",".join(names[:n]), p.returncode, p.stderr[-3000:]))
        # Each one's library watched for, and not found: said once per plugin.
        unseen = set(re.findall(r"no process loaded a library of plugin (\S+) ", p.stderr))
        t.check(len(unseen) == n, "%d plugins, %d loaded:\n%s" % (n, len(unseen), p.stderr[-3000:]))
    for name in have:
        for mode, agg in (("session", False), ("session", True), ("multi", False), ("multi", True),
                          ("single", False)):
            args = ["--plugin", name, "--attach", mode] + (["-C", "tracer.mode=aggregate"] if agg else [])
            lib = next((l for l in LIBS[name] if os.path.exists(l)), None)
            if mode == "single":
                # About 0.1 s a link here: attach to the small stand-in runtime only.
                lib = FAULT_LIB if name == "cudart" and os.path.exists(FAULT_LIB) else None
            if lib:
                args += ["--lib", lib]
            p, ok = trace(args)
            t.check(ok, "%s, %s%s: rc %d\n%s" % (name, mode, " aggregate" if agg else "", p.returncode,
                                                p.stderr[-3000:]))
            if lib:
                how = {"session": "uprobe session", "multi": "uprobe_multi", "single": "one link per symbol"}[mode]
                t.check("probes on %s (%s)" % (lib, how) in p.stderr, "%s, %s: not attached:\n%s" % (name, mode, p.stderr))
        # auto picks session programs where the kernel has them, without a fallback message.
        p, ok = trace(["--plugin", name])
        t.check(ok and "falling back" not in p.stderr and "cannot load uprobe session" not in p.stderr,
                "%s, auto: %s" % (name, p.stderr[-2000:]))
    print("ok")


main()
