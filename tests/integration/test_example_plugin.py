# SPDX-License-Identifier: MIT
"""docs/plugins.md, followed as a plugin author would: out of tree.

Stages `cmake --install` of this build in a temporary folder (DESTDIR, so
nothing touches the system), copies plugins/example somewhere else, builds it
there with its own Makefile against the staged cudatracer.pc (found through
PKG_CONFIG_PATH alone: it is relocatable), header and gen_enum.py (a C compiler and pkg-config, nothing else: no clang, no bpftool,
no vmlinux.h), builds the toyrt library and toy_app, and
traces toy_app with the staged cudatracer and `--plugin /path/libct-example.so`.
The trace must show toy_app's seven calls with their values and error names;
toyLaunch has no `bytes`: only the example's BPF hook derives it.
Then the example is built again with its hook (`make HOOK=1`, clang and the
staged hook.bpf.h): the tracer links the hook into its engine, and the same
trace has toyLaunch's bytes, n * 4.
"""
import glob
import os
import shutil
import subprocess
import tempfile

import cttest

cttest.need_root()
for tool in ("make", "cc", "pkg-config"):
    if not shutil.which(tool):
        cttest.skip("%s is not installed" % tool)

tmp = tempfile.mkdtemp(prefix="ct-example.")
stage = os.path.join(tmp, "stage")
src = os.path.join(tmp, "example")


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    cttest.check(p.returncode == 0, "%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode,
                                                              p.stdout[-3000:], p.stderr[-3000:]))
    return p


env = dict(os.environ, DESTDIR=stage)
sh(["cmake", "--install", cttest.BUILD], env=env)
pcs = glob.glob(os.path.join(stage, "**", "pkgconfig", "cudatracer.pc"), recursive=True)
cttest.check(len(pcs) == 1, "staged install has %d cudatracer.pc files" % len(pcs))
# The .pc names its folders from where it lies: found through PKG_CONFIG_PATH
# alone (no PKG_CONFIG_SYSROOT_DIR), it points into the staged tree.
build_env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]), PKG_CONFIG_LIBDIR="")
build_env.pop("PKG_CONFIG_SYSROOT_DIR", None)
staged = os.path.realpath(sh(["pkg-config", "--variable=prefix", "cudatracer"], env=build_env).stdout.strip())
cttest.check(staged.startswith(os.path.realpath(stage) + "/"),
             "cudatracer.pc's prefix %s is not in the staged tree %s" % (staged, stage))
for f in ("include/cudatracer/plugin.h", "include/cudatracer/hook.bpf.h", "share/cudatracer/gen_enum.py"):
    cttest.check(os.path.exists(os.path.join(staged, f)),
                 "cmake --install did not install %s, which docs/plugins.md promises" % f)
with open(pcs[0]) as pc:
    cttest.check("gen_enum=" in pc.read(), "cudatracer.pc has no gen_enum variable")
tracers = glob.glob(os.path.join(stage, "**", "bin", "cudatracer"), recursive=True)
cttest.check(len(tracers) == 1, "staged install has %d cudatracer binaries" % len(tracers))

# The example, alone in a folder of its own, built against the staged files only.
shutil.copytree(os.path.join(cttest.SOURCE, "plugins", "example"), src)
# PATH without clang and bpftool: the plugin is tables, built by a C compiler alone.
bare = os.path.join(tmp, "bin")
os.mkdir(bare)
for tool in ("make", "cc", "pkg-config", "python3", "as", "ld"):
    where = shutil.which(tool)
    if where:
        os.symlink(where, os.path.join(bare, tool))
build_env["PATH"] = bare
sh(["make", "-C", src], env=build_env)
sh(["make", "-C", src, "demo"], env=build_env)
plugin = os.path.join(src, "libct-example.so")

cttest.TRACER = tracers[0]


def check_trace(trace, launch_bytes):
    """toy_app's eight calls, toyLaunch's bytes as given; the last from a row
    generated from toyrt.h (gen_apis.py), its enum named from the header."""
    cttest.check(trace.rc == 0, "tracer exit %d" % trace.rc, trace)
    cttest.check("toy_app: dev=" in trace.stdout and " ok" in trace.stdout,
                 "toy_app did not run as expected:\n" + trace.stdout, trace)

    calls = trace.calls(plugin="example")
    got = [e["api"] for e in calls]
    want = ["toyMalloc", "toyMalloc", "toyMemcpy", "toyLaunch", "toyLaunch", "toyMemcpy", "toyFree", "toySetLimit"]
    cttest.check(got == want, "example calls:\n got  %s\n want %s" % (got, want), trace)

    dev = calls[0]["args"]["ptr"]
    cttest.check(dev.startswith("0x") and dev != "0x0", "toyMalloc returned %r" % dev, trace)
    host = calls[2]["args"]["src"]
    expected = [
        ("toySuccess", {"ptr": dev, "size": 256}),
        ("toyErrorInvalidValue", {"ptr": "0x0", "size": 0}),
        ("toySuccess", {"dst": dev, "src": host, "size": 256}),
        ("toySuccess", {"name": "scale", "data": dev, "n": 64, "bytes": launch_bytes}),
        ("toyErrorKernelNotFound", {"name": "no_such_kernel", "data": dev, "n": 64, "bytes": launch_bytes}),
        ("toySuccess", {"dst": host, "src": dev, "size": 256}),
        ("toySuccess", {"ptr": dev}),
        ("toySuccess", {"limit": "toyLimitHeap", "value": 4096}),
    ]
    if launch_bytes is None:  # the table alone has no such field
        for _, args in expected:
            args.pop("bytes", None)
    values = {"toySuccess": 0, "toyErrorInvalidValue": 1, "toyErrorKernelNotFound": 3}
    for ev, (result, args) in zip(calls, expected):
        cttest.check(ev["result_name"] == result and ev["result"] == values[result]
                     and ev["error"] == (result != "toySuccess"),
                     "%s: result %s %s" % (ev["api"], ev["result"], ev["result_name"]), trace)
        cttest.check(ev["args"] == args, "%s args:\n got  %s\n want %s" % (ev["api"], ev["args"], args),
                     trace)
        cttest.check(ev["comm"] == "toy_app", "%s: comm %r" % (ev["api"], ev["comm"]), trace)


# Tables only: no field the hook would fill, never a made-up value.
trace = cttest.run(["--plugin", plugin, "-v"], command=[os.path.join(src, "toy_app")])
check_trace(trace, None)
cttest.check("BPF hook" not in trace.stderr, "a hook without one:\n" + trace.stderr, trace)

# With its BPF hook: clang and libbpf's headers are needed now.
if not shutil.which("clang") or not os.path.exists("/usr/include/bpf/bpf_helpers.h"):
    cttest.skip("clang or libbpf's bpf_helpers.h is not installed: the example's hook cannot be built")
# `make clean` needs no pkg-config and no cudatracer.pc.
no_pc = os.path.join(tmp, "bin-clean")
os.mkdir(no_pc)
for tool in ("make", "rm"):
    os.symlink(shutil.which(tool), os.path.join(no_pc, tool))
clean_env = dict(build_env, PATH=no_pc)
clean_env.pop("PKG_CONFIG_PATH")
sh(["make", "-C", src, "clean"], env=clean_env)
cttest.check(not os.path.exists(plugin), "make clean left %s" % plugin)
sh(["make", "-C", src, "HOOK=1"], env=dict(build_env, PATH=os.environ["PATH"]))
sh(["make", "-C", src, "demo"], env=build_env)
trace = cttest.run(["--plugin", plugin, "-v"], command=[os.path.join(src, "toy_app")])
check_trace(trace, 64 * 4)
cttest.check("plugin example: its BPF hook runs in the capture engine" in trace.stderr,
             "the hook was not said to run:\n" + trace.stderr, trace)

shutil.rmtree(tmp)
print("test_example_plugin: out-of-tree plugin built from the installed files traced toyrt")
