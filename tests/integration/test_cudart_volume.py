# SPDX-License-Identifier: MIT
"""300,000 calls at full speed lose no record with the default ring buffer;
a deliberately tiny ring buffer loses some, and the count is exact:
events seen + records lost == calls made."""
import cttest as t

N = 300000


def main():
    t.need_root()
    prog = t.program("cudart_loop_shared")
    tr = t.run(["--plugin", "cudart"], command=[prog, str(N)], timeout=500)
    t.check(tr.rc == 0, "rc %d" % tr.rc, tr)
    counts = [e["args"]["count"] for e in tr.events]
    t.check(len(counts) == N, "saw %d of %d calls" % (len(counts), N), tr)
    t.check(counts == list(range(N)), "calls out of order or repeated", tr)
    t.check(tr.lost() == 0, "lost records", tr)

    tr = t.run(["--plugin", "cudart", "--ringbuf-size", "4096", "-C", "tracer.wakeup_bytes=0"],
               command=[prog, "20000"], timeout=300)
    lost = tr.lost()
    t.check(lost > 0, "a 4 KiB ring buffer lost nothing", tr)
    t.check(len(tr.events) + lost == 20000, "events %d + lost %d != 20000" % (len(tr.events), lost), tr)
    t.check("raise --ringbuf-size or [tracer] ringbuf_size\n" in tr.stderr, "no advice on loss", tr)
    seen = [e["args"]["count"] for e in tr.events]
    t.check(seen == sorted(set(seen)), "events duplicated or reordered", tr)
    print("ok")


main()
