# SPDX-License-Identifier: MIT
"""A libFuzzer dictionary for fuzz_config from `cudatracer --config-help`
(the key tables), so that it never drifts from the code: section headers,
key names, choice values and the suffixes of sizes and durations."""
import re
import sys

words = {"[", "]", "=", ";", "#", "true", "false", "yes", "off",
         "K", "M", "G", "ns", "us", "ms", "s", "-", ","}
for line in open(sys.argv[1]):
    line = line.strip()
    m = re.match(r"^\[([a-z.A-Z_]+)\]$", line)
    if m:
        words.add("[%s]" % m.group(1))
    m = re.match(r"^;?([a-z_]+) = ", line)
    if m:
        words.add(m.group(1))
    m = re.match(r"^# ([a-z_]+) \(choice: ([^)]*)\)", line)
    if m:
        words.update(c.strip() for c in m.group(2).split(","))
    m = re.match(r"^# type = ([a-z]+):", line)
    if m:
        words.update(["[sink.x]", "type = %s" % m.group(1)])
with open(sys.argv[2], "w") as out:
    out.write('"\\x0a"\n')
    for w in sorted(words):
        out.write('"%s"\n' % w.replace("\\", "\\\\").replace('"', '\\"'))
