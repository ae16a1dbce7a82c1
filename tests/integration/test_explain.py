# SPDX-License-Identifier: MIT
"""--explain says what would be probed and why calls may be missing."""
import os
import shutil
import subprocess
import tempfile
import cttest as t


def explain(args, env=None):
    p = subprocess.run([t.TRACER, "--plugin", "cudart", "--explain"] + args, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout + p.stderr


def table_size():
    """How many APIs the cudart plugin has (hand-written and generated rows)."""
    p = subprocess.run([t.TRACER, "--plugin", "cudart", "--list-apis"], capture_output=True, text=True, timeout=60)
    return int(p.stdout.split("): ", 1)[1].split()[0])


N = table_size()


def ldd(prog, env=None):
    """What glibc's own loader resolves, to hold ours against."""
    p = subprocess.run(["ldd", prog], capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    return {l.split(" => ")[0].strip(): l.split(" => ")[1].split(" (")[0] for l in p.stdout.splitlines() if " => " in l}


def resolved(out):
    return {l.split(" => ")[0].strip(): l.split(" => ")[1].split(" (")[0] for l in out.splitlines()
            if l.startswith("    ") and " => " in l}


def libraries():
    """--explain -- CMD resolves what ld.so will load, as ld.so does."""
    shared = t.program("cudart_calls_shared")
    rc, out = explain(["--", shared])
    t.check(rc == 0 and resolved(out) and all(resolved(out)[k] == v for k, v in ldd(shared).items()
                                             if not k.startswith("ld-linux")), out)
    real = os.path.realpath(ldd(shared)["libcudart.so.13"])
    t.check("  cudart: %s defines %d of %d cudart APIs: traced" % (real, N, N) in out.splitlines(), out)
    # How much of what the library exports the table has: all but the <<<>>> thunks.
    t.check("    %s exports %d functions: %d in the table" % (real, N + 2, N) in out and
            "not in the table: __cudaLaunchKernel, __cudaLaunchKernel_ptsz" in out, out)
    t.check("cannot be known before it runs: it is probed when the program opens it" in out, out)
    # LD_LIBRARY_PATH before the cache: the copy there is the one probed.
    d = tempfile.mkdtemp(prefix="ctexplain.")
    shutil.copy(real, os.path.join(d, "libcudart.so.13"))
    rc, out = explain(["--", shared], env={"LD_LIBRARY_PATH": d})
    mine = os.path.join(d, "libcudart.so.13")
    t.check(rc == 0 and "    libcudart.so.13 => %s (LD_LIBRARY_PATH)" % mine in out.splitlines()
            and ldd(shared, {"LD_LIBRARY_PATH": d})["libcudart.so.13"] == mine
            and "  cudart: %s defines %d of %d cudart APIs: traced" % (mine, N, N) in out.splitlines(), out)
    # DT_RUNPATH $ORIGIN/lib (a pip-like layout); moved away from its lib, not found.
    fake = os.path.join(t.PROGRAMS, "fake", "fake_user")
    rc, out = explain(["--", fake])
    lib = os.path.join(t.PROGRAMS, "fake", "lib", "libcudart.so.99")
    t.check(rc == 0 and "    libcudart.so.99 => %s (DT_RUNPATH of fake_user)" % lib in out.splitlines()
            and "  cudart: %s defines 3 of %d cudart APIs: traced" % (lib, N) in out.splitlines(), out)
    # Moved with its lib folder: $ORIGIN/lib, the first RUNPATH entry, is the copy beside it.
    moved = os.path.join(d, "fake_user")
    shutil.copy(fake, moved)
    shutil.copytree(os.path.dirname(lib), os.path.join(d, "lib"))
    rc, out = explain(["--", moved])
    mine = os.path.join(d, "lib", "libcudart.so.99")
    t.check(rc == 0 and "    libcudart.so.99 => %s (DT_RUNPATH of fake_user)" % mine in out.splitlines()
            and ldd(moved)["libcudart.so.99"] == mine, out)
    shutil.rmtree(d)


def main():
    libraries()
    rc, out = explain(["--", t.program("cudart_calls_static")])
    t.check(rc == 0 and "defines %d of %d cudart APIs: traced (the runtime is linked into the executable)" % (N, N)
            in out, out)
    rc, out = explain(["--", "true"])
    t.check(rc == 0 and "does not link the runtime statically" in out and "/true" in out, out)
    rc, out = explain(["--", "/nonexistent/prog"])
    t.check(rc != 0 and "No such file or directory" in out, out)

    p = subprocess.Popen([t.program("cudart_loop_shared"), "1", "wait"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    t.check(p.stdout.readline().startswith("ready"), "program did not start")
    rc, out = explain(["-p", str(p.pid)])
    p.communicate("go\n", timeout=30)
    t.check(rc == 0 and "libcudart.so.13 defines %d of %d cudart APIs: traced" % (N, N) in out, out)

    s = subprocess.Popen(["sleep", "30"])
    rc, out = explain(["-p", str(s.pid)])
    # filter.pid is -p, whether it comes from -C or from a config file.
    rc_c, out_c = explain(["-C", "filter.pid=%d" % s.pid])
    with tempfile.NamedTemporaryFile("w", suffix=".ini") as ini:
        ini.write("[filter]\npid = %d\n" % s.pid)
        ini.flush()
        rc_f, out_f = explain(["-c", ini.name])
    s.kill()
    t.check(rc == 0 and "process %d (" % s.pid in out and "no runtime of the loaded plugins is mapped" in out, out)
    t.check((rc_c, out_c) == (rc, out), "-C filter.pid: %d\n%s" % (rc_c, out_c))
    t.check((rc_f, out_f) == (rc, out), "filter.pid in a file: %d\n%s" % (rc_f, out_f))
    rc, out = explain([])
    t.check(rc != 0 and "--explain needs -p PID or a command" in out, out)
    print("ok")


main()
