# SPDX-License-Identifier: MIT
"""Shared by the hang tests (not a test itself): the stand-in ranks'
collective as a hang line must show it, key by key, and the lines of a
jsonl file a tracer is still writing."""
import json
import os
import re

import cttest

ID = "0xfeedfacecafe0002"
ARGS = {"sendbuff": "0x1000", "recvbuff": "0x2000", "count": 1024, "datatype": "ncclFloat32",
        "op": "ncclSum", "stream": "0x0"}
TIMEOUT_NS = 1000000000


def live_lines(path):
    """The complete lines of a jsonl file the tracer is writing."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f.read().split("\n")[:-1] if l]


def hangs(events, state=None):
    return [e for e in events if e.get("kind") == "hang" and (state is None or e["state"] == state)]


def check_hang(h, state, pid, seq, behind, trace_err):
    """One hang line, key by key (the args' comm handle is the process's own)."""
    want_keys = {"ts_ns", "plugin", "api", "pid", "tid", "comm", "depth", "device", "cgroup", "rank",
                 "world_size", "host", "communicator", "bytes", "dur_ns", "args", "stack", "kind",
                 "state", "report_ns", "timeout_ns", "stuck_in_process"}
    if behind:
        want_keys.add("behind")
    if state == "ended":
        want_keys |= {"result", "result_name", "error"}
    cttest.check(set(h) == want_keys, "%s hang: keys %s, want %s" % (state, sorted(h), sorted(want_keys)))
    cttest.check(h["plugin"] == "nccl" and h["api"] == "ncclAllReduce" and h["pid"] == pid and h["tid"] == pid
                 and h["comm"] == "nccl_hang" and h["depth"] == 0 and h["rank"] == 0 and h["world_size"] == 2
                 and h["bytes"] == 4096 and h["timeout_ns"] == TIMEOUT_NS, "%s hang: %r" % (state, h))
    cttest.check(h["communicator"] == {"rank": 0, "nranks": 2, "id": ID, "seq": seq},
                 "%s hang: communicator %r" % (state, h["communicator"]))
    args = dict(h["args"])
    cttest.check(re.fullmatch(r"0x[0-9a-f]+", args.pop("comm", "")) is not None and args == ARGS,
                 "%s hang: args %r" % (state, h["args"]))
    cttest.check(h.get("behind") == behind, "%s hang: behind %r, want %r" % (state, h.get("behind"), behind))
    fns = [f.get("function") for f in h["stack"]]
    cttest.check(fns[:2] == ["train_step", "main"], "%s hang: stack %r" % (state, fns))
    if state == "ended":
        cttest.check(h["result"] == 0 and h["result_name"] == "ncclSuccess" and h["error"] is False,
                     "ended hang: result %r" % h)
