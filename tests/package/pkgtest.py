# SPDX-License-Identifier: MIT
"""What the install and package tests share: the sample's trace as the
build tree's tracer gives it, the layout an install has."""
import re
import subprocess

import cttest

# samples/sample.cu's calls, in order (the runtime adds calls of its own).
SAMPLE_CALLS = ["cudaGetDeviceCount", "cudaMalloc", "cudaStreamCreate", "cudaMemcpy", "cudaLaunchKernel",
                "cudaMemcpyAsync", "cudaStreamSynchronize", "cudaStreamDestroy", "cudaFree",
                "cudaDeviceSynchronize"]


def install_layout():
    """The build's prefix and its folders, relative to it, as CMake has them."""
    with open(cttest.BUILD + "/CMakeCache.txt") as f:
        cache = f.read()
    prefix = re.search(r"^CMAKE_INSTALL_PREFIX:PATH=(.*)$", cache, re.M).group(1)
    libdir = re.search(r"^CMAKE_INSTALL_LIBDIR:PATH=(.*)$", cache, re.M).group(1)
    system = re.search(r"instead of (\S+)", subprocess.run([cttest.TRACER, "--help"], capture_output=True,
                                                           text=True).stdout).group(1)
    return prefix, {
        "binary": "bin/cudatracer",
        "plugin": libdir + "/cudatracer/plugins/libct-cudart.so",
        # What --gpu-activity and --engine inproc put into the command.
        "inject": libdir + "/cudatracer/libcudatracer-inject.so",
        "inproc": libdir + "/cudatracer/libcudatracer-inproc.so",
        "inproc_cudart": libdir + "/cudatracer/libcudatracer-inproc-cudart.so",
        "man1": "share/man/man1/cudatracer.1.gz",
        "man5": "share/man/man5/cudatracer.ini.5.gz",
        "completion": "share/bash-completion/completions/cudatracer",
        "header": "include/cudatracer/plugin.h",
        "pc": libdir + "/pkgconfig/cudatracer.pc",
        "gen_enum": "share/cudatracer/gen_enum.py",
        "gen_apis": "share/cudatracer/gen_apis.py",
        "copyright": "share/doc/cudatracer/copyright",
        "changelog": "share/doc/cudatracer/changelog.Debian.gz",
    }, system


def reference_trace(sample):
    """The sample traced by the build tree's tracer: what an installed one must give."""
    trace = cttest.run(["--plugin", "cudart"], command=[sample])
    check_sample(trace.events, "the build tree's tracer", trace)
    return [(e["api"], e["result_name"]) for e in trace.events]


def check_sample(events, who, trace=None):
    apis = [e["api"] for e in events]
    it = iter(apis)
    cttest.check(all(a in it for a in SAMPLE_CALLS),
                 "%s: the sample's calls are not all there, in order:\n got  %s\n want %s" % (who, apis, SAMPLE_CALLS),
                 trace)
