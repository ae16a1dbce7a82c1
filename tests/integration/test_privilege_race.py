# SPDX-License-Identifier: MIT
"""A plugin or config file that root checks and then loads (issue 13): a
user who owns a link or a folder on the path flips it, as fast as they can,
between root's good file and their own, while root runs cudatracer over and
over. Before, the check resolved the path and dlopen (or fopen) looked it up
again, and the user's .so had its constructor run as root within a few
tries. Now the path is walked one name at a time, each checked on the
descriptor that is used next, and the file loaded is the descriptor checked
(core/plugin/trust.c): in every try root either loads its own file or
refuses with the name and the reason, and the user's constructor never
runs (it would leave a marker file).
- a link of the user's in a root-owned sticky folder (like /tmp): what it
  names when it is read is walked and checked; sometimes root's plugin,
  sometimes refused, never the user's;
- a folder of the user's on the plugin path (CUDATRACER_PLUGIN_PATH with
  CUDATRACER_ALLOW_ENV_PLUGIN_PATH): refused every time, the folder named;
- a link to a folder, flipped between root's folder and the user's;
- a config file: a link flipped between root's config and the user's (whose
  key would be an error naming it if it were parsed)."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import cttest as t

NOBODY = 65534
TRIES = 100
E = "cudatracer: error: "
TMP = tempfile.mkdtemp(prefix="ctrace.")
os.chmod(TMP, 0o755)  # the user reaches their folders
atexit.register(shutil.rmtree, TMP, True)
MARKER = os.path.join(TMP, "constructor-ran-as-root")

# Runs as the user: replace `link` by a link to a, then to b, ... (rename is atomic).
FLIPPER = r"""
import os, sys
link, a, b = sys.argv[1:4]
tmp = link + ".flip"
n = 0
while True:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass
    os.symlink(a if n % 2 else b, tmp)
    os.rename(tmp, link)
    n += 1
"""


def folder(name, owner=0, mode=0o755):
    d = os.path.join(TMP, name)
    os.mkdir(d)
    os.chown(d, owner, owner)
    os.chmod(d, mode)
    return d


def flipper(link, a, b):
    os.symlink(a, link)
    os.lchown(link, NOBODY, NOBODY)
    p = subprocess.Popen(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
                          sys.executable, "-c", FLIPPER, link, a, b])
    atexit.register(p.kill)
    return p


def tries(args, env, good, refusals, what):
    """Run the tracer TRIES times; each run must be `good` (a stdout check)
    or end with exactly one of the `refusals` lines. Returns (good, refused)."""
    e = {k: v for k, v in os.environ.items() if not k.startswith(("SUDO_", "CUDATRACER_"))}
    e.update(env)
    e["CT_TEST_MARKER"] = MARKER
    n_good = n_refused = 0
    for i in range(TRIES):
        p = subprocess.run([t.TRACER] + args, capture_output=True, text=True, timeout=60, env=e)
        t.check(not os.path.exists(MARKER), "%s: try %d ran the user's constructor as root:\n%s"
                % (what, i, p.stderr))
        errors = [l for l in p.stderr.splitlines() if l.startswith(E)]
        if p.returncode == 0 and good(p.stdout) and not errors:
            n_good += 1
            continue
        t.check(p.returncode != 0 and len(errors) == 1 and errors[0] in refusals,
                "%s: try %d: rc %d, want one of %r, got:\n%s" % (what, i, p.returncode, refusals, p.stderr))
        n_refused += 1
    return n_good, n_refused


def lists_cudart(out):
    return "cudaMalloc" in out and "# plugin cudart" in out


def main():
    t.need_root()
    good_so = os.path.join(t.BUILD, "plugins", "libct-cudart.so")
    evil_so = os.path.join(t.BUILD, "tests", "programs", "libct-marker.so")
    if not os.path.exists(good_so) or not os.path.exists(evil_so):
        t.skip("the cudart plugin or the marker plugin was not built")

    # Root's files, in a folder only root can write.
    root = folder("root")
    good = os.path.join(root, "libct-cudart.so")
    shutil.copy(good_so, good)
    good_ini = os.path.join(root, "good.ini")
    with open(good_ini, "w") as f:
        f.write("[tracer]\nplugins = cudart\n")
    # The user's files, in their own folder.
    user = folder("user", owner=NOBODY)
    evil = os.path.join(user, "libct-cudart.so")
    shutil.copy(evil_so, evil)
    evil_ini = os.path.join(user, "evil.ini")
    with open(evil_ini, "w") as f:
        f.write("[tracer]\nplugins = cudart\nparsed_as_root = yes\n")
    for p in (evil, evil_ini):
        os.chown(p, NOBODY, NOBODY)
        os.chmod(p, 0o644)
    user_why = "%s is owned by uid %d, not root" % (user, NOBODY)

    # Sanity: the marker plugin does leave its marker when it is loaded.
    subprocess.run([t.TRACER, "--plugin", evil_so, "--list-apis"], capture_output=True,
                   env=dict(os.environ, CT_TEST_MARKER=MARKER), timeout=60)
    t.check(os.path.exists(MARKER), "the marker plugin's constructor leaves no marker: the test proves nothing")
    os.unlink(MARKER)

    sticky = folder("sticky", mode=0o1777)
    in_sticky = lambda name: os.path.join(sticky, name)
    in_user = os.path.join(user, "libct-race.so")
    via_dir = os.path.join(sticky, "plugins", "libct-cudart.so")
    # (what, link, root's, the user's, args, env, the path refused, root's file can win)
    cases = [
        ("a link in a sticky folder", in_sticky("libct-race.so"), good, evil,
         ["--plugin", in_sticky("libct-race.so")], {}, "plugin " + in_sticky("libct-race.so"), True),
        ("a user's folder on the plugin path", in_user, good, evil, ["--plugin", "race"],
         {"CUDATRACER_PLUGIN_PATH": user, "CUDATRACER_ALLOW_ENV_PLUGIN_PATH": "1"}, "plugin " + in_user, False),
        ("a link to a folder", in_sticky("plugins"), root, user, ["--plugin", via_dir], {}, "plugin " + via_dir, True),
        ("a config file", in_sticky("ct.ini"), good_ini, evil_ini, ["-c", in_sticky("ct.ini")], {},
         "config file " + in_sticky("ct.ini"), True),
    ]
    for what, link, a, b, args, env, refused, can_win in cases:
        fl = flipper(link, a, b)
        n_good, n_refused = tries(args + ["--list-apis"], env, lists_cudart,
                                  [E + "refusing %s while running privileged: %s" % (refused, user_why)], what)
        fl.kill()
        fl.wait()
        print("%s: %d loaded root's file, %d refused" % (what, n_good, n_refused))
        if can_win:
            t.check(n_good and n_refused, "%s: the link did not flip during the tries" % what)
        else:
            t.check(n_good == 0, "%s: loaded %d times" % (what, n_good))
    print("ok")


main()
