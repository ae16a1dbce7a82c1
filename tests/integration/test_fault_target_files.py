# SPDX-License-Identifier: MIT
"""Files the tracer opens on a traced process's behalf are the process's to
choose (issue 13): through /proc/PID/root a job in a container picks what
its executable's debug file is. Here a job in its own mount namespace runs
a stripped CUDA program (kernel names then come from the debug file under
/usr/lib/debug/.build-id in the job's root) and then execs one more child:
- the debug file is a FIFO the job made: before, the tracer opened it and
  blocked for good, and the child that exec'd next stayed stopped;
- the debug file is a link (absolute, as links in a container are) to a FIFO
  that a writer on the host waits on: the tracer must not even open it (an
  open of a FIFO or device can do something: it lets that writer go on).
Each run ends by itself, every launch is traced, the last child ran (it
leaves a file), and the writer is still waiting. A real debug file that the
job links to by an absolute path is found where the job sees it (its root),
and names the kernels."""
import atexit
import os
import shutil
import subprocess
import tempfile
import cttest as t

TMP = tempfile.mkdtemp(prefix="cttarget.")
atexit.register(shutil.rmtree, TMP, True)
DEBUG = "/usr/lib/debug"
KERNELS = ["vec_add(float*, float const*, int)", "void ct::scale<float>(float*, float, int)",
           "void ct::scale<double>(double*, double, int)", "plain_c_kernel"]


def build_id(exe):
    out = subprocess.run(["readelf", "-n", exe], capture_output=True, text=True, check=True).stdout
    ids = [l.split(":", 1)[1].strip() for l in out.splitlines() if "Build ID:" in l]
    t.check(len(ids) == 1, "no build-id in %s:\n%s" % (exe, out))
    return ids[0]


def traced_job(exe, plant, done):
    """Trace: in a new mount namespace, a tmpfs on /usr/lib/debug, `plant`
    (shell) run there, then the program, then one more exec'd child."""
    script = "mount -t tmpfs ct-debug %s && cd %s && %s && %s && touch %s" % (DEBUG, DEBUG, plant, exe, done)
    try:
        return t.run(["--plugin", "cudart"], command=["unshare", "-m", "--propagation", "private",
                                                      "sh", "-c", script], timeout=90)
    except subprocess.TimeoutExpired:
        raise AssertionError("the tracer did not end: it blocked on a file the traced job planted (%s)" % plant)


def check_run(tr, done, what):
    launches = tr.calls("cudaLaunchKernel")
    t.check(tr.rc == 0, "%s: rc %d" % (what, tr.rc), tr)
    t.check(len(launches) == 8, "%s: %d launches traced, want 8" % (what, len(launches)), tr)
    t.check(os.path.exists(done), "%s: the child exec'd after the program did not run" % what, tr)


def main():
    t.need_root()
    src = t.program("kname_shared")
    if not os.path.isdir(DEBUG) or not shutil.which("unshare"):
        t.skip("needs %s to mount a tmpfs on, and unshare(1)" % DEBUG)
    exe = os.path.join(TMP, "kname_stripped")
    shutil.copy(src, exe)
    subprocess.run(["strip", "--strip-all", exe], check=True)
    bid = build_id(exe)
    rel = ".build-id/%s/%s.debug" % (bid[:2], bid[2:])
    mkdir = "mkdir -p .build-id/%s" % bid[:2]

    done = os.path.join(TMP, "done-fifo")
    check_run(traced_job(exe, "%s && mkfifo %s" % (mkdir, rel), done), done, "a FIFO as the debug file")

    # A FIFO outside the job's tmpfs, with a writer waiting for a reader.
    fifo = os.path.join(TMP, "host-fifo")
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", "echo gone > %s" % fifo])
    atexit.register(writer.kill)
    done = os.path.join(TMP, "done-link")
    check_run(traced_job(exe, "%s && ln -s %s %s" % (mkdir, fifo, rel), done), done, "a link to a FIFO")
    t.check(writer.poll() is None, "the tracer opened the FIFO the debug file links to (its writer went on)")
    writer.kill()

    # A real debug file, named by an absolute link as the job sees its root:
    # the link is resolved in the job's root (before, from the tracer's, where
    # the file is not), and the kernels are named from it.
    dbg = os.path.join(TMP, "kname.debug")
    subprocess.run(["objcopy", "--only-keep-debug", src, dbg], check=True)
    done = os.path.join(TMP, "done-debug")
    plant = "%s && mkdir dbg && cp %s dbg/kname.debug && ln -s %s/dbg/kname.debug %s" % (mkdir, dbg, DEBUG, rel)
    # The names are looked up while the process lives: its root, with the
    # debug file in it, ends with it.
    hold = os.path.join(t.BUILD, "tests", "programs", "libct-hold-exit.so")
    tr = traced_job("CT_HOLD_EXIT_MS=3000 LD_PRELOAD=%s %s" % (hold, exe), plant, done)
    check_run(tr, done, "a debug file in the job's root")
    names = sorted(set(e["args"].get("func") for e in tr.calls("cudaLaunchKernel")))
    t.check(names == sorted(KERNELS), "kernels named from the job's debug file: %r, want %r" % (names, KERNELS), tr)
    print("ok")


main()
