# SPDX-License-Identifier: MIT
"""--explain says what would be probed and why calls may be missing."""
import subprocess
import tempfile
import cttest as t


def explain(args):
    p = subprocess.run([t.TRACER, "--plugin", "cudart", "--explain"] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    rc, out = explain(["--", t.program("cudart_calls_static")])
    t.check(rc == 0 and "defines 57 of 57 cudart APIs: traced (the runtime is linked into the executable)" in out, out)
    rc, out = explain(["--", "true"])
    t.check(rc == 0 and "does not link the runtime statically" in out and "/true" in out, out)
    rc, out = explain(["--", "/nonexistent/prog"])
    t.check(rc != 0 and "No such file or directory" in out, out)

    p = subprocess.Popen([t.program("cudart_loop_shared"), "1", "wait"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    t.check(p.stdout.readline().startswith("ready"), "program did not start")
    rc, out = explain(["-p", str(p.pid)])
    p.communicate("go\n", timeout=30)
    t.check(rc == 0 and "libcudart.so.13 defines 57 of 57 cudart APIs: traced" in out, out)

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
