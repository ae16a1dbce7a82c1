#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whether each ELF file named keeps a .symtab (is not stripped), and its
size: why a running job's kernels need more than symbols to be named.

    python3 bench/elf_symtab.py FILE...
"""
import struct
import sys


def has_symtab(path):
    with open(path, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return None
        shoff, = struct.unpack_from("<Q", head, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", head, 0x3a)
        f.seek(shoff)
        sh = f.read(shentsize * shnum)
        types = [struct.unpack_from("<I", sh, i * shentsize + 4)[0] for i in range(shnum)]
        return 2 in types  # SHT_SYMTAB


for p in sys.argv[1:]:
    import os
    print("%s: %s, %.0f MB" % (p, {True: ".symtab kept", False: "stripped (no .symtab)", None: "not ELF64"}[has_symtab(p)],
                               os.path.getsize(p) / 1e6))
