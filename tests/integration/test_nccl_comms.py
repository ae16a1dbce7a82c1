#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Communicators made by ncclCommInitAll and ncclCommSplit, on the stand-in
libnccl (fake_nccl.c), whose calls succeed and write their handles.

ncclCommInitAll(comms, ndev): comms[i] is rank i of ndev. With ndev 3 each
ncclAllReduce on comms[i] must carry rank i, nranks 3. With ndev 10 only the
first 8 handles are read (CT_MAX_MEM_WORDS): comms[8] and comms[9] have no
communicator info. ncclCommSplit(world, color 7, key 2): the new one's id is
derived from world's id (0xfeedfacecafe0002) and the color as
decode/comms.c documents (splitmix64), the same on every rank of the split;
its rank and size (2 of 3: the stand-in's) come from ncclCommUserRank and
ncclCommCount on it, and the ncclAllReduce on it carries all three, and
seq 1. Its ncclCommSplit event itself shows the id, no rank or size yet.
"""
import os
import tempfile

import cttest

M64 = (1 << 64) - 1


def split_id(parent, color):
    z = (parent + 0x9e3779b97f4a7c15 * ((color & 0xffffffff) + 1)) & M64
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return (z ^ (z >> 31)) or 1


def trace(ndev):
    meet = tempfile.mkdtemp(prefix="ctcomms.")
    tr = cttest.run(["--plugin", "nccl"], command=[cttest.program(os.path.join("fakenccl", "nccl_comms")),
                                                   meet, str(ndev)])
    cttest.check(tr.rc == 0, "tracer: exit %d" % tr.rc, tr)
    return tr


def main():
    cttest.need_root()
    tr = trace(3)
    init = tr.calls("ncclCommInitAll")
    cttest.check(len(init) == 1 and init[0]["result_name"] == "ncclSuccess" and
                 init[0].get("communicator") == {"rank": 0, "nranks": 3}, "InitAll: %r" % init, tr)
    ar = tr.calls("ncclAllReduce")
    cttest.check(len(ar) == 4, "%d allreduces" % len(ar), tr)
    for i, e in enumerate(ar[:3]):
        cttest.check(e.get("communicator") == {"rank": i, "nranks": 3, "seq": 1}, "comms[%d]: %r" % (i, e), tr)
    want = "0x%x" % split_id(0xfeedfacecafe0002, 7)
    sp = tr.calls("ncclCommSplit")
    cttest.check(len(sp) == 1 and sp[0]["args"]["color"] == 7 and sp[0].get("communicator") == {"id": want},
                 "split: %r, want id %s" % (sp, want), tr)
    cttest.check(ar[3].get("communicator") == {"rank": 2, "nranks": 3, "id": want, "seq": 1},
                 "allreduce on the split: %r, want id %s" % (ar[3], want), tr)

    tr = trace(10)
    ar = tr.calls("ncclAllReduce")
    cttest.check(len(ar) == 11, "%d allreduces" % len(ar), tr)
    for i, e in enumerate(ar[:10]):
        want = {"rank": i, "nranks": 10, "seq": 1} if i < 8 else None
        cttest.check(e.get("communicator") == want, "ndev 10, comms[%d]: %r" % (i, e), tr)
    print("ok")


if __name__ == "__main__":
    main()
