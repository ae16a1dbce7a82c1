# SPDX-License-Identifier: MIT
"""--engine inproc believes a record's pid only for a process of the
command's tree. The command (any user's) shares the ring with the root
tracer; sleep/inproc_forge writes a start record and a call under the pid of
a process outside its tree (a sleep this test started, whose environment
carries a job id as a marker). Before, the tracer read that process's
environment into the trace and delivered the call as its own."""
import os
import subprocess

import cttest as t

FORGE = os.path.join(t.PROGRAMS, "sleep", "inproc_forge")
MARK = "CT_TRUST_MARK_7a1f"


def main():
    t.need_root()
    if not os.path.exists(FORGE):
        t.skip("inproc_forge was not built")
    victim_env = dict(os.environ, SLURM_JOB_ID=MARK)
    victim_proc = subprocess.Popen(["sleep", "60"], env=victim_env)
    victim = victim_proc.pid
    env = dict(os.environ)
    env.pop("SLURM_JOB_ID", None)
    try:
        tr = t.run(["--engine", "inproc", "--plugin", "cudart"], command=[FORGE, str(victim)], env=env)
    finally:
        victim_proc.kill()
        victim_proc.wait()
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    t.check("forged as pid %d" % victim in tr.stdout, "the command did not forge its records: %r" % tr.stdout, tr)
    calls = tr.calls("cudaStreamSynchronize")
    t.check(len(calls) == 1, "%d cudaStreamSynchronize events, want the command's one" % len(calls), tr)
    t.check(all(e["pid"] != victim for e in tr.events if "pid" in e), "an event under the forged pid", tr)
    with open(os.path.join(tr.files, "events.jsonl")) as f:
        text = f.read()
    t.check(MARK not in text, "the trace holds the environment of a process outside the command", tr)
    t.check("2 records of the in-process ring named a process outside the command's tree" in tr.stderr,
            "no word of the records not believed", tr)
    print("ok")


if __name__ == "__main__":
    main()
