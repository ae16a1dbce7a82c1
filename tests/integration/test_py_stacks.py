# SPDX-License-Identifier: MIT
"""Python frames (--stacks, docs/stacks-python.md): a script calls the CUDA
runtime through ctypes from named functions; each call's py_stack is exactly
the script's functions, file and lines, innermost first. With CDLL (the GIL
released before the call) and PyDLL (held), from the main thread and from a
threading.Thread; for Debian's python3.11 (libpython linked into the
executable) and for each pyenv CPython 3.10 to 3.13 found (shared
libpython). An interpreter of a version the tracer has no layout for, and
one that lacks a symbol the tracer needs, are said once; their calls are traced
all the same, without py_stack."""
import json
import os
import shutil
import struct
import tempfile
import cttest as t

CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so")
DEBIAN = "/usr/bin/python3.11"
PYENV = "/root/.pyenv/versions"

SCRIPT = '''import ctypes, sys, threading
lib = (ctypes.PyDLL if sys.argv[1] == "pydll" else ctypes.CDLL)(sys.argv[2])

def inner():
    n = ctypes.c_int(0)
    return lib.cudaGetDeviceCount(ctypes.byref(n))  # L_INNER

def outer():
    return inner()  # L_OUTER

outer()  # L_MODULE
th = threading.Thread(target=outer)
th.start()
th.join()
'''


def line_of(marker):
    return next(i + 1 for i, l in enumerate(SCRIPT.splitlines()) if l.endswith(marker))


def script_path():
    tmp = tempfile.mkdtemp(prefix="cttest.")
    path = os.path.join(tmp, "calls.py")
    with open(path, "w") as f:
        f.write(SCRIPT)
    return path


def pythons():
    found = [DEBIAN] if os.path.exists(DEBIAN) else []
    for minor in (10, 11, 12, 13):
        for v in sorted(os.listdir(PYENV)) if os.path.isdir(PYENV) else []:
            exe = os.path.join(PYENV, v, "bin", "python3.%d" % minor)
            if v.startswith("3.%d." % minor) and os.path.exists(exe):
                found.append(exe)
    return found


def frames(e):
    return [(f["function"], f["file"], f["line"]) for f in e["py_stack"]]


def test_frames(py, script):
    inner, outer, module = line_of("# L_INNER"), line_of("# L_OUTER"), line_of("# L_MODULE")
    for dll in ("cdll", "pydll"):
        tr = t.run(["--plugin", "cudart", "--stacks"], command=[py, script, dll, CUDART])
        what = "%s %s" % (py, dll)
        t.check(tr.rc == 0, "%s: tracer exited %d" % (what, tr.rc), tr)
        calls = tr.calls("cudaGetDeviceCount")
        t.check(len(calls) == 2, "%s: %d cudaGetDeviceCount calls, not 2" % (what, len(calls)), tr)
        main = [e for e in calls if e["tid"] == e["pid"]]
        thread = [e for e in calls if e["tid"] != e["pid"]]
        t.check(len(main) == 1 and len(thread) == 1, "%s: calls by thread %s" % (what, [e["tid"] for e in calls]), tr)
        want = [("inner", script, inner), ("outer", script, outer), ("<module>", script, module)]
        t.check("py_stack" in main[0] and frames(main[0]) == want,
                "%s: main thread's py_stack %s, not %s" % (what, main[0].get("py_stack"), want), tr)
        # The thread: inner, outer, then threading.py's run and bootstraps.
        got = frames(thread[0]) if "py_stack" in thread[0] else []
        t.check(got[:2] == want[:2] and len(got) > 2 and all(f[1].endswith("threading.py") for f in got[2:]) and
                got[-1][0] == "_bootstrap",
                "%s: the thread's py_stack %s" % (what, thread[0].get("py_stack")), tr)
        t.check(all(f[2] > 0 for f in got), "%s: a thread frame without a line: %s" % (what, got), tr)
        t.check("Python frames" not in tr.stderr and "no layout" not in tr.stderr,
                "%s: a warning of Python frames" % what, tr)


SINKS = """
[sink.text]
type = text
path = @TMP@/calls.txt
[sink.summary]
type = summary
path = @TMP@/summary.txt
[sink.sjson]
type = summary
format = json
path = @TMP@/summary.json
"""


def test_sinks(script):
    """The text sink and the summary's error sites show the Python frames,
    as jsonl does: under each call, its native frames, then its Python ones
    innermost first (`inner (calls.py:6)`); the summary's site of the main
    thread's call ends with the script's three frames."""
    inner, outer, module = line_of("# L_INNER"), line_of("# L_OUTER"), line_of("# L_MODULE")
    want = ["inner (%s:%d)" % (script, inner), "outer (%s:%d)" % (script, outer),
            "<module> (%s:%d)" % (script, module)]
    tr = t.run(["--plugin", "cudart", "--stacks"], command=[DEBIAN, script, "cdll", CUDART], extra_sinks=SINKS)
    main = [e for e in tr.calls("cudaGetDeviceCount") if e["tid"] == e["pid"]]
    t.check(tr.rc == 0 and len(main) == 1 and frames(main[0])[0][0] == "inner", "sinks: no main call", tr)
    native = len(main[0].get("stack", []))
    with open(os.path.join(tr.files, "calls.txt")) as f:
        text = f.read().splitlines()
    at = [i for i, l in enumerate(text) if "cudaGetDeviceCount(" in l and " %d " % main[0]["tid"] in l]
    t.check(len(at) >= 1, "text: no line of the main thread's call:\n" + "\n".join(text))
    under = [l.strip() for l in text[at[0] + 1:at[0] + 1 + native + len(want)]]
    t.check(under[native:] == want, "text: the frames under the call end %r, not %r" % (under[native:], want))
    with open(os.path.join(tr.files, "summary.txt")) as f:
        summary = f.read()
    t.check("\n".join("      " + l for l in want) + "\n" in summary,
            "summary: no site ends with the Python frames:\n" + summary)
    with open(os.path.join(tr.files, "summary.json")) as f:
        sites = [s for p in json.load(f)["processes"] for a in p["apis"] for e in a.get("errors_by_name", [])
                 for s in e["sites"]]
    t.check(len(sites) == 2 and sorted(s["count"] for s in sites) == [1, 1] and
            any(s.get("py_stack") == want for s in sites),
            "summary json: the sites %r" % sites)


def test_no_stacks(script):
    """Without --stacks no record has a py_stack, and the engine walks nothing."""
    tr = t.run(["--plugin", "cudart"], command=[DEBIAN, script, "cdll", CUDART])
    calls = tr.calls("cudaGetDeviceCount")
    t.check(tr.rc == 0 and len(calls) == 2 and not any("py_stack" in e for e in calls),
            "without --stacks: %s" % calls, tr)


def elf_vaddr_to_off(data, vaddr):
    """The file offset of vaddr in an ELF64 file (its PT_LOAD that holds it)."""
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= vaddr < p_vaddr + p_filesz:
            return vaddr - p_vaddr + p_offset
    raise AssertionError("vaddr %#x is in no PT_LOAD" % vaddr)


def dynsym_value(path, name):
    import subprocess
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return int(parts[0], 16)
    raise AssertionError("%s defines no %s" % (path, name))


def patched_python(patch):
    """A copy of Debian's python3.11 (named so), with patch(data) applied."""
    tmp = tempfile.mkdtemp(prefix="cttest.")
    exe = os.path.join(tmp, "python3.11")
    with open(DEBIAN, "rb") as f:
        data = bytearray(f.read())
    patch(data)
    with open(exe, "wb") as f:
        f.write(data)
    os.chmod(exe, 0o755)
    return exe


def test_refused(script):
    """A version the tracer has no layout for (Py_Version made 3.99), and an
    interpreter whose PyCode_Type is not among its symbols: one message each,
    the calls traced without py_stack."""
    def version_399(data):
        off = elf_vaddr_to_off(data, dynsym_value(DEBIAN, "Py_Version"))
        struct.pack_into("<I", data, off, 0x036300f0)

    def no_code_type(data):
        # (not _PyRuntime: the ctypes module itself links against it)
        at = data.find(b"\0PyCode_Type\0")
        t.check(at > 0, "python3.11's dynamic string table names no PyCode_Type")
        data[at + 11] = ord("X")

    cases = ((version_399, "Python 3.99, a version this tracer has no layout for"),
             (no_code_type, "its symbols lack _PyRuntime or PyCode_Type"))
    for patch, said in cases:
        exe = patched_python(patch)
        tr = t.run(["--plugin", "cudart", "--stacks"], command=[exe, script, "cdll", CUDART],
                   env={"PYTHONHOME": "/usr"})
        calls = tr.calls("cudaGetDeviceCount")
        t.check(tr.rc == 0 and len(calls) == 2, "%s: %d calls" % (said, len(calls)), tr)
        t.check(not any("py_stack" in e for e in calls), "%s: a py_stack" % said, tr)
        t.check(tr.stderr.count(said) == 1 and "native stacks go on" in tr.stderr,
                "%s: not said exactly once" % said, tr)
        shutil.rmtree(os.path.dirname(exe), True)


DEEP = '''import ctypes, sys, threading
lib = ctypes.CDLL(sys.argv[1])

def leaf():
    n = ctypes.c_int(0)
    lib.cudaGetDeviceCount(ctypes.byref(n))

def rec(d):
    return leaf() if d == 0 else rec(d - 1)

def f\u00fcr(d):
    rec(d)

ts = [threading.Thread(target=f\u00fcr, args=(d,)) for d in (0, 30, 100)]
for th in ts: th.start()
for th in ts: th.join()
'''


def test_deep_threads():
    """Threads at once, stacks past the 64 frames kept (the outermost cut,
    said), a function name the engine does not copy (not ASCII: said): the
    frames that can be named are, and the native stacks of the same calls
    (frame-pointer-less libffi and libpython: addresses in no mapping, which
    make the tracer read the maps again while it names a stack) are intact."""
    d = tempfile.mkdtemp(prefix="ct-pydeep.")
    path = os.path.join(d, "deep.py")
    with open(path, "w") as f:
        f.write(DEEP)
    try:
        tr = t.run(["--plugin", "cudart", "--stacks"], command=[DEBIAN, path, CUDART])
    finally:
        shutil.rmtree(d, True)
    t.check(tr.rc == 0, "deep: the tracer failed", tr)
    calls = tr.calls(api="cudaGetDeviceCount")
    depth = sorted(len(e.get("py_stack", [])) for e in calls)
    # leaf, rec x (d + 1), für, run, _bootstrap_inner, _bootstrap; 64 at most
    t.check(depth == [6, 36, 64], "deep: py_stack depths %r" % depth, tr)
    for e in calls:
        ps = e["py_stack"]
        t.check(ps[0]["function"] == "leaf" and ps[0]["file"] == path, "deep: innermost %r" % ps[:1], tr)
        t.check(e.get("py_stack_truncated", False) == (len(ps) == 64), "deep: truncated flag %r" % e, tr)
        named = [f for f in ps if f["function"] == "?"]
        t.check(len(ps) == 64 or (len(named) == 1 and named[0].get("why")),
                "deep: the non-ASCII name not said: %r" % ps, tr)
        t.check(e.get("stack") and all(f.get("module") for f in e["stack"]), "deep: native stack %r" % e.get("stack"), tr)


def main():
    t.need_root()
    if not os.path.exists(CUDART):
        t.skip("no %s" % CUDART)
    if not os.path.exists(DEBIAN):
        t.skip("no %s (Debian's python3.11)" % DEBIAN)
    script = script_path()
    for py in pythons():
        test_frames(py, script)
    test_sinks(script)
    test_no_stacks(script)
    test_refused(script)
    test_deep_threads()
    print("ok: %s" % " ".join(pythons()))


main()
