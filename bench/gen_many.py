# SPDX-License-Identifier: MIT
"""Write a C file with N small functions, for the attach benchmark."""
import sys

out, n = sys.argv[1], int(sys.argv[2])
with open(out, "w") as f:
    for i in range(n):
        f.write("int ct_bench_f%d(int x) { return x + %d; }\n" % (i, i))
