# SPDX-License-Identifier: MIT
"""Shared by the who_* tests (not a test itself): real cgroup v2 directories
under the v2 mount, made for one test and removed after it, shaped as
container runtimes and the kubelet make them, and a command line that moves
itself into one before it execs the program."""
import atexit
import os
import shlex
import time

import cttest

# Of this test's own: the shapes are made at the v2 root, where the runtimes
# make them (deeper down they name nothing), beside other tests' at once.
CONTAINER = "%064x" % os.getpid()
POD = "%08x-5f6a-4b7c-8d9e-%012x" % (os.getpid(), os.getpid())


def v2_mount():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if right.split()[0] == "cgroup2":
                return left.split()[4]
    cttest.skip("no cgroup v2 mounted")


class Cgroups:
    """cttest-<pid>/... directories under the v2 mount; rel() gives a path as
    the tracer names it (from the v2 root), abs() as the file system does."""

    def __init__(self):
        self.mount = v2_mount()
        self.top = "cttest-%d" % os.getpid()
        self.made = []
        atexit.register(self.remove)

    def make(self, rel, at_root=False):
        """rel under cttest-<pid>/, or at_root under the v2 root itself
        (kubepods.slice/... where the kubelet makes it)."""
        path = "" if at_root else self.top
        if path and not os.path.isdir(self.abs(path)):
            os.mkdir(self.abs(path))
        for part in rel.strip("/").split("/"):
            path = (path + "/" + part).lstrip("/")
            if not os.path.isdir(self.abs(path)):
                os.mkdir(self.abs(path))
                self.made.append(path)
        return "/" + path

    def abs(self, rel):
        return os.path.join(self.mount, rel.lstrip("/"))

    def remove(self):
        """Innermost first; a cgroup with a process left in it (a test that
        failed half-way) is emptied into the root first."""
        for rel in reversed(self.made + [self.top]):
            d = self.abs(rel)
            if not os.path.isdir(d):
                continue
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except OSError:
                    with open(os.path.join(d, "cgroup.procs")) as f:
                        pids = f.read().split()
                    for p in pids:
                        try:
                            with open(os.path.join(self.mount, "cgroup.procs"), "w") as f:
                                f.write(p)
                        except OSError:
                            pass
                    time.sleep(0.1)
        self.made = []


def inside(cg_abs, argv, env=""):
    """A shell that puts itself into the cgroup directory, then execs argv
    (with env, "K=V K2=V2 ", set): as argv, and as one shell word list."""
    line = "echo $$ > %s && exec %s%s" % (shlex.quote(os.path.join(cg_abs, "cgroup.procs")),
                                        "env " + env if env else "", " ".join(shlex.quote(a) for a in argv))
    return ["sh", "-c", line]


def inside_line(cg_abs, argv, env=""):
    return " ".join(shlex.quote(a) for a in inside(cg_abs, argv, env))


def docker_path():
    return "system.slice/docker-%s.scope" % CONTAINER


def kubepods_path():
    return ("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/cri-containerd-%s.scope"
            % (POD.replace("-", "_"), CONTAINER))
