# SPDX-License-Identifier: MIT
"""The traced program calls exec: events come from both images, under one
pid. The first image uses a stand-in runtime (a shared library); the second
is a real CUDA program whose runtime is either linked into the executable
(nvcc's default: found when the exec happens) or loaded as libcudart.so
(found when the dynamic loader opens it). Either way its first call is
traced."""
import os
import cttest as t


def check_exec(second):
    first = os.path.join(t.PROGRAMS, "fault", "fault_user")
    prog = t.program(second)
    tr = t.run(["--plugin", "cudart"], command=[first, "exec", prog, "3"])
    t.check(tr.rc == 0, "%s: rc %d" % (second, tr.rc), tr)
    t.check(tr.lost() == 0, "%s: lost records" % second, tr)
    got = [(e["comm"], e["api"], e["args"]["count"]) for e in tr.events]
    want = [("fault_user", "cudaMemset", 1)] + [(second[:15], "cudaMemset", i) for i in range(3)]
    t.check(got == want, "%s: events %s, want %s" % (second, got, want), tr)
    t.check(len({e["pid"] for e in tr.events}) == 1, "%s: exec changed the pid?" % second, tr)
    # The stand-in succeeds; the real runtime without a GPU does not.
    t.check(tr.events[0]["result_name"] == "cudaSuccess", "first image's result", tr)
    t.check(all(e["result_name"] != "cudaSuccess" for e in tr.events[1:]), "second image's results", tr)


def main():
    t.need_root()
    if not os.path.exists(os.path.join(t.PROGRAMS, "fault", "fault_user")):
        t.skip("fault_user was not built")
    check_exec("cudart_loop_static")
    check_exec("cudart_loop_shared")
    print("ok")


main()
