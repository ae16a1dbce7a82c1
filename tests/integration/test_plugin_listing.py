# SPDX-License-Identifier: MIT
"""--list-plugins: a header, then one line per plugin sorted by name, in
columns that line up, with each in-tree plugin's name, the project's
version, its number of APIs (variants counted), its description and its
path; then every libct-*.so that did not load, with the reason, and the
folders searched."""
import os
import shutil
import subprocess
import tempfile
import cttest as t

with open(os.path.join(t.BUILD, "CMakeCache.txt")) as f:
    VERSION = [l.split("=", 1)[1].strip() for l in f if l.startswith("CMAKE_PROJECT_VERSION:")][0]

WANT = {  # name: (APIs: every function the build's library exports, docs/plugins.md, description)
    "cuda": (637, "CUDA driver API (libcuda)"),
    "cudart": (420, "CUDA runtime API (libcudart)"),
    "hip": (404, "AMD HIP runtime (libamdhip64)"),
    "opencl": (133, "OpenCL through the ICD loader (libOpenCL)"),
}


def main():
    p = subprocess.run([t.TRACER, "--list-plugins"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, CUDATRACER_PLUGIN_PATH=""))
    t.check(p.returncode == 0 and p.stderr == "", "exit %d\n%s" % (p.returncode, p.stderr))
    lines = p.stdout.split("\n\n")[0].splitlines()
    head = lines[0]
    t.check(head.split() == ["NAME", "VERSION", "APIS", "DESCRIPTION", "PATH"], "header: %r" % head)
    # Left-aligned columns start where their header does; APIS is right-aligned to its header.
    start = {c: head.index(c) for c in ("NAME", "VERSION", "DESCRIPTION", "PATH")}
    apis_end = head.index("APIS") + len("APIS")
    plugins = os.path.join(t.BUILD, "plugins")
    rows = {}
    for l in lines[1:]:
        name = l[:start["VERSION"]].strip()
        rows[name] = l
        t.check(l[start["VERSION"]:].split()[0] == VERSION, "%s: version is not %s: %r" % (name, VERSION, l))
        t.check(l[start["VERSION"] - 1] == " " and l[start["DESCRIPTION"] - 1] == " "
                and l[start["PATH"] - 1] == " " and l[apis_end] == " ", "columns do not line up: %r" % l)
    for name, (n, desc) in WANT.items():
        t.check(name in rows, "%s not listed:\n%s" % (name, p.stdout))
        l = rows[name]
        t.check(int(l[:apis_end].split()[-1]) == n, "%s: want %d APIs: %r" % (name, n, l))
        t.check(l[start["DESCRIPTION"]:start["PATH"]].rstrip() == desc, "%s: description %r" % (name, l))
        t.check(l[start["PATH"]:] == os.path.join(plugins, "libct-%s.so" % name), "%s: path %r" % (name, l))
    t.check("CT_API" not in p.stdout, "a rename leftover:\n" + p.stdout)
    names = [l.split()[0] for l in lines[1:]]
    t.check(names == sorted(names), "not sorted by name: %s" % names)
    t.check(p.stdout.rstrip("\n").splitlines()[-1].startswith("plugin path: ") and plugins in p.stdout,
            "no plugin path line:\n" + p.stdout)

    # A folder before the built-in one, with a plugin for another ABI, a file
    # that is not ELF and a second cudart: each one said, nothing on stderr.
    d = tempfile.mkdtemp(prefix="ctlist.")
    os.chmod(d, 0o755)
    bad = os.path.join(d, "libct-badabi.so")
    shutil.copy(os.path.join(t.BUILD, "tests", "badplugins", "libct-badabi.so"), bad)
    junk = os.path.join(d, "libct-junk.so")
    with open(junk, "w") as f:
        f.write("not a shared object\n")
    mine = os.path.join(d, "libct-cudart.so")
    shutil.copy(os.path.join(plugins, "libct-cudart.so"), mine)
    for f in (bad, junk, mine):
        os.chmod(f, 0o644)
    p = subprocess.run([t.TRACER, "--list-plugins"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, CUDATRACER_PLUGIN_PATH=d))
    t.check(p.returncode == 0 and p.stderr == "", "exit %d\n%s" % (p.returncode, p.stderr))
    table, failed, path = p.stdout.split("\n\n")
    rows = table.splitlines()[1:]
    cudart = [l for l in rows if l.split()[0] == "cudart"]
    t.check(len(cudart) == 2 and cudart[0].endswith(mine)
            and cudart[1].endswith(os.path.join(plugins, "libct-cudart.so") + " (not used: --plugin loads the one above)"),
            "two cudart plugins:\n" + p.stdout)
    t.check(failed.splitlines() == [
        "not loaded (2):",
        "  cannot load plugin %s: it was built for plugin ABI 9999, but this cudatracer (%s) speaks ABI 3: rebuild "
        "the plugin against this cudatracer's headers (pkg-config --cflags cudatracer)" % (bad, VERSION),
        "  cannot load plugin %s: %s: file too short" % (junk, junk)], "not loaded:\n" + failed)
    t.check(path.startswith("plugin path: %s:%s:" % (d, plugins)), "plugin path: " + path)
    shutil.rmtree(d)
    print("ok")


main()
