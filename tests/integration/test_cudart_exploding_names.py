# SPDX-License-Identifier: MIT
"""Names a traced program chooses, through the real probe path
(tests/programs/exploding_names.c, core/symbols/demangle.h): a kernel whose
host stub's mangled name (some 400 bytes) demangles to gigabytes, launched
with cudaLaunchKernel of the real libcudart from a function whose mangled
name is 5000 bytes. The tracer stays bounded in time and memory; the jsonl
line names the kernel by its mangled name as it is (its demangling passes
CT_NAME_MAX: not kept), the launching frame by its name cut to CT_NAME_MAX
bytes ending in "...[cut]", and the line stays short; the text sink writes
the kernel's name and the frame's, cut to its 1 KiB a frame line."""
import os
import re
import resource
import time
import cttest as t

CUDART = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64", "libcudart.so")
NAME_MAX, CUT = 4096, "...[cut]"  # core/symbols/demangle.h
LEVEL = "S0_IS%s_S%s_E"
EXPLODING = "_Z1f1x1AIS_S_E" + "".join(LEVEL % (c, c) for c in "123456789ABCDEFGHIJKLMNOPQRSTU")
LONG = "_Z5000" + "x" * 5000 + "v"
SINKS = """
[sink.text]
type = text
path = @TMP@/calls.txt
"""


def main():
    t.need_root()
    if not os.path.exists(CUDART):
        t.skip("no %s" % CUDART)
    prog = t.program("exploding_names")
    start = time.monotonic()
    tr = t.run(["--plugin", "cudart", "--stacks=launch", "-q"], command=[prog, CUDART], extra_sinks=SINKS,
               timeout=60)
    took = time.monotonic() - start
    # The tracer and the program, at their largest: a demangling built in full
    # would take gigabytes and minutes.
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    t.check(tr.rc == 0, "tracer exited %d" % tr.rc, tr)
    t.check(took < 30 and rss_mb < 256, "took %.1f s, %.0f MB at most: not bounded" % (took, rss_mb), tr)
    launches = tr.calls("cudaLaunchKernel")
    t.check(len(launches) == 1, "%d cudaLaunchKernel events, not 1" % len(launches), tr)
    ev = launches[0]
    t.check(ev["args"]["func"] == EXPLODING, "func is %r, not the mangled name as it is" % ev["args"]["func"][:200], tr)
    caller = LONG[:NAME_MAX - len(CUT)] + CUT
    frames = [f.get("function") for f in ev.get("stack", [])]
    t.check(frames[:2] == [caller, "main"], "frames %r, not the cut name then main" % [f[:40] for f in frames[:2]], tr)
    with open(os.path.join(tr.files, "events.jsonl")) as f:
        line = next(l for l in f if '"cudaLaunchKernel"' in l)
    # The names, the stack's other frames and the keys: within 4 names' worth.
    t.check(len(line) < 4 * NAME_MAX, "the jsonl line is %d bytes" % len(line), tr)
    with open(os.path.join(tr.files, "calls.txt")) as f:
        text = f.read()
    lines = text.splitlines()
    at = next((i for i, l in enumerate(lines) if re.search(r"cudaLaunchKernel\(func=%s, " % re.escape(EXPLODING), l)),
              None)
    t.check(at is not None, "text sink: no launch naming the kernel by its mangled name:\n" + text[:3000], tr)
    # A frame's line is cut at 1 KiB (core/sinks/stackfmt.c): the caller's name, cut.
    frame = lines[at + 1].strip()
    t.check(frame.startswith(LONG[:900]) and len(lines[at + 1]) < 1100, "text sink: frame %d bytes: %r..." %
            (len(lines[at + 1]), frame[:60]), tr)
    print("ok: %.1f s, %.0f MB" % (took, rss_mb))


main()
