# SPDX-License-Identifier: MIT
"""`cmake --install` gives a tree that works where it lies.

Installed with --prefix into a temporary folder, and then moved elsewhere:
the tree's own binary finds the tree's plugins (through the libdir it was
built with, lib/x86_64-linux-gnu on Debian) and traces the sample, and
--engine inproc and --gpu-activity find the libraries they put into the
command in that libdir too; its
cudatracer.pc, found by PKG_CONFIG_PATH alone, points into the tree; the
system config lands in PREFIX/etc, never in the host's /etc. With DESTDIR
(a package build), the config goes where the binary reads it, under DESTDIR.
"""
import os
import re
import shutil
import subprocess
import tempfile

import cttest
import pkgtest

cttest.need_root()
sample = cttest.program("sample_static")
prefix, layout, system = pkgtest.install_layout()
tmp = tempfile.mkdtemp(prefix="ct-install.")


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    cttest.check(p.returncode == 0, "%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    return p.stdout


# --prefix: everything under it, the system config too.
host_config = os.path.exists(system)
tree = os.path.join(tmp, "tree")
sh(["cmake", "--install", cttest.BUILD, "--prefix", tree])
for what, rel in layout.items():
    cttest.check(os.path.exists(os.path.join(tree, rel)), "--prefix install has no %s (%s)" % (what, rel))
cttest.check(os.path.exists(os.path.join(tree, "etc", "cudatracer", "cudatracer.ini")),
             "--prefix install put no config in PREFIX/etc/cudatracer")
cttest.check(os.path.exists(system) == host_config, "--prefix install wrote %s on the host" % system)

# Moved: nothing in it names where it was installed.
moved = os.path.join(tmp, "moved", "elsewhere")
os.makedirs(os.path.dirname(moved))
os.rename(tree, moved)
binary = os.path.join(moved, layout["binary"])
listing = sh([binary, "--list-plugins"])
plugdir = os.path.dirname(os.path.join(moved, layout["plugin"]))
for name in ("cudart", "cuda", "hip", "opencl", "nccl"):
    rows = re.findall(r"^%s .* (\S+)$" % name, listing, re.M)
    cttest.check(rows and os.path.dirname(rows[0]) == plugdir,
                 "the moved tree's binary finds %s at %s, not in %s:\n%s" % (name, rows, plugdir, listing))
cttest.check(listing.count(plugdir + "/libct-cudart.so") == 1, "the moved tree lists cudart twice:\n" + listing)
want = pkgtest.reference_trace(sample)
cttest.TRACER = binary
trace = cttest.run(["--plugin", "cudart"], command=[sample])
pkgtest.check_sample(trace.events, "the moved tree's tracer", trace)
got = [(e["api"], e["result_name"]) for e in trace.events]
cttest.check(got == want, "the moved tree's trace differs from the build tree's:\n got  %s\n want %s" % (got, want), trace)

# --engine inproc and --gpu-activity take the libraries they put into the
# command from the moved tree's libdir, where it installed them.
libdir = os.path.dirname(os.path.join(moved, layout["inject"]))
loop = cttest.program("cudart_loop_shared")
trace = cttest.run(["--no-config", "-v", "--engine", "inproc"], command=[loop, "3"])
cttest.check(trace.rc == 0 and len(trace.calls("cudaMemset")) == 3,
             "the moved tree's --engine inproc: exit %d, %d cudaMemset" % (trace.rc, len(trace.calls("cudaMemset"))), trace)
cttest.check(os.path.join(libdir, "libcudatracer-inproc.so") in trace.stderr,
             "the moved tree's --engine inproc does not preload %s/libcudatracer-inproc.so" % libdir, trace)
trace = cttest.run(["--no-config", "-v", "--plugin", "cudart", "--gpu-activity"], command=["/bin/true"])
cttest.check(trace.rc == 0 and os.path.join(libdir, "libcudatracer-inject.so") in trace.stderr,
             "the moved tree's --gpu-activity does not inject %s/libcudatracer-inject.so" % libdir, trace)

# Its cudatracer.pc, by PKG_CONFIG_PATH alone.
env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(os.path.join(moved, layout["pc"])), PKG_CONFIG_LIBDIR="")
env.pop("PKG_CONFIG_SYSROOT_DIR", None)
for var, rel in (("includedir", "include"), ("plugindir", os.path.dirname(layout["plugin"])),
                 ("gen_enum", layout["gen_enum"]), ("gen_apis", layout["gen_apis"])):
    got = os.path.realpath(sh(["pkg-config", "--variable=" + var, "cudatracer"], env=env).strip())
    cttest.check(got == os.path.join(moved, rel), "cudatracer.pc's %s is %s, not %s" % (var, got, os.path.join(moved, rel)))
cflags = sh(["pkg-config", "--cflags", "cudatracer"], env=env)
inc = re.search(r"-I(\S+)", cflags).group(1)
cttest.check(os.path.exists(os.path.join(inc, "cudatracer", "plugin.h")), "pkg-config --cflags: %s" % cflags)

# DESTDIR: the layout of the prefix the binary was built for, under DESTDIR.
stage = os.path.join(tmp, "stage")
sh(["cmake", "--install", cttest.BUILD], env=dict(os.environ, DESTDIR=stage))
for what, rel in layout.items():
    cttest.check(os.path.exists(stage + os.path.join(prefix, rel)), "DESTDIR install has no %s" % what)
cttest.check(os.path.exists(stage + system), "DESTDIR install put no config at DESTDIR%s" % system)
cttest.check(os.path.exists(system) == host_config, "DESTDIR install wrote %s on the host" % system)
shutil.rmtree(tmp)
print("test_install_tree: a --prefix tree moved elsewhere traced the sample with its own plugins")
