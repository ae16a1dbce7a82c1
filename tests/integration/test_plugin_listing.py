# SPDX-License-Identifier: MIT
"""--list-plugins: a header, then one line per plugin in columns that line
up, with each in-tree plugin's name, the project's version, its number of
APIs (variants counted), its description and its path."""
import os
import subprocess
import cttest as t

with open(os.path.join(t.BUILD, "CMakeCache.txt")) as f:
    VERSION = [l.split("=", 1)[1].strip() for l in f if l.startswith("CMAKE_PROJECT_VERSION:")][0]

WANT = {  # name: (APIs, description)
    "cuda": (93, "CUDA driver API (libcuda)"),
    "cudart": (57, "CUDA runtime API (libcudart)"),
    "hip": (32, "AMD HIP runtime (libamdhip64)"),
    "opencl": (23, "OpenCL through the ICD loader (libOpenCL)"),
}


def main():
    p = subprocess.run([t.TRACER, "--list-plugins"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, CUDATRACER_PLUGIN_PATH=""))
    t.check(p.returncode == 0 and p.stderr == "", "exit %d\n%s" % (p.returncode, p.stderr))
    lines = p.stdout.splitlines()
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
    print("ok")


main()
