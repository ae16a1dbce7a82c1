# SPDX-License-Identifier: MIT
"""--stacks (docs/stacks.md): the frames of known call stacks, exactly.

stack_calls (tests/programs/stack_calls.c) calls cudaMalloc of the stand-in
libcudart.so.99 through main -> outer -> inner. Built with frame pointers,
method fp gives inner, outer, main, in that order, each in the test binary
at an offset inside the function; built at -O2 without frame pointers,
method dwarf (the unwinder, from .eh_frame) gives the same. Built with -g,
each of those frames has the source file and line of its call; libc's (no
DWARF) have none, nor has a module whose compressed DWARF inflates to 1 GiB. The memory
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
import resource
import struct
import subprocess
import zlib

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


SOURCE = os.path.realpath(os.path.join(cttest.SOURCE, "tests", "programs", "stack_calls.c"))
with open(SOURCE) as f:
    _src = f.read().splitlines()
# The line of each frame's call (the binaries are built with -g).
CALL_LINES = {fn: _src.index(text) + 1 for fn, text in (
    ("inner", "\tint r = cudaMalloc(&p, bytes);"), ("outer", "\tint r = inner(bytes);"),
    ("main", "\t\touter((size_t)i << 20);"))}


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
            cttest.check((f.get("file"), f.get("line")) == (SOURCE, CALL_LINES[f["function"]]),
                         "%s: %s at %s:%s, not %s:%d" % (method, f["function"], f.get("file"), f.get("line"),
                                                          SOURCE, CALL_LINES[f["function"]]), t)
            off = int(f["offset"], 16)
            cttest.check(0 < off < syms[f["function"]][1],
                         "%s: %s+%#x lies outside the function (size %#x)"
                         % (method, f["function"], off, syms[f["function"]][1]), t)
        # libc has no DWARF of its own (its debug file is not read): no line.
        # (Below main, method fp follows libc's rbp, which is no frame pointer:
        # the unwinder's frames are the ones that reach libc every time.)
        libc = [f for f in ev["stack"] if "/libc.so" in f.get("module", "")]
        cttest.check(method != "dwarf" or (libc and not any("file" in f or "line" in f for f in libc)),
                     "%s: libc frames %s" % (method, libc), t)
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



def zip_bomb(path, section, size):
    """Make the compressed `section` of the ELF64 file at path `size` zero bytes
    deflated (about size / 1000 bytes in the file), placed at the file's end."""
    z = zlib.compressobj(9)
    payload = struct.pack("<IIQQ", 1, 0, size, 1)  # Elf64_Chdr: ELFCOMPRESS_ZLIB
    payload += b"".join(z.compress(bytes(1 << 20)) for _ in range(size >> 20)) + z.flush()
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        names = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)[0]
        for i in range(shnum):
            sh = shoff + i * shentsize
            name, = struct.unpack_from("<I", data, sh)
            flags, = struct.unpack_from("<Q", data, sh + 8)
            if data[names + name:].split(b"\0", 1)[0] == section.encode() and flags & 0x800:  # SHF_COMPRESSED
                at = (len(data) + 7) & ~7
                struct.pack_into("<QQ", data, sh + 0x18, at, len(payload))  # sh_offset, sh_size
                f.seek(0)
                f.write(data + bytes(at - len(data)) + payload)
                return
    raise AssertionError("%s has no compressed %s" % (path, section))


# Source lines from compressed DWARF (objcopy --compress-debug-sections); none
# from a module whose .debug_info inflates to 1 GiB (past the 64 MiB of DWARF
# read of a module): its frames are named all the same, and the tracer does
# not grow by the gigabyte.
for bomb in (False, True):
    copy = os.path.join(t.files, "stack_calls_z")
    subprocess.run(["objcopy", "--compress-debug-sections=zlib", fp, copy], check=True)
    if bomb:
        zip_bomb(copy, ".debug_info", 1 << 30)
    z = cttest.run(["--stacks", "-q"], command=[copy], env={"LD_LIBRARY_PATH": os.path.join(os.path.dirname(fp), "lib")})
    rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    cttest.check(rss_mb < 512, "compressed DWARF: %.0f MB at most" % rss_mb, z)
    m = z.calls("cudaMalloc")
    cttest.check(z.rc == 0 and len(m) == 3 and funcs(m[0])[:3] == ["inner", "outer", "main"],
                 "compressed DWARF%s: %s" % (" (1 GiB claimed)" if bomb else "", m and funcs(m[0])), z)
    got = [(f.get("file"), f.get("line")) for f in m[0]["stack"][:3]]
    want = [(None, None)] * 3 if bomb else [(SOURCE, CALL_LINES[f]) for f in ("inner", "outer", "main")]
    cttest.check(got == want, "compressed DWARF%s: lines %s, not %s" % (" (1 GiB claimed)" if bomb else "", got, want), z)

# No frame pointers: the unwinder.
t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = dwarf\n", command=[nofp])
cttest.check(t.rc == 0, "tracer exited %d" % t.rc, t)
check_frames(t, nofp, "dwarf")

# A stack deeper than stacks.depth: its first frames, then [truncated].
t = cttest.run(["--stacks", "-q"], config="[stacks]\ndepth = 8\n", command=[fp, "deep", "50"])
m = t.calls("cudaMalloc")
cttest.check(len(m) == 1 and len(m[0]["stack"]) == 9, "deep: %s" % m, t)
cttest.check(funcs(m[0]) == ["inner", "outer"] + ["recurse"] * 6 + ["[truncated]"], "deep: %s" % funcs(m[0]), t)
# Method dwarf: the copy ends first. It is whole pages from the one sp is in,
# so of 8K, 4K to 8K lie above sp (where sp falls in its page differs from
# run to run: the kernel places the stack's top at random within a page,
# and the environment's size moves it): 4K hold inner, outer and some
# fifteen recurse() frames of ~300 bytes (stack_calls.c), 8K some thirty,
# far under the 126 frames kept. (With 4K, a sp near its page's end left
# room for inner alone.)
t = cttest.run(["--stacks", "-q"], config="[stacks]\nmethod = dwarf\ndwarf_bytes = 8K\n",
               command=[nofp, "deep", "400"])
m = t.calls("cudaMalloc")
fr = funcs(m[0]) if len(m) == 1 and "stack" in m[0] else []
# (Cut by the copy, not by the 126 frames kept: under the sanitizers a
# frame is smaller and some fifty fit.)
cttest.check(fr[:3] == ["inner", "outer", "recurse"] and fr[-1] == "[truncated]" and
             set(fr[2:-1]) == {"recurse"} and 12 <= len(fr) - 3 <= 100, "dwarf deep: %s" % fr, t)

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
    """The first n frames of a jsonl stack as the sinks write them:
    "inner+0x1a (/path/app) at /src/app.c:12" (its source line when known)."""
    return ["%s+0x%x (%s)%s" % (f["function"], int(f["offset"], 16), f["module"],
                                " at %s:%d" % (f["file"], f["line"]) if "file" in f else "") for f in ev["stack"][:n]]


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
