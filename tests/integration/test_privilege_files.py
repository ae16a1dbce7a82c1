# SPDX-License-Identifier: MIT
"""Running as root, cudatracer loads no plugin and reads no config file that
a user other than root could have written, as sudo does for sudoers: the
file, and every folder above it, must be owned by root (or by the user
running it) and not writable by group or others; a root-owned sticky folder
(/tmp) is allowed. Each refusal names the file or folder and the reason.
Symbolic links are followed to the real file before the check."""
import os
import shutil
import stat
import subprocess
import tempfile
import cttest as t

NOBODY = 65534


def run(args):
    return subprocess.run([t.TRACER] + args, capture_output=True, text=True, timeout=60)


def fresh_dir():
    # mkdtemp: mode 0700, owned by root, in the sticky /tmp: trusted.
    d = tempfile.mkdtemp(prefix="ctpriv.")
    os.chmod(d, 0o755)
    return d


def plugin_copy(d):
    p = os.path.join(d, "libct-cudart.so")
    shutil.copy(os.path.join(t.BUILD, "plugins", "libct-cudart.so"), p)
    os.chmod(p, 0o644)
    return p


def config_copy(d):
    p = os.path.join(d, "ct.ini")
    with open(p, "w") as f:
        f.write("[tracer]\nplugins = cudart\n")
    os.chmod(p, 0o644)
    return p


def expect_ok(args, what):
    p = run(args + ["--list-apis"])
    t.check(p.returncode == 0 and "cudaMalloc" in p.stdout, "%s: refused?\n%s" % (what, p.stderr))


def expect_refused(args, kind, path, why):
    p = run(args + ["--list-apis"])
    want = "cudatracer: error: refusing %s %s while running privileged: %s" % (kind, path, why)
    t.check(p.returncode != 0 and want in p.stderr.splitlines(),
            "want %r, got rc %d:\n%s" % (want, p.returncode, p.stderr))
    t.check("cudaMalloc" not in p.stdout, "%s was used although refused" % path)


def check(kind, make, use):
    """make(d) -> path of a good file in folder d; use(path) -> tracer args."""
    d = fresh_dir()
    f = make(d)
    expect_ok(use(f), kind + " in a root-only folder")

    os.chmod(f, 0o666)
    expect_refused(use(f), kind, f, "%s is writable by every user (chmod go-w %s)" % (f, f))
    os.chmod(f, 0o664)
    expect_refused(use(f), kind, f, "%s is writable by its group (chmod go-w %s)" % (f, f))
    os.chmod(f, 0o644)
    os.chown(f, NOBODY, NOBODY)
    expect_refused(use(f), kind, f, "%s is owned by uid %d, not root" % (f, NOBODY))
    os.chown(f, 0, 0)
    expect_ok(use(f), kind + " back to root's")

    # The folder: anyone could replace the file in it.
    os.chmod(d, 0o777)
    expect_refused(use(f), kind, f, "%s is writable by every user (chmod go-w %s)" % (d, d))
    os.chmod(d, 0o1777)  # sticky and root's, like /tmp: others cannot replace our file
    expect_ok(use(f), kind + " in a root-owned sticky folder")
    os.chmod(d, 0o755)
    os.chown(d, NOBODY, NOBODY)
    expect_refused(use(f), kind, f, "%s is owned by uid %d, not root" % (d, NOBODY))
    os.chown(d, 0, 0)

    # A link in a good folder to a file in a bad one: the real file is checked.
    bad = fresh_dir()
    real = make(bad)
    os.chmod(bad, 0o777)
    link = os.path.join(d, "link-" + os.path.basename(real))
    os.symlink(real, link)
    expect_refused(use(link), kind, link, "%s is writable by every user (chmod go-w %s)" % (bad, bad))
    shutil.rmtree(d)
    shutil.rmtree(bad)


def main():
    t.need_root()
    if not os.path.exists(os.path.join(t.BUILD, "plugins", "libct-cudart.so")):
        t.skip("the cudart plugin was not built")
    check("plugin", plugin_copy, lambda f: ["--plugin", f])
    check("config file", config_copy, lambda f: ["-c", f])
    # A plugin found by name on a configured plugin_path is checked the same way.
    d = fresh_dir()
    f = plugin_copy(d)
    os.chmod(f, 0o666)
    expect_refused(["-C", "tracer.plugin_path=" + d, "--plugin", "cudart"], "plugin", f,
                   "%s is writable by every user (chmod go-w %s)" % (f, f))
    shutil.rmtree(d)
    print("ok")


main()
