# SPDX-License-Identifier: MIT
"""The system config: read when present, replaced by -c, skipped by
--no-config; the generated default one changes nothing.

The path is the one the binary was built with (its --help names it). A
private mount namespace lays an overlay over the folder above it, so the
test's file is at that path for the tracer alone and the host's /etc is
never written. `--list-apis` shows what a config did: which APIs it traces.
"""
import os
import re
import shutil
import subprocess
import tempfile

import cttest

cttest.need_root()
if not shutil.which("unshare"):
    cttest.skip("unshare (util-linux) is not installed")
system = re.search(r"instead of (\S+)", subprocess.run([cttest.TRACER, "--help"], capture_output=True,
                                                       text=True).stdout).group(1)
sysconfdir = os.path.dirname(os.path.dirname(system))  # /etc for /etc/cudatracer/cudatracer.ini
if not os.path.isdir(sysconfdir):
    cttest.skip("%s does not exist: no folder to lay the test's config over" % sysconfdir)
tmp = tempfile.mkdtemp(prefix="ct-sysconf.")
layer = os.path.join(tmp, "layer")
os.makedirs(os.path.join(layer, os.path.relpath(os.path.dirname(system), sysconfdir)))


def with_system_config(text, *args):
    """The tracer run with `text` (None: no file) at the system config's path."""
    path = os.path.join(layer, os.path.relpath(system, sysconfdir))
    if text is None:
        if os.path.exists(path):
            os.unlink(path)
    else:
        with open(path, "w") as f:
            f.write(text)
    # A read-only overlay of the layer on the real folder, seen by this command only.
    script = 'mount -t overlay overlay -o "lowerdir=$1:$2" "$2" && shift 2 && exec "$@"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                           layer, sysconfdir, cttest.TRACER, *args], capture_output=True, text=True, timeout=60)


def traced(p):
    cttest.check(p.returncode == 0, "tracer exit %d:\n%s" % (p.returncode, p.stderr))
    return sorted(re.findall(r"^(\w+) +traced ", p.stdout, re.M))


LIST = ("--plugin", "cudart", "--list-apis")
default = traced(with_system_config(None, *LIST))
cttest.check(len(default) > 20 and "cudaMalloc" in default, "default selection: %s" % default)

# Present: read.
only_malloc = "[filter]\ninclude = cudaMalloc\n"
cttest.check(traced(with_system_config(only_malloc, *LIST)) == ["cudaMalloc"],
             "the system config %s was not read" % system)
# --no-config: skipped.
cttest.check(traced(with_system_config(only_malloc, "--no-config", *LIST)) == default,
             "--no-config read the system config")
# -c FILE: read instead of it, not on top of it.
other = os.path.join(tmp, "other.ini")
with open(other, "w") as f:
    f.write("[filter]\nexclude = cudaFree\n")
got = traced(with_system_config(only_malloc, "-c", other, *LIST))
cttest.check(got == [a for a in default if a != "cudaFree"], "-c did not replace the system config: %s" % got)
# Broken: an error that names it, and --no-config gets past it.
p = with_system_config("[bogus]\nkey = 1\n", *LIST)
cttest.check(p.returncode == 2 and system in p.stderr, "a broken system config: exit %d\n%s" % (p.returncode, p.stderr))
cttest.check(traced(with_system_config("[bogus]\nkey = 1\n", "--no-config", *LIST)) == default,
             "--no-config did not skip a broken system config")

# The generated default: every key there, none set.
generated = os.path.join(cttest.BUILD, "packaging", "cudatracer.ini")
with open(generated) as f:
    text = f.read()
active = [l for l in text.splitlines() if l.strip() and l.lstrip()[0] not in "#;"]
cttest.check(active == ["[tracer]", "[filter]", "[stacks]", "[analysis]"], "the default config sets something: %s" % active)
cttest.check(max(len(l) for l in text.splitlines()) < 200, "a line past inih's 200-byte limit")
md = subprocess.run([cttest.TRACER, "--config-help=markdown"], capture_output=True, text=True).stdout
for key in re.findall(r"^\| `(\w+)` \|", md, re.M):
    cttest.check(re.search(r"^;%s =" % key, text, re.M), "the default config lacks the key %s" % key)
cttest.check(re.search(r"^;ringbuf_size = 16M$", text, re.M), "the default config's ringbuf_size is not 16M")
cttest.check(traced(with_system_config(text, *LIST)) == default, "the default config changes the selection")
# Uncommented, each [tracer]/[filter] key at its default loads as it is.
core_keys = set()
for section in re.split(r"^## ", md, flags=re.M):
    if section.startswith("[tracer]") or section.startswith("[filter]"):
        core_keys |= set(re.findall(r"^\| `(\w+)` \|", section, re.M))
uncommented = re.sub(r"^;(\w+) = (.+)$", lambda m: m.group(0)[1:] if m.group(1) in core_keys else m.group(0),
                     text, flags=re.M)
cttest.check(uncommented.count("\n;") < text.count("\n;") - 10, "uncommented too few keys")
cttest.check(traced(with_system_config(uncommented, *LIST)) == default,
             "the default config's [tracer] and [filter] keys, uncommented, change the selection")
shutil.rmtree(tmp)
print("test_system_config: %s read by default, -c replaces it, --no-config skips it" % system)
