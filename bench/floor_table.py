#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of a rotating benchmark (bench/rotate.sh): lines "MODE JSON" in
RUNS, KEY the figure of each JSON; per mode in the order given, its median,
% and amount over the mode `untraced`, and the ratio of its added amount to
that of MODE-floor where one ran (a mode against its own floor).
    floor_table.py RUNS KEY MODE...
"""
import json
import statistics
import sys


def main():
    runs, key, order = sys.argv[1], sys.argv[2], sys.argv[3:]
    by = {}
    for line in open(runs):
        m, _, js = line.partition(" ")
        try:
            by.setdefault(m, []).append(json.loads(js)[key])
        except (ValueError, KeyError):
            pass
    med = {m: statistics.median(v) for m, v in by.items() if v}
    u = med.get("untraced")
    if not u:
        sys.exit("floor_table: no untraced runs in %s" % runs)
    print("| mode | %s (median) | over untraced | added | ratio to its floor's added | runs |" % key)
    print("|---|---|---|---|---|---|")
    for m in order:
        if m not in med:
            continue
        f = med.get(m + "-floor")
        ratio = "%.2f" % ((med[m] - u) / (f - u)) if f and f > u else ""
        print("| %s | %.3f | %+.1f%% | %.3f | %s | %s |" % (m, med[m], (med[m] / u - 1) * 100, med[m] - u, ratio,
                                                          " ".join("%.3f" % x for x in by[m])))


if __name__ == "__main__":
    main()
