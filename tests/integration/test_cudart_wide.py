#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CUDA runtime calls past the hand-written rows, from the rows generated
from cuda_runtime_api.h (tools/gen_apis.py): tests/programs/cudart_wide.c
makes each once, and each is traced once, in order, with its arguments
decoded by name: stack words (a cudaExtent, a cudaPitchedPtr by value), two
fields of a struct in one register (cudaMemLocation), dim3 in two, enums
named from the header, a struct returned in memory (cudaCreateChannelDesc:
its arguments start in rsi). A getter is traced in the full profile only.
--list-apis --lib counts libcudart's exports against the table."""
import re
import subprocess

import cttest as t

LIB = "/usr/local/cuda/lib64/libcudart.so"

# (api, {arg: value}) in program order.
EXPECTED = [
    ("cudaMallocPitch", {"width": 300, "height": 20}),
    ("cudaMalloc3D", {"width": 64, "height": 32, "depth": 4}),  # hand-written: the extent's words
    ("cudaMemcpyPeer", {"dst": "0x1000", "dstDevice": 1, "src": "0x2000", "srcDevice": 2, "count": 777}),
    ("cudaMemcpyToSymbol", {"count": 16, "offset": 4, "kind": "cudaMemcpyHostToDevice"}),
    ("cudaMemset2D", {"devPtr": "0x3000", "pitch": 512, "value": 9, "width": 100, "height": 7}),
    ("cudaMemPrefetchAsync", {"devPtr": "0x4000", "count": 4096, "location.type": "cudaMemLocationTypeDevice",
                              "location.id": 1, "flags": "0x0", "stream": "0x5100"}),
    ("cudaMemAdvise", {"advice": "cudaMemAdviseSetReadMostly", "location.type": "cudaMemLocationTypeHost",
                       "location.id": 0}),
    ("cudaHostRegister", {"size": 8192, "flags": "0x1"}),
    ("cudaHostUnregister", {}),
    ("cudaStreamBeginCapture", {"stream": "0x5100", "mode": "cudaStreamCaptureModeRelaxed"}),
    ("cudaGraphInstantiate", {"graph": "0x9900", "flags": "0x0"}),
    ("cudaFuncSetAttribute", {"attr": "cudaFuncAttributeMaxDynamicSharedMemorySize", "value": 65536}),
    ("cudaLaunchCooperativeKernel", {"func": "kernel_stub", "grid": [2, 3, 4], "block": [5, 6, 7],
                                     "sharedMem": 128, "stream": "0x5200"}),
    ("cudaMemPoolCreate", {}),
    ("cudaMallocFromPoolAsync", {"size": 1024, "memPool": "0x7700", "stream": "0x5100"}),
    ("cudaIpcGetMemHandle", {"devPtr": "0x8800"}),
    ("cudaCreateChannelDesc", {"x": 8, "y": 16, "z": 0, "w": 0, "f": "cudaChannelFormatKindUnsigned"}),
    ("cudaMallocArray", {"width": 32, "height": 16, "flags": "0x0"}),
    ("cudaMemset3D", {"pitchedDevPtr.ptr": "0x1234", "pitchedDevPtr.pitch": 256, "pitchedDevPtr.xsize": 64,
                      "pitchedDevPtr.ysize": 8, "value": 3, "extent.width": 64, "extent.height": 8}),
    ("cudaDeviceSetLimit", {"limit": "cudaLimitMallocHeapSize", "value": 1 << 20}),
    ("cudaDeviceGetLimit", {"limit": "cudaLimitStackSize"}),
    ("cudaDeviceEnablePeerAccess", {"peerDevice": 3, "flags": "0x0"}),
    ("cudaProfilerStart", {}),
    ("cudaProfilerStop", {}),
]
HOT = {"cudaDeviceGetLimit", "cudaIpcGetMemHandle"}  # [gen] hot of apis.ini: *Get*
# Returns a struct, not an error code: no result, the value (its address) as returned.
VALUE = {"cudaCreateChannelDesc"}


def check(tr, expected, what):
    got = tr.apis("cudart")
    want = [a for a, _ in expected]
    t.check(got == want, "%s: calls differ\n got: %s\nwant: %s" % (what, got, want), tr)
    for ev, (api, args) in zip(tr.calls(plugin="cudart"), expected):
        for k, v in args.items():
            t.check(ev["args"].get(k) == v, "%s: %s %s = %r, want %r" % (what, api, k, ev["args"].get(k), v), tr)
        if api in VALUE:
            t.check("result" not in ev and ev.get("ret", "").startswith("0x"), "%s: %s: %s" % (what, api, ev), tr)
        else:
            t.check(ev.get("result_name") == "cudaErrorInsufficientDriver",
                    "%s: %s result %r" % (what, api, ev.get("result_name")), tr)
        t.check(ev["dur_ns"] > 0, "%s: %s has no duration" % (what, api), tr)


def main():
    t.need_root()
    prog = t.program("cudart_wide")
    tr = t.run(["--plugin", "cudart"], command=[prog])
    t.check(tr.rc == 0 and tr.lost() == 0, "tracer rc %d" % tr.rc, tr)
    check(tr, [e for e in EXPECTED if e[0] not in HOT], "default profile")
    tr = t.run(["--plugin", "cudart", "--profile", "full"], command=[prog])
    check(tr, EXPECTED, "full profile")

    # Coverage: every function libcudart exports is in the table, but the
    # <<<>>> thunks, traced as the cudaLaunchKernel they call.
    out = subprocess.run([t.TRACER, "--no-config", "-C", "tracer.plugin_path=" + t.BUILD + "/plugins",
                          "-P", "cudart", "--list-apis", "--lib", LIB], capture_output=True, text=True)
    t.check(out.returncode == 0, "--list-apis --lib: rc %d: %s" % (out.returncode, out.stderr))
    nm = subprocess.run(["nm", "-D", "--defined-only", LIB], capture_output=True, text=True, check=True).stdout
    exported = {f[2].split("@")[0] for f in (line.split() for line in nm.splitlines())
                if len(f) == 3 and f[1] in "TW"}
    m = re.search(r"exports (\d+) functions: (\d+) in the table \((\d+) written by hand, (\d+) generated", out.stdout)
    t.check(m, "no coverage line:\n" + out.stdout[:2000])
    n, in_table = int(m.group(1)), int(m.group(2))
    t.check(n == len(exported), "exports %d, nm says %d" % (n, len(exported)))
    t.check(in_table == n - 2 and "not in the table: __cudaLaunchKernel, __cudaLaunchKernel_ptsz" in out.stdout,
            "coverage: %s" % m.group(0))
    listed = {line.split()[0] for line in out.stdout.splitlines() if line and not line.startswith("#")}
    t.check(exported - listed == {"__cudaLaunchKernel", "__cudaLaunchKernel_ptsz"},
            "exported, not listed: %s" % sorted(exported - listed)[:20])
    print("ok")


main()
