#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The nccl plugin on every API nccl_calls makes, against the real libnccl.

Without a GPU, ncclCommInitRank fails with ncclUnhandledCudaError and calls
on a NULL communicator with ncclInvalidArgument, but every probe fires: each
event must show the symbol called, the exact decoded arguments (datatype and
op by name, root, peer, the commId's first word read from the stack), the
bytes (count x the datatype's size), the result by name, and the job keys
from the environment. pncclGetVersion is ncclGetVersion's alias: one probe,
so two calls make two events, not four. ncclBcast calls ncclBroadcast
inside: that one is nested (depth 1) and counts once in the summary.
"""
import os
import re

import cttest

S = "0x5555"  # the stream nccl_calls passes
A, B = "0x1000", "0x2000"  # its send and receive buffers


def version_code():
    with open(os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include", "nccl.h")) as f:
        return int(re.search(r"#define NCCL_VERSION_CODE (\d+)", f.read()).group(1))


def expected(uid):
    inval, cuda, ok = (4, "ncclInvalidArgument"), (1, "ncclUnhandledCudaError"), (0, "ncclSuccess")
    v = version_code()
    return [
        ("ncclGetVersion", ok, {"version": v}, 0),
        ("ncclGetVersion", ok, {"version": v}, 0),
        ("ncclGetUniqueId", ok, {"uniqueId": uid}, 0),
        # a failed init writes no communicator: the out word still holds 0xc0c0
        ("ncclCommInitRank", cuda, {"comm": "0xc0c0", "nranks": 4, "commId": "0x1122334455667788", "rank": 3}, 0),
        ("ncclCommInitRankConfig", cuda, {"comm": "0xc0c0", "nranks": 4, "commId": "0x1122334455667788",
                                          "rank": 2, "config": "0x0"}, 0),
        ("ncclCommInitAll", cuda, {"comm": "0xc0c0", "ndev": 2, "devlist": ANY}, 0),
        ("ncclCommSplit", cuda, {"comm": "0x0", "color": 5, "key": 6, "newcomm": "0xc1c1", "config": "0x0"}, 0),
        ("ncclCommCount", inval, {"comm": "0x0", "count": -8}, 0),
        ("ncclCommUserRank", inval, {"comm": "0x0", "rank": -9}, 0),
        ("ncclCommCuDevice", inval, {"comm": "0x0", "device": -10}, 0),
        ("ncclCommGetAsyncError", inval, {"comm": "0x0", "asyncError": -11}, 0),
        ("ncclMemAlloc", cuda, {"ptr": "0x7777", "size": 4096}, 0),
        ("ncclCommRegister", inval, {"comm": "0x0", "buff": A, "size": 8192, "handle": "0x8888"}, 0),
        ("ncclCommWindowRegister", cuda, {"comm": "0x0", "buff": A, "size": 8192, "win": "0x9999",
                                          "winFlags": "0x1"}, 0),
        ("ncclRedOpCreatePreMulSum", inval, {"op": -12, "scalar": ANY, "datatype": "ncclFloat32",
                                             "residence": "ncclScalarHostImmediate", "comm": "0x0"}, 0),
        ("ncclGroupStart", ok, {}, 0),
        ("ncclAllReduce", inval, {"sendbuff": A, "recvbuff": B, "count": 1024, "datatype": "ncclFloat32",
                                  "op": "ncclSum", "comm": "0x0", "stream": S}, 4096),
        ("ncclAllGather", inval, {"sendbuff": A, "recvbuff": B, "sendcount": 1025, "datatype": "ncclFloat16",
                                  "comm": "0x0", "stream": S}, 2050),
        ("ncclReduceScatter", inval, {"sendbuff": A, "recvbuff": B, "recvcount": 1026, "datatype": "ncclBfloat16",
                                      "op": "ncclMax", "comm": "0x0", "stream": S}, 2052),
        ("ncclBroadcast", inval, {"sendbuff": A, "recvbuff": B, "count": 1027, "datatype": "ncclInt64",
                                  "root": 1, "comm": "0x0", "stream": S}, 8216),
        ("ncclBcast", inval, {"buff": A, "count": 1028, "datatype": "ncclUint8", "root": 2, "comm": "0x0",
                              "stream": S}, 1028),
        ("ncclReduce", inval, {"sendbuff": A, "recvbuff": B, "count": 1029, "datatype": "ncclFloat64",
                               "op": "ncclMin", "root": 3, "comm": "0x0", "stream": S}, 8232),
        ("ncclAlltoAll", inval, {"sendbuff": A, "recvbuff": B, "count": 1030, "datatype": "ncclInt32",
                                 "comm": "0x0", "stream": S}, 4120),
        ("ncclSend", inval, {"sendbuff": A, "count": 1031, "datatype": "ncclFloat8e4m3", "peer": 1,
                             "comm": "0x0", "stream": S}, 1031),
        ("ncclRecv", inval, {"recvbuff": B, "count": 1032, "datatype": "ncclUint64", "peer": 2,
                             "comm": "0x0", "stream": S}, 8256),
        ("ncclGroupEnd", ok, {}, 0),
        ("ncclCommFinalize", ok, {"comm": "0x0"}, 0),
        ("ncclCommDestroy", ok, {"comm": "0x0"}, 0),
        ("ncclCommAbort", ok, {"comm": "0x0"}, 0),
    ]


ANY = object()  # a real address: any non-null "0x..."


def main():
    cttest.need_root()
    prog = cttest.program("nccl_calls")
    env = {"RANK": "3", "LOCAL_RANK": "1", "WORLD_SIZE": "4", "SLURM_JOB_ID": "4242"}
    tr = cttest.run(["--plugin", "nccl"], command=[prog], env=env,
                    extra_sinks="[sink.summary]\ntype = summary\npath = @TMP@/summary.txt\n")
    cttest.check(tr.rc == 0, "tracer exit %d (nccl_calls checks each result)\n%s" % (tr.rc, tr.stdout), tr)
    uid = re.search(r"^uniqueId (0x[0-9a-f]+)$", tr.stdout, re.M).group(1)
    want = expected(uid)
    # ncclBcast calls ncclBroadcast: the nested call comes first (it ends first)
    # (libnccl's own NVTX ranges come as range lines: docs/nvtx.md)
    calls = [e for e in tr.events if "api" in e]
    top = [e for e in calls if e["depth"] == 0]
    nested = [e for e in calls if e["depth"] != 0]
    cttest.check([e["api"] for e in top] == [w[0] for w in want],
                 "calls\n  %s\nexpected\n  %s" % ([e["api"] for e in top], [w[0] for w in want]), tr)
    cttest.check([(e["api"], e["depth"], e["args"]["count"], e["args"]["datatype"]) for e in nested]
                 == [("ncclBroadcast", 1, 1028, "ncclUint8")], "nested: %r" % nested, tr)
    said = dict(l.split(" ", 1) for l in tr.stdout.splitlines() if l.startswith("ncclComm") or l.startswith("nccl"))
    for ev, (api, (code, name), args, nbytes) in zip(top, want):
        cttest.check((ev["result"], ev["result_name"], ev["error"]) == (code, name, code != 0),
                     "%s: result %r %r, expected %d %s" % (api, ev["result"], ev["result_name"], code, name))
        cttest.check(int(said[api]) == code, "%s: the program saw %s" % (api, said[api]))
        got = ev["args"]
        cttest.check(set(got) == set(args), "%s: args %s, expected %s" % (api, sorted(got), sorted(args)))
        for k, v in args.items():
            if v is ANY:
                cttest.check(got[k].startswith("0x") and got[k] != "0x0", "%s.%s = %r" % (api, k, got[k]))
            else:
                cttest.check(got[k] == v, "%s.%s = %r, expected %r" % (api, k, got[k], v))
        if nbytes:
            cttest.check(ev.get("bytes") == nbytes, "%s: bytes %r, expected %d" % (api, ev.get("bytes"), nbytes))
        else:
            cttest.check("bytes" not in ev, "%s: bytes %r on a call that moves none" % (api, ev.get("bytes")))
        # the job's keys, from the environment; no communicator was created
        cttest.check((ev["rank"], ev["local_rank"], ev["world_size"], ev["job_id"]) == (3, 1, 4, "4242")
                     and ev["host"] == os.uname().nodename, "%s: job keys %r" % (api, ev))
        cttest.check("communicator" not in ev, "%s: a communicator on a failed init: %r" % (api, ev))

    # the summary's collectives table: one row per collective and datatype,
    # every call failed, so no bytes and no bandwidth; the nested ncclBroadcast
    # is not a row of its own
    with open(os.path.join(tr.files, "summary.txt")) as f:
        text = f.read()
    rows = text.split("Collectives (")[1].split("\n\n")[0].splitlines()[2:]  # to the next table
    got = [(r.split()[-2], r.split()[-1], r.split()[0], r.split()[1], r.split()[2], r.split()[6]) for r in rows if r.strip()]
    colls = [w for w in want if w[3]]
    cttest.check(got == [(w[0], w[2]["datatype"], "1", "1", "0", "-") for w in colls],
                 "collectives table:\n%s" % text)
    print("ok: %d nccl calls decoded, %d collectives in the summary" % (len(top), len(got)))


if __name__ == "__main__":
    main()
