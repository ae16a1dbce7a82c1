#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate a plugin's API rows from its runtime's header and library.

    gen_apis.py CONFIG HEADER... [--library LIB] [-I DIR ...] [-D X ...]
                --name NAME -o OUT.c --header-out OUT.h

A real C parser (libclang, python3-clang) reads the HEADERs once for each line of
the config's `parses` (the preprocessor settings that declare the renamed
and per-thread-stream variants: cuMemAlloc -> cuMemAlloc_v2, cudaMemcpy ->
cudaMemcpy_ptds). For every function LIB exports (`nm -D --defined-only`;
every declared one when there is no library), one row of struct ct_api:
each parameter's name, how its bits are shown (from its C type and the
config's [types]) and where the x86-64 SysV ABI puts it: integer and
pointer arguments in rdi, rsi, rdx, rcx, r8, r9 (slots 0-5), then stack
words (slots 6-11); a struct by value classified as the ABI says (over 16
bytes: in memory, on the stack; else one register per eightbyte) and shown
field by field; float and double arguments travel in xmm registers, which
the engines do not read, and are left out of the row. Enums are named from
the header's own enum definitions. An exported function the header does not
declare still gets a row: its name, duration and result.

The hand-written rows of the plugin (its overlay: roles, out-parameters,
entry-only) come first in the plugin; the core drops a generated row whose
symbol the overlay has (docs/plugins.md, Generated rows).

OUT.c holds `const struct ct_api NAME_gen_apis[]`; OUT.h declares it with
its length, for CT_GEN_APIS(NAME_gen_apis) in the plugin's descriptor.
"""
import argparse
import configparser
import fnmatch
import os
import re
import shlex
import subprocess
import sys

try:
    import clang.cindex as ci
except ImportError:
    # Debian's python3-clang is the system python's: another python3 first
    # in PATH (pyenv, a venv) does not have it.
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.access("/usr/bin/python3", os.X_OK) and not os.environ.get("CT_GEN_APIS_REEXEC"):
        os.environ["CT_GEN_APIS_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("gen_apis: python3-clang is missing: apt-get install python3-clang (scripts/install-deps.sh)")

TK = ci.TypeKind
MAX_SLOTS = 12      # CT_MAX_SLOTS
MAX_ARGS = 16       # CT_MAX_ARGS
MAX_STR = 200       # bytes of a comment line we write
SIGNED = {TK.CHAR_S, TK.SCHAR, TK.SHORT, TK.INT, TK.LONG, TK.LONGLONG, TK.WCHAR}
UNSIGNED = {TK.BOOL, TK.CHAR_U, TK.UCHAR, TK.CHAR16, TK.CHAR32, TK.USHORT, TK.UINT, TK.ULONG, TK.ULONGLONG}
FLOATS = {TK.FLOAT, TK.DOUBLE, TK.LONGDOUBLE, TK.HALF}
# The config's [types] values: kind, size (None: the C type's), role.
SHAPES = {
    "ptr": ("CT_ARG_PTR", 8, "CT_ROLE_NONE"),
    "handle": ("CT_ARG_HANDLE", 8, "CT_ROLE_NONE"),
    "stream": ("CT_ARG_HANDLE", 8, "CT_ROLE_STREAM"),
    "context": ("CT_ARG_HANDLE", 8, "CT_ROLE_CONTEXT"),
    "device": ("CT_ARG_INT", 4, "CT_ROLE_DEVICE"),
    "hex": ("CT_ARG_HEX", None, "CT_ROLE_NONE"),
    "size": ("CT_ARG_SIZE", None, "CT_ROLE_NONE"),
    "dim3": ("CT_ARG_DIM3", 12, "CT_ROLE_NONE"),
}


def die(msg):
    sys.exit("gen_apis: " + msg)


def exports(lib):
    """The functions LIB exports: name -> address (one name per address first seen)."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ("T", "W", "i"):
            syms.setdefault(f[2].split("@")[0], int(f[0], 16))
    return syms


def parse(headers, args):
    idx = ci.Index.create()
    text = "".join('#include "%s"\n' % os.path.abspath(h) for h in headers)
    tu = idx.parse("headers.c", args=["-x", "c", "-std=gnu11"] + args, unsaved_files=[("headers.c", text)],
                   options=ci.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
    errs = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errs:
        die("%s: %s" % (" ".join(headers), "; ".join(str(d) for d in errs[:3])))
    funcs = {}
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.FUNCTION_DECL:
            funcs.setdefault(c.spelling, c)
    return funcs


def bare(t):
    """The type without qualifiers, typedef names kept."""
    return re.sub(r"\b(const|volatile|restrict|__restrict)\b", "", t.spelling).strip()


def typedef_chain(t):
    """The type's names, outermost typedef first: cudaStream_t, then struct CUstream_st *."""
    names = []
    while True:
        names.append(bare(t))
        if t.kind == TK.ELABORATED:
            t = t.get_named_type()
            continue
        if t.kind != TK.TYPEDEF:
            break
        t = t.get_declaration().underlying_typedef_type
    return names


class Gen:
    def __init__(self, cfg, name):
        self.cfg = cfg
        self.name = name
        self.types = dict(cfg["types"]) if cfg.has_section("types") else {}
        self.enums = {}     # C name -> (table name, [(value, name)])
        self.notes = []

    # -- enums -------------------------------------------------------------------
    def enum_table(self, t):
        decl = t.get_canonical().get_declaration()
        key = decl.spelling or bare(t)
        if key not in self.enums:
            seen, vals = set(), []
            for e in decl.get_children():
                if e.kind == ci.CursorKind.ENUM_CONSTANT_DECL and e.enum_value not in seen:
                    seen.add(e.enum_value)
                    vals.append((e.enum_value, e.spelling))
            if not vals:
                return None
            self.enums[key] = ("g_enum_%d" % len(self.enums), sorted(vals))
        return self.enums[key][0]

    # -- one value of a C type, at a place --------------------------------------------
    def shape(self, t, pname):
        """(kind, size, role, enum table) for a scalar of type t, or None."""
        for n in typedef_chain(t):
            if n in self.types:
                kind, size, role = SHAPES[self.types[n]]
                return kind, size or t.get_canonical().get_size(), role, None
        c = t.get_canonical()
        size = c.get_size()
        if c.kind in (TK.POINTER, TK.BLOCKPOINTER):
            p = c.get_pointee().get_canonical()
            if p.kind == TK.RECORD and p.get_size() < 0:
                return "CT_ARG_HANDLE", 8, "CT_ROLE_NONE", None   # an opaque handle
            return "CT_ARG_PTR", 8, "CT_ROLE_NONE", None
        if c.kind in (TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY):
            return "CT_ARG_PTR", 8, "CT_ROLE_NONE", None      # a parameter array is a pointer
        if c.kind == TK.ENUM:
            table = self.enum_table(t)
            if table:
                return "CT_ARG_ENUM", size, "CT_ROLE_NONE", table
            return "CT_ARG_INT", size, "CT_ROLE_NONE", None
        if c.kind in SIGNED | UNSIGNED and size in (1, 2, 4, 8):
            if "size_t" in typedef_chain(t):
                return "CT_ARG_SIZE", size, "CT_ROLE_NONE", None
            if "flag" in pname.lower() and c.kind in UNSIGNED:
                return "CT_ARG_HEX", size, "CT_ROLE_NONE", None
            return ("CT_ARG_INT" if c.kind in SIGNED else "CT_ARG_UINT"), size, "CT_ROLE_NONE", None
        return None

    def fields(self, t, prefix, base, out):
        """A struct's scalar fields, flattened: (name, C type, byte offset)."""
        c = t.get_canonical()
        if c.get_declaration().kind == ci.CursorKind.UNION_DECL:
            return out    # which member a union holds is not known: not shown
        for f in c.get_fields():
            off = base + f.get_field_offsetof() // 8
            ft = f.type.get_canonical()
            name = "%s.%s" % (prefix, f.spelling)
            if ft.kind == TK.RECORD and not any(n in self.types for n in typedef_chain(f.type)):
                self.fields(f.type, name, off, out)
            elif ft.kind in (TK.CONSTANTARRAY,):
                continue      # an array in a struct: not shown
            else:
                out.append((name, f.type, off))
        return out

    @staticmethod
    def eightbyte_sse(t):
        """Per eightbyte of a struct of 16 bytes or less: True where all its fields are floats."""
        flat = []

        def walk(t, base):
            for f in t.get_canonical().get_fields():
                ft = f.type.get_canonical()
                off = base + f.get_field_offsetof() // 8
                if ft.kind == TK.RECORD:
                    walk(ft, off)
                elif ft.kind == TK.CONSTANTARRAY:
                    el = ft.get_array_element_type().get_canonical()
                    for i in range(ft.get_array_size()):
                        flat.append((off + i * el.get_size(), el.kind in FLOATS))
                else:
                    flat.append((off, ft.kind in FLOATS))
        walk(t, 0)
        n = (t.get_canonical().get_size() + 7) // 8
        return [all(s for o, s in flat if o // 8 == w) for w in range(n)]

    # -- one function --------------------------------------------------------------
    def row(self, sym, cur, flags):
        """The C of one row; `cur` is the declaration, or None."""
        err_enum = self.cfg.get("gen", "error_enum")
        args, notes = [], []
        strslot = None
        result = None
        gpr, xmm, stack = 0, 0, 0
        if cur is not None:
            rt = cur.result_type.get_canonical()
            if rt.kind == TK.VOID:
                result = "CT_RETURNS_VOID"
            elif rt.kind == TK.ENUM and rt.get_declaration().spelling == err_enum or \
                    err_enum in typedef_chain(cur.result_type):
                result = None
            elif rt.kind in FLOATS:
                result = "CT_RETURNS_VOID"
                notes.append("returns a %s in xmm0, not read" % bare(cur.result_type))
            elif rt.kind == TK.RECORD and rt.get_size() > 16:
                result = "CT_RETURNS_HANDLE(-1)"  # the struct's address, which the callee returns
                gpr = 1                             # rdi carries it
            else:
                result = "CT_RETURNS_HANDLE(-1)"
            params = list(cur.get_arguments())
            if cur.type.kind == TK.FUNCTIONPROTO and cur.type.is_function_variadic():
                notes.append("variadic: the arguments past the named ones are not shown")
        else:
            result = "CT_RETURNS_HANDLE(-1)"
            params = []
            notes.append("not declared in the header: name, duration and the raw return value")
        for i, p in enumerate(params):
            pname = p.spelling or "arg%d" % i
            t = p.type
            c = t.get_canonical()
            size = c.get_size()
            shaped = self.shape(t, pname)
            if shaped and shaped[0] == "CT_ARG_DIM3" or c.kind == TK.RECORD and size <= 16 and not shaped:
                sse = self.eightbyte_sse(t) if c.kind == TK.RECORD else [False, False]
                need_g, need_x = sse.count(False), sse.count(True)
                if gpr + need_g <= 6 and xmm + need_x <= 8:
                    where = []
                    for s in sse:
                        if s:
                            where.append(None)
                            xmm += 1
                        else:
                            where.append(gpr)
                            gpr += 1
                    if shaped:      # dim3: x|y<<32 in one register, z in the next
                        if None in where or where[1] != where[0] + 1:
                            notes.append("%s: not in two registers in a row, not shown" % pname)
                        else:
                            args.append(self.arg(pname, shaped, where[0] * 8))
                        continue
                    for fname, ft, off in self.fields(t, pname, 0, []):
                        reg = where[off // 8]
                        fs = self.shape(ft, fname)
                        if reg is None or not fs:
                            continue
                        args.append(self.arg(fname, fs, reg * 8 + off % 8))
                    continue
                place = ("stack", stack)
                stack += (size + 7) // 8
            elif c.kind == TK.RECORD:
                place = ("stack", stack)
                stack += (size + 7) // 8
            elif c.kind in FLOATS:
                if xmm < 8:
                    xmm += 1
                    notes.append("%s: a %s in an xmm register, not read" % (pname, bare(t)))
                    continue
                place = ("stack", stack)
                stack += 1
                notes.append("%s: a %s on the stack, not shown" % (pname, bare(t)))
                continue
            elif shaped:
                if gpr < 6:
                    place = ("reg", gpr)
                    gpr += 1
                else:
                    place = ("stack", stack)
                    stack += 1
            else:
                notes.append("%s: type %s not shown" % (pname, bare(t)))
                if gpr < 6:
                    gpr += 1
                else:
                    stack += 1
                continue
            base = place[1] if place[0] == "reg" else 6 + place[1]
            if c.kind == TK.RECORD:
                for fname, ft, off in self.fields(t, pname, 0, []):
                    fs = self.shape(ft, fname)
                    slot = base + off // 8
                    if fs and slot < MAX_SLOTS and off % fs[1] == 0 and off % 8 + fs[1] <= 8:
                        args.append(self.arg(fname, fs, slot * 8 + off % 8))
                if base + (size + 7) // 8 > MAX_SLOTS:
                    notes.append("%s: past the %d slots a call captures, in part not shown" % (pname, MAX_SLOTS))
                continue
            if base >= MAX_SLOTS:
                notes.append("%s: past the %d slots a call captures, not shown" % (pname, MAX_SLOTS))
                continue
            if strslot is None and c.kind == TK.POINTER and \
                    c.get_pointee().get_canonical().kind in (TK.CHAR_S, TK.CHAR_U) and \
                    c.get_pointee().is_const_qualified() and shaped[0] == "CT_ARG_PTR":
                strslot = base
                args.append('CT_ARG("%s", CT_ARG_STRING, CT_IN_STR, 0, CT_ROLE_NONE)' % pname)
                continue
            args.append(self.arg(pname, shaped, base * 8))
        if len(args) > MAX_ARGS:
            notes.append("%d fields past the %d a row shows" % (len(args) - MAX_ARGS, MAX_ARGS))
            args = args[:MAX_ARGS]
        parts = ['"%s"' % sym, " | ".join(flags) or "0"]
        if result:
            parts.append(result)
        if strslot is not None:
            parts.append("CT_STR(%d)" % strslot)
        if args:
            parts.append("CT_ARGS(" + ",\n\t\t".join(args) + ")")
        text = "\tCT_API(" + ",\n\t       ".join(parts) + "),"
        if notes:
            text = "\t/* %s: %s */\n" % (sym, "; ".join(notes))[:MAX_STR] + text
        return text

    @staticmethod
    def arg(name, shaped, off):
        kind, size, role, table = shaped
        if kind == "CT_ARG_ENUM":
            return '{ .name = "%s", .kind = CT_ARG_ENUM, .area = CT_AREA_ARGS, .off = %d, .size = %d, ' \
                   '.role = %s, .count_from = -1, .names = &%s }' % (name, off, size, role, table)
        return '{ .name = "%s", .kind = %s, .area = CT_AREA_ARGS, .off = %d, .size = %d, .role = %s, ' \
               '.count_from = -1 }' % (name, kind, off, size, role)


def words(cfg, key):
    return cfg.get("gen", key, fallback="").split()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("header", nargs="+")
    ap.add_argument("--library")
    ap.add_argument("--name", required=True)
    ap.add_argument("-I", dest="inc", action="append", default=[])
    ap.add_argument("-D", dest="defs", action="append", default=[])
    ap.add_argument("-o", required=True)
    ap.add_argument("--header-out", required=True)
    a = ap.parse_args()
    cfg = configparser.ConfigParser(delimiters=("=",), comment_prefixes=("#", ";"), inline_comment_prefixes=("#",))
    cfg.optionxform = str
    if not cfg.read(a.config):
        die("%s: cannot read" % a.config)
    base = ["-I" + d for d in a.inc] + ["-D" + d for d in a.defs]
    parses = [shlex.split(x) for x in cfg.get("gen", "parses", fallback="").split("\n")] or [[]]
    if [] not in parses:
        parses.insert(0, [])
    decls = {}
    for extra in parses:
        for n, c in parse(a.header, base + extra).items():
            decls.setdefault(n, c)
    prefixes = tuple(words(cfg, "prefixes"))
    also = words(cfg, "also")
    exclude = set(words(cfg, "exclude"))
    hot = words(cfg, "hot")
    if a.library:
        syms = sorted(exports(a.library))
    else:
        hdrs = set(os.path.realpath(h) for h in a.header)
        syms = sorted(n for n, c in decls.items()
                      if c.location.file and os.path.realpath(c.location.file.name) in hdrs)
    g = Gen(cfg, a.name)
    rows = []
    for s in syms:
        if s in exclude or not (s.startswith(prefixes) or any(fnmatch.fnmatchcase(s, x) for x in also)):
            continue
        flags = ["CT_API_GENERATED"]
        if any(fnmatch.fnmatchcase(s, h) for h in hot):
            flags.append("CT_API_HOT")
        rows.append(g.row(s, decls.get(s), flags))
    if not rows:
        die("no function of %s is exported by %s" % (" ".join(a.header), a.library or "the headers"))
    out = ["/* Generated by tools/gen_apis.py from %s%s and %s: do not edit. */" %
           (" ".join(os.path.basename(h) for h in a.header),
            ", " + os.path.basename(a.library) if a.library else "",
            os.path.basename(a.config)),
           "#include <cudatracer/plugin.h>", "#include \"%s\"" % os.path.basename(a.header_out), ""]
    used = "".join(rows)
    for key, (table, vals) in g.enums.items():
        if "&%s " % table not in used:
            continue    # its only arguments were left out
        out.append("/* enum %s */" % key)
        out.append("static const struct ct_enum_entry %s_v[] = {" % table)
        out += ['\t{ %d, "%s" },' % v for v in vals]
        out.append("};")
        out.append("static const struct ct_enum %s = { %s_v, %d };" % (table, table, len(vals)))
    out += ["", "const struct ct_api %s_gen_apis[%d] = {" % (a.name, len(rows))] + rows + ["};", ""]
    h = ["/* Generated by tools/gen_apis.py: do not edit. */", "#include <cudatracer/plugin.h>",
         "extern const struct ct_api %s_gen_apis[%d];" % (a.name, len(rows)), ""]
    for path, text in ((a.o, out), (a.header_out, h)):
        with open(path + ".new", "w") as f:
            f.write("\n".join(text))
        os.replace(path + ".new", path)


if __name__ == "__main__":
    main()
