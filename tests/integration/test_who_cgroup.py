#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every event carries its caller's cgroup: the real libcudart called from a
program that moved itself into a docker-shaped and then a kubepods-shaped
cgroup v2 directory; each event's cgroup path, container id and pod UID are
exactly those of the directory (and a cgroup without a container has the path
alone)."""
import cttest
import metrics_common as mc
import who_common as wc


def run_in(cg, rel, at_root=False):
    path = cg.make(rel, at_root)
    prog = cttest.program("cudart_calls_shared")
    t = cttest.run(["--plugin", "cudart"], command=wc.inside(cg.abs(path), [prog]))
    cttest.check(t.rc == 0, "tracer exited %d" % t.rc, t)
    cttest.check(mc.count_apis(t.events) == mc.CUDART_CALLS, "calls %r" % mc.count_apis(t.events), t)
    return path, t


def main():
    cttest.need_root()
    cg = wc.Cgroups()
    try:
        path, t = run_in(cg, wc.docker_path(), True)
        got = {(e.get("cgroup"), e.get("container"), e.get("pod")) for e in t.events}
        cttest.check(got == {(path, wc.CONTAINER, None)}, "docker: %r, wanted %r" % (got, path), t)

        path, t = run_in(cg, wc.kubepods_path(), True)
        got = {(e.get("cgroup"), e.get("container"), e.get("pod")) for e in t.events}
        cttest.check(got == {(path, wc.CONTAINER, wc.POD)}, "kubepods: %r, wanted %r" % (got, path), t)

        path, t = run_in(cg, "plain/service")
        got = {(e.get("cgroup"), "container" in e, "pod" in e) for e in t.events}
        cttest.check(got == {(path, False, False)}, "no container: %r" % got, t)
    finally:
        cg.remove()
    print("ok: every event names its cgroup, container and pod")


main()
