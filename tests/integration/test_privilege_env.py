# SPDX-License-Identifier: MIT
"""Plugin folders from the environment (CUDATRACER_PLUGIN_PATH) are used by a
plain run, ignored with a warning under sudo (SUDO_USER set) unless
CUDATRACER_ALLOW_ENV_PLUGIN_PATH is set, and always ignored when the binary
is setuid-root or has file capabilities (AT_SECURE) and is run by a user.
Such a run also refuses a plugin that the user owns: with CAP_BPF and
CAP_PERFMON from `setcap`, a user's own plugin would be the user's code
running with those capabilities."""
import os
import shutil
import subprocess
import tempfile
import cttest as t

NOBODY = 65534
WARN = "ignoring CUDATRACER_PLUGIN_PATH under sudo/setuid (set CUDATRACER_ALLOW_ENV_PLUGIN_PATH=1 to use it)"


def env_dir():
    """A trusted folder holding the cudart plugin as libct-envtest.so."""
    d = tempfile.mkdtemp(prefix="ctenv.")
    os.chmod(d, 0o755)
    p = os.path.join(d, "libct-envtest.so")
    shutil.copy(os.path.join(t.BUILD, "plugins", "libct-cudart.so"), p)
    os.chmod(p, 0o644)
    return d


def run(env, prefix=(), tracer=None):
    e = {k: v for k, v in os.environ.items()
         if k not in ("SUDO_USER", "CUDATRACER_PLUGIN_PATH", "CUDATRACER_ALLOW_ENV_PLUGIN_PATH")}
    e.update(env)
    return subprocess.run(list(prefix) + [tracer or t.TRACER, "--plugin", "envtest", "--list-apis"],
                          capture_output=True, text=True, timeout=60, env=e)


def loaded(p, d):
    return p.returncode == 0 and "# plugin cudart (%s/libct-envtest.so)" % d in p.stdout


def not_found(p, d):
    return (p.returncode != 0 and WARN in p.stderr and "plugin 'envtest' not found" in p.stderr
            and d not in p.stderr)


def test_sudo(d):
    p = run({"CUDATRACER_PLUGIN_PATH": d})
    t.check(loaded(p, d) and WARN not in p.stderr, "plain run: env path not used:\n" + p.stderr)
    p = run({"CUDATRACER_PLUGIN_PATH": d, "SUDO_USER": "someone"})
    t.check(not_found(p, d), "under sudo: env path used or no warning:\n" + p.stderr)
    p = run({"CUDATRACER_PLUGIN_PATH": d, "SUDO_USER": "someone", "CUDATRACER_ALLOW_ENV_PLUGIN_PATH": "1"})
    t.check(loaded(p, d) and WARN not in p.stderr, "under sudo, allowed: env path not used:\n" + p.stderr)


def secure_copy(mode_or_caps):
    """A copy of cudatracer that a user can run: setuid root or with file capabilities."""
    d = tempfile.mkdtemp(prefix="ctsecure.")
    os.chmod(d, 0o755)
    exe = os.path.join(d, "cudatracer")
    shutil.copy(t.TRACER, exe)
    if mode_or_caps == "setuid":
        os.chmod(exe, 0o4755)
    else:
        os.chmod(exe, 0o755)
        subprocess.run(["setcap", "cap_bpf,cap_perfmon+ep", exe], check=True)
    return exe


def as_nobody():
    return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"]


def test_secure(d):
    for how in ("setuid", "setcap"):
        exe = secure_copy(how)
        probe = subprocess.run(as_nobody() + [exe, "--version"], capture_output=True, text=True, timeout=30)
        if probe.returncode != 0:
            print("note: a %s copy cannot run here (%s); not tested" % (how, probe.stderr.strip()[:200]))
            continue
        # Even when allowed, the environment does not choose root's plugins.
        p = run({"CUDATRACER_PLUGIN_PATH": d, "CUDATRACER_ALLOW_ENV_PLUGIN_PATH": "1"}, as_nobody(), exe)
        t.check(not_found(p, d), "%s: env path used:\n%s" % (how, p.stderr))
        # A plugin given by path: root's is loaded, the user's own is refused.
        plug = os.path.join(d, "libct-envtest.so")
        p = subprocess.run(as_nobody() + [exe, "--plugin", plug, "--list-apis"], capture_output=True, text=True,
                           timeout=30)
        t.check(p.returncode == 0 and "cudaMalloc" in p.stdout, "%s: root's plugin refused:\n%s" % (how, p.stderr))
        os.chown(plug, NOBODY, NOBODY)
        p = subprocess.run(as_nobody() + [exe, "--plugin", plug, "--list-apis"], capture_output=True, text=True,
                           timeout=30)
        os.chown(plug, 0, 0)
        want = "refusing plugin %s while running privileged: %s is owned by uid %d, not root" % (plug, plug, NOBODY)
        t.check(p.returncode != 0 and want in p.stderr, "%s: the user's own plugin: %s" % (how, p.stderr))
        shutil.rmtree(os.path.dirname(exe))


def main():
    t.need_root()
    if not os.path.exists(os.path.join(t.BUILD, "plugins", "libct-cudart.so")):
        t.skip("the cudart plugin was not built")
    d = env_dir()
    test_sudo(d)
    test_secure(d)
    shutil.rmtree(d)
    print("ok")


main()
