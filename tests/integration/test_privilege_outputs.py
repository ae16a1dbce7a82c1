# SPDX-License-Identifier: MIT
"""Output files written as root (issue 13): a sink's path, or the aggregate
table's, that another user planted is refused with the reason, and nothing
is written or emptied through it:
- a symbolic link owned by another user (in a sticky world-writable folder
  like /tmp, or in that user's own folder) is not followed, whatever the
  kernel's protected_symlinks; a link owned by root is;
- the same for a link in place of a folder on the way (a user's folder
  swapped for a link to /etc): the folders are walked one name at a time,
  and the kernel never follows a link the tool did not check;
- a file owned by another user, a file with a second hard link, a FIFO or a
  device are refused; /dev/null and - are allowed;
- a new file is 0600 whatever the umask; under sudo, a new file in a folder
  the invoking user owns is theirs, and their own file may be rewritten."""
import os
import shutil
import stat
import subprocess
import tempfile
import cttest as t

NOBODY = 65534
E = "cudatracer: error: "
VICTIM = "root's precious file\n"


def trace(sink_args, env=None, umask=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}
    e.update(env or {})
    return subprocess.run([t.TRACER, "--plugin", "cudart"] + sink_args + ["--", "/bin/true"],
                          capture_output=True, text=True, timeout=60, env=e,
                          preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


def folder(owner=0, mode=0o755):
    d = tempfile.mkdtemp(prefix="ctout.")
    os.chown(d, owner, owner)
    os.chmod(d, mode)
    return d


def victim():
    """A root-owned file in a root-only folder: what an attacker aims at."""
    d = folder(mode=0o700)
    v = os.path.join(d, "shadow")
    with open(v, "w") as f:
        f.write(VICTIM)
    os.chmod(v, 0o644)
    return v


def intact(path, what):
    with open(path) as f:
        got = f.read()
    t.check(got == VICTIM, "%s was written through: now %r" % (what, got[:200]))


def refused(p, why, path, sink="sink 'jsonl'"):  # an -o sink is named by its type
    want = E + "%s: refusing to write to %s: %s" % (sink, path, why)
    t.check(p.returncode != 0 and want in p.stderr.splitlines(),
            "want %r, got rc %d:\n%s" % (want, p.returncode, p.stderr))


def ok(p, what):
    t.check(p.returncode == 0 and "error" not in p.stderr, "%s: rc %d\n%s" % (what, p.returncode, p.stderr))


def mode_owner(path):
    st = os.stat(path)
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


def planted_links():
    link_why = "it is a symbolic link owned by uid %d, not by uid 0 running cudatracer or root " \
               "(give the path it points to)" % NOBODY
    # In a sticky world-writable folder (/tmp), and in the other user's own folder.
    for d in (folder(mode=0o1777), folder(owner=NOBODY)):
        v = victim()
        link = os.path.join(d, "trace.jsonl")
        os.symlink(v, link)
        os.lchown(link, NOBODY, NOBODY)
        refused(trace(["-o", "jsonl:" + link]), link_why, link)
        intact(v, "a planted link's target (jsonl sink)")
        # Aggregate mode's table is its summary sink, written to tracer.aggregate_path.
        refused(trace(["-C", "tracer.mode=aggregate", "-C", "tracer.aggregate_path=" + link]), link_why, link,
                sink="sink 'summary'")
        intact(v, "a planted link's target (aggregate table)")
        # The same from a config file's sink, by its name.
        conf = os.path.join(folder(), "ct.ini")
        with open(conf, "w") as f:
            f.write("[sink.mine]\ntype = summary\npath = %s\n" % link)
        p = subprocess.run([t.TRACER, "-c", conf, "--plugin", "cudart", "--", "/bin/true"],
                           capture_output=True, text=True, timeout=60)
        refused(p, link_why, link, sink="sink 'mine'")
        intact(v, "a planted link's target (summary sink from a config)")

    # Root's own link is followed, and the file it names is created 0600.
    d = folder()
    real = os.path.join(d, "real.jsonl")
    os.symlink("real.jsonl", os.path.join(d, "link.jsonl"))
    ok(trace(["-o", "jsonl:" + os.path.join(d, "link.jsonl")]), "root's link")
    t.check(mode_owner(real) == (0o600, 0, 0), "through root's link: %r" % (mode_owner(real),))


def planted_folder_links():
    """A link of the user's in place of a folder on the path, to root's folder."""
    v = victim()
    vdir, vname = os.path.split(v)
    why = "its folder %s is a symbolic link owned by uid %d, not by uid 0 running cudatracer or root " \
          "(give the path it points to)"
    for d in (folder(mode=0o1777), folder(owner=NOBODY)):
        link = os.path.join(d, "out")
        os.symlink(vdir, link)
        os.lchown(link, NOBODY, NOBODY)
        for name in (vname, "new.jsonl"):
            path = os.path.join(link, name)
            refused(trace(["-o", "jsonl:" + path]), why % (link, NOBODY), path)
            refused(trace(["-C", "tracer.mode=aggregate", "-C", "tracer.aggregate_path=" + path]),
                    why % (link, NOBODY), path, sink="sink 'summary'")
        intact(v, "a file through a planted folder link")
        t.check(sorted(os.listdir(vdir)) == [vname], "a file was made through a planted folder link: %r"
                % os.listdir(vdir))
        # Deeper on the path, and relative to the current folder.
        os.mkdir(os.path.join(vdir, "sub"))
        path = os.path.join(link, "sub", "trace.jsonl")
        refused(trace(["-o", "jsonl:" + path]), why % (link, NOBODY), path)
        p = subprocess.run([t.TRACER, "--plugin", "cudart", "-o", "jsonl:out/sub/x", "--", "/bin/true"],
                           capture_output=True, text=True, timeout=60, cwd=d)
        refused(p, why % ("out", NOBODY), "out/sub/x")
        os.rmdir(os.path.join(vdir, "sub"))
    # Under sudo, the invoking user's own link to a folder is not followed either.
    home = folder(owner=NOBODY)
    link = os.path.join(home, "out")
    os.symlink(vdir, link)
    os.lchown(link, NOBODY, NOBODY)
    path = os.path.join(link, vname)
    refused(trace(["-o", "jsonl:" + path], env={"SUDO_UID": str(NOBODY), "SUDO_GID": str(NOBODY)}),
            why % (link, NOBODY), path)
    intact(v, "a file through the invoking user's folder link")
    # Root's own link to a folder is followed, to a link of root's in it.
    d = folder()
    os.symlink(folder(), os.path.join(d, "out"))
    os.symlink("real.jsonl", os.path.join(d, "out", "link.jsonl"))
    ok(trace(["-o", "jsonl:" + os.path.join(d, "out", "link.jsonl")]), "root's folder link")
    t.check(mode_owner(os.path.join(d, "out", "real.jsonl")) == (0o600, 0, 0), "through root's folder link")


def planted_files():
    # Another user's file: not written into, not emptied, still theirs.
    d = folder(owner=NOBODY)
    theirs = os.path.join(d, "trace.jsonl")
    with open(theirs, "w") as f:
        f.write(VICTIM)
    os.chown(theirs, NOBODY, NOBODY)
    os.chmod(theirs, 0o644)
    refused(trace(["-o", "jsonl:" + theirs]),
            "it is owned by uid %d, not by uid 0 running cudatracer (remove it, or give another path)" % NOBODY,
            theirs)
    intact(theirs, "another user's file")
    t.check(mode_owner(theirs) == (0o644, NOBODY, NOBODY), "another user's file changed: %r" % (mode_owner(theirs),))

    # A second name for a root file, made where the other user can see it.
    v = victim()
    hard = os.path.join(d, "hard.jsonl")
    os.link(v, hard)
    refused(trace(["-o", "jsonl:" + hard]),
            "it has 2 hard links, and another of its names may be a file that must not be overwritten "
            "(remove it, or give another path)", hard)
    intact(v, "a hard link's other name")

    # A FIFO is refused at once (before, the open blocked until a reader came).
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    refused(trace(["-o", "jsonl:" + fifo]), "it is a FIFO, not a regular file (for standard output give -)", fifo)
    refused(trace(["-o", "text:/dev/tty"]),
            "it is a character device, not a regular file (for standard output give -)", "/dev/tty", sink="sink 'text'")
    refused(trace(["-o", "text:" + d]), "it is a folder, not a regular file (for standard output give -)", d,
            sink="sink 'text'")
    ok(trace(["-o", "jsonl:/dev/null", "-o", "text:-"]), "/dev/null and -")


def new_files():
    # 0600 whatever the umask (before: 0666 & ~umask).
    d = folder()
    for umask in (0, 0o022):
        f = os.path.join(d, "new-%o.jsonl" % umask)
        ok(trace(["-o", "jsonl:" + f, "-o", "csv:" + f + ".csv"], umask=umask), "a new file")
        t.check(mode_owner(f) == (0o600, 0, 0), "new file, umask %03o: %r" % (umask, mode_owner(f)))
        t.check(mode_owner(f + ".csv") == (0o600, 0, 0), "new csv file: %r" % (mode_owner(f + ".csv"),))

    # A file of our own is rewritten: emptied, then written.
    mine = os.path.join(d, "mine.txt")
    with open(mine, "w") as f:
        f.write("x" * 100000)
    ok(trace(["-o", "summary:" + mine]), "our own file")
    with open(mine) as f:
        got = f.read()
    t.check(got.startswith("cudatracer summary") and "x" not in got, "our file was not rewritten: %r" % got[:80])


def under_sudo():
    sudo = {"SUDO_UID": str(NOBODY), "SUDO_GID": str(NOBODY), "SUDO_USER": "nobody"}
    # A new file in the invoking user's folder is theirs, 0600.
    home = folder(owner=NOBODY)
    f = os.path.join(home, "trace.jsonl")
    ok(trace(["-o", "jsonl:" + f], env=sudo), "sudo, the user's folder")
    t.check(mode_owner(f) == (0o600, NOBODY, NOBODY), "under sudo: %r" % (mode_owner(f),))
    # The user can read it (as that user).
    p = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", "cat", f],
                       capture_output=True, text=True, timeout=30)
    t.check(p.returncode == 0, "the invoking user cannot read their trace: %s" % p.stderr)
    # Their own file is rewritten in place (still theirs).
    with open(f, "w") as fh:
        fh.write("old\n")
    ok(trace(["-o", "summary:" + f], env=sudo), "sudo, the user's own file")
    t.check(mode_owner(f)[1] == NOBODY and open(f).read().startswith("cudatracer summary"), "rewritten?")
    # In a folder that is not theirs, root keeps the file.
    f = os.path.join(folder(), "trace.jsonl")
    ok(trace(["-o", "jsonl:" + f], env=sudo), "sudo, root's folder")
    t.check(mode_owner(f) == (0o600, 0, 0), "under sudo, root's folder: %r" % (mode_owner(f),))
    # Their link is still not followed by root.
    v = victim()
    link = os.path.join(home, "link.jsonl")
    os.symlink(v, link)
    os.lchown(link, NOBODY, NOBODY)
    refused(trace(["-o", "jsonl:" + link], env=sudo),
            "it is a symbolic link owned by uid %d, not by uid 0 running cudatracer or root "
            "(give the path it points to)" % NOBODY, link)
    intact(v, "the invoking user's link's target")


def main():
    t.need_root()
    planted_links()
    planted_folder_links()
    planted_files()
    new_files()
    under_sudo()
    print("ok")


main()
