# SPDX-License-Identifier: MIT
"""--stacks (docs/stacks.md): the frames of known call stacks, exactly.

stack_calls (tests/programs/stack_calls.c) calls cudaMalloc of the stand-in
libcudart.so.99 through main -> outer -> inner. Built with frame pointers,
method fp gives inner, outer, main, in that order, each in the test binary
at an offset inside the function; built at -O2 without frame pointers,
method dwarf (the unwinder, from .eh_frame) gives the same. The memory
sink names the never-freed allocations' site. A stack deeper than
stacks.depth ends in [truncated]; a library deleted from disk before its
call is still named (through /proc/PID/map_files). Failing calls from two
sites (stack_calls errors) are grouped by site in the summary (table and
json) and the html report, live and replayed from the jsonl trace by
`cudatracer report`; chrome's slices carry their frames.
"""
import json
import os
import shutil
import subprocess

import cttest

cttest.need_root()
fp = cttest.program("fake/stack_calls_fp")
nofp = cttest.program("fake/stack_calls_nofp")
lib = cttest.program("fake/libstack_lib.so")


def funcs(ev):
    return [f.get("function") for f in ev["stack"]]


def symbols(binary):
    """{name: (start, size)} of the binary's functions, from nm."""
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tT":
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return syms


def check_frames(t, binary, method):
    mallocs = t.calls("cudaMalloc")
    cttest.check(len(mallocs) == 3, "%s: %d cudaMalloc events, expected 3" % (method, len(mallocs)), t)
    syms = symbols(binary)
    for ev in mallocs[:2]:
        cttest.check("stack" in ev, "%s: cudaMalloc has no stack: %s" % (method, ev), t)
        top = ev["stack"][:3]
        cttest.check([f["function"] for f in top] == ["inner", "outer", "main"],
                     "%s: frames %s, expected inner, outer, main first" % (method, funcs(ev)), t)
        for f in top:
            cttest.check(f["module"] == os.path.realpath(binary),
                         "%s: frame %s in %s, not the test binary" % (method, f["function"], f["module"]), t)
            off = int(f["offset"], 16)
            cttest.check(0 < off < syms[f["function"]][1],
                         "%s: %s+%#x lies outside the function (size %#x)"
                         % (method, f["function"], off, syms[f["function"]][1]), t)
    # One site in inner and outer for both calls: the same frames, the same
    # return addresses (main's loop may be unrolled at -O2).
    cttest.check(mallocs[0]["stack"][:2] == mallocs[1]["stack"][:2], "%s: one site gave two stacks" % method, t)
    cttest.check(funcs(mallocs[2])[:2] == ["other_site", "main"],
                 "%s: other_site's stack is %s" % (method, funcs(mallocs[2])), t)
    free = t.calls("cudaFree")
    cttest.check(len(free) == 1 and funcs(free[0])[:2] == ["other_site", "main"],
                 "%s: cudaFree's stack: %s" % (method, free), t)


# Frame pointers, the kernel's walk.
t = cttest.run(["--stacks", "-q"], command=[fp], extra_sinks=cttest.SUMMARY_AND_MEMORY_SINKS)
cttest.check(t.rc == 0, "tracer exited %d" % t.rc, t)
check_frames(t, fp, "fp")
# The memory report: the two never-freed allocations, at their site.
with open(os.path.join(t.files, "memory.txt")) as f:
    mem = f.read()
at = mem.find("never freed, by allocation site:")
cttest.check(at >= 0, "the memory report has no allocation sites:\n" + mem)
site = mem[at:].splitlines()
cttest.check(site[1].strip() == "3145728 bytes in 2 allocations at:", "site line: %r\n%s" % (site[1], mem))
cttest.check([l.strip().split("+")[0] for l in site[2:5]] == ["inner", "outer", "main"],
             "site frames:\n%s" % mem)

# No frame pointers: the unwinder.
t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = dwarf\n", command=[nofp])
cttest.check(t.rc == 0, "tracer exited %d" % t.rc, t)
check_frames(t, nofp, "dwarf")

# A stack deeper than stacks.depth: its first frames, then [truncated].
t = cttest.run(["--stacks", "-q"], config="[stacks]\ndepth = 8\n", command=[fp, "deep", "50"])
m = t.calls("cudaMalloc")
cttest.check(len(m) == 1 and len(m[0]["stack"]) == 9, "deep: %s" % m, t)
cttest.check(funcs(m[0]) == ["inner", "outer"] + ["recurse"] * 6 + ["[truncated]"], "deep: %s" % funcs(m[0]), t)
t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = dwarf\ndwarf_bytes = 4K\n",
               command=[nofp, "deep", "400"])
m = t.calls("cudaMalloc")
cttest.check(len(m) == 1 and funcs(m[0])[:3] == ["inner", "outer", "recurse"] and
             funcs(m[0])[-1] == "[truncated]", "dwarf deep: %s" % (m and funcs(m[0])), t)

# A module deleted from disk before its call: named through its mapping
# (/proc/PID/map_files) while the process lives; once it has exited too,
# nothing is left to read: [unknown], with the file and the offset in it
# when its maps were read after the dlopen, with the address alone if not.
for binary, method in ((fp, "fp"), (nofp, "dwarf")):
    for hold in (["hold"], []):
        tmp = os.path.join(t.files, "gone-%s.so" % method)
        shutil.copy(lib, tmp)
        t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = %s\n" % method,
                       command=[binary, "deleted", tmp] + hold)
        m = t.calls("cudaMalloc")
        cttest.check(len(m) == 1 and "stack" in m[0], "deleted (%s %s): %s" % (method, hold, m), t)
        top = m[0]["stack"][0]
        if hold:
            cttest.check(top["module"].startswith(tmp), "deleted (%s, alive): first frame %s" % (method, top), t)
            cttest.check(top["function"] == "stack_lib_alloc", "deleted (%s, alive): %s" % (method, top), t)
            if method == "dwarf":
                cttest.check(funcs(m[0])[1] == "main", "deleted (dwarf): %s" % funcs(m[0]), t)
        else:
            # Its maps may have been read before the dlopen: then not even the file is known.
            cttest.check(top["function"] in ("[unknown]", "stack_lib_alloc") and
                         (top["module"].startswith(tmp) or top["module"] == "[unknown]"),
                         "deleted (%s, gone): %s" % (method, top), t)
            if top["function"] == "[unknown]" and top["module"] != "[unknown]":
                sym = symbols(lib)["stack_lib_alloc"]
                cttest.check(sym[0] < int(top["offset"], 16) <= sym[0] + sym[1],
                             "deleted (%s, gone): offset %s outside stack_lib_alloc" % (method, top["offset"]), t)

# A JIT frame: inner() called from a thunk in anonymous executable memory.
# Frame pointers walk through it: its frame is [unknown] in [unknown] (not
# a file that was mapped there before it, as ld.so.cache is at start), and
# the frames past it are named. The unwinder has no unwind information for
# it: libdw goes on by its frame pointer, or the stack ends there saying why.
t = cttest.run(["--stacks", "-q"], command=[fp, "jit"])
cttest.check(t.rc == 0, "jit (fp): tracer exited %d" % t.rc, t)
m = t.calls("cudaMalloc")
cttest.check(len(m) == 1 and "stack" in m[0], "jit (fp): %s" % m, t)
st = m[0]["stack"]
cttest.check(funcs(m[0])[:4] == ["inner", "[unknown]", "jit_call", "main"] and st[1]["module"] == "[unknown]",
             "jit (fp): frames %s" % st[:4], t)
t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = dwarf\n", command=[nofp, "jit"])
m = t.calls("cudaMalloc")
cttest.check(len(m) == 1 and "stack" in m[0], "jit (dwarf): %s" % m, t)
st = m[0]["stack"]
cttest.check(st[0]["function"] == "inner" and st[1]["function"] == "[unknown]" and st[1]["module"] == "[unknown]" and
             (funcs(m[0])[2:4] == ["jit_call", "main"] or (len(st) == 2 and st[1].get("why"))),
             "jit (dwarf): frames %s" % st, t)

# Errors by site: err_site_a's cudaFree(NULL) twice, err_site_b's once.
SITE_SINKS = """
[sink.summary]
type = summary
path = @TMP@/summary.json
format = json
[sink.html]
type = html
path = @TMP@/report.html
[sink.chrome]
type = chrome
path = @TMP@/trace.json
"""
t = cttest.run(["--stacks", "-q"], command=[fp, "errors"], extra_sinks=SITE_SINKS)
cttest.check(t.rc == 0, "errors: tracer exited %d" % t.rc, t)
fails = t.calls("cudaFree")
cttest.check(len(fails) == 3 and all(e["error"] for e in fails), "errors: %s" % fails, t)
cttest.check([funcs(e)[:2] for e in fails] == [["err_site_a", "main"]] * 2 + [["err_site_b", "main"]],
             "errors: stacks %s" % [funcs(e) for e in fails], t)


def site_lines(ev, n):
    """The first n frames of a jsonl stack as the sinks write them: "inner+0x1a (/path/app)"."""
    return ["%s+0x%x (%s)" % (f["function"], int(f["offset"], 16), f["module"]) for f in ev["stack"][:n]]


want_a, want_b = site_lines(fails[0], 2), site_lines(fails[2], 2)
with open(os.path.join(t.files, "summary.json")) as f:
    apis = {a["api"]: a for a in json.load(f)["processes"][0]["apis"]}
errs = apis["cudaFree"]["errors_by_name"]
cttest.check(len(errs) == 1 and errs[0]["calls"] == 3 and errs[0]["stacked"] == 3, "summary errors: %s" % errs)
sites = errs[0]["sites"]
cttest.check([(s["count"], s["stack"][:2]) for s in sites] == [(2, want_a), (1, want_b)],
             "summary sites: %s, expected %s then %s" % (sites, want_a, want_b))
cttest.check(errs[0]["error"] == fails[0]["result_name"], "summary error name: %s" % errs[0])
with open(os.path.join(t.files, "report.html")) as f:
    page = f.read()
at = page.find('<table class="error-sites"')
cttest.check(at >= 0, "html: no error sites table")
rows = page[at:page.find("</table>", at)].split("<tr>")[2:]
cttest.check(len(rows) == 2 and "<td class=\"n\">2</td>" in rows[0] and "<td class=\"n\">1</td>" in rows[1],
             "html error site rows: %s" % rows)
cttest.check(all(l in rows[0] for l in want_a) and all(l in rows[1] for l in want_b), "html sites: %s" % rows)
with open(os.path.join(t.files, "trace.json")) as f:
    chrome = json.load(f)
slices = [e for e in chrome["traceEvents"] if e["ph"] == "X" and e["name"] == "cudaFree"]
cttest.check([e["args"]["stack"][:2] for e in slices] == [want_a, want_a, want_b],
             "chrome stacks: %s" % [e["args"].get("stack") for e in slices])
# Replayed from the jsonl trace: the same sites.
jsonl = os.path.join(t.files, "events.jsonl")
rep = subprocess.run([cttest.TRACER, "report", jsonl, "-o", "summary:" + os.path.join(t.files, "rep.txt"),
                      "-o", "html:" + os.path.join(t.files, "rep.html")], capture_output=True, text=True, timeout=120)
cttest.check(rep.returncode == 0, "report: %d\n%s" % (rep.returncode, rep.stderr))
with open(os.path.join(t.files, "rep.txt")) as f:
    text = f.read()
at = text.find("Errors by site")
cttest.check(at >= 0, "report summary: no errors by site\n" + text)
lines = [l.strip() for l in text[at:].splitlines()]
cttest.check(lines[1] == "cudart cudaFree %s: 3 calls" % fails[0]["result_name"] and lines[2] == "2 calls at:" and
             lines[3:5] == want_a and "1 call at:" in lines and
             lines[lines.index("1 call at:") + 1:lines.index("1 call at:") + 3] == want_b,
             "report summary sites:\n" + text[at:])
with open(os.path.join(t.files, "rep.html")) as f:
    page = f.read()
cttest.check('<table class="error-sites"' in page and all(l in page for l in want_a + want_b),
             "report html: sites missing")

# Not asked for: no stack, and no stack on an API outside stacks.apis.
t = cttest.run(["-q"], command=[fp])
cttest.check(all("stack" not in e for e in t.calls()), "stacks without --stacks", t)
t = cttest.run(["--stacks=cudaFree", "-q"], command=[fp])
cttest.check([e["api"] for e in t.calls() if "stack" in e] == ["cudaFree"],
             "--stacks=cudaFree: stacks on %s" % [e["api"] for e in t.calls() if "stack" in e], t)
print("ok")
