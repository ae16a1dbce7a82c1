# SPDX-License-Identifier: MIT
"""The Debian package, built and installed as a user would.

`cpack -G DEB` in the build folder makes cudatracer and cudatracer-dev;
their control fields, files and conffiles are checked, and Depends against
the packages that really ship each library the binary and the plugins need.
Then both are installed with apt-get in a throw-away Debian 12 root (a
debootstrap minbase root made once per build folder, in
build/package-test/, from the mirror the host's apt uses; each run lays an
overlay on it in a private mount namespace, so nothing is copied and nothing
stays), where apt must find every Depends. The installed /usr/bin/cudatracer
traces the sample there, chrooted with /proc, /sys and /dev of the host (BPF
is the host kernel's), and must give what the build tree's tracer gives.
Last, remove keeps the conffile and purge takes it away.
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import tempfile
import time

import cttest
import pkgtest

cttest.need_root()
if os.environ.get("CT_SANITIZE", "").upper() in ("1", "ON", "TRUE", "YES"):
    cttest.skip("a sanitizer build: its binary needs the sanitizer runtimes, which no package depends on")
for tool in ("cpack", "dpkg-deb", "dpkg-shlibdeps", "debootstrap", "unshare", "chroot", "readelf", "lintian"):
    if not shutil.which(tool):
        cttest.skip("%s is not installed (scripts/install-deps.sh installs it)" % tool)
sample = cttest.program("sample_static")
prefix, layout, system = pkgtest.install_layout()
tmp = tempfile.mkdtemp(prefix="ct-deb.")
cache = os.path.join(cttest.BUILD, "package-test")
root = os.path.join(cache, "bookworm-minbase")
started = time.monotonic()


def sh(cmd, timeout=600, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    cttest.check(p.returncode == 0, "%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    return p.stdout


# --- the packages ---
debs = os.path.join(tmp, "debs")
sh(["cpack", "-G", "DEB", "-B", debs], cwd=cttest.BUILD)
found = {sh(["dpkg-deb", "-f", d, "Package"]).strip(): d for d in glob.glob(os.path.join(debs, "*.deb"))}
cttest.check(sorted(found) == ["cudatracer", "cudatracer-dev"], "cpack made %s" % sorted(found))
with open(os.path.join(cttest.SOURCE, "packaging", "debian", "changelog")) as f:
    changelog = f.read()
version = re.match(r"cudatracer \(([^)]+)\)", changelog).group(1)


def field(deb, name):
    return sh(["dpkg-deb", "-f", deb, name]).strip()


def contents(deb):
    """The files and links of a package (not its folders)."""
    return {re.sub(r"^\./", "/", re.sub(r" -> .*$", "", l).split()[-1])
            for l in sh(["dpkg-deb", "-c", deb]).splitlines() if not l.startswith("d")}


run_deb, dev_deb = found["cudatracer"], found["cudatracer-dev"]
for deb in (run_deb, dev_deb):
    cttest.check(field(deb, "Version") == version, "%s is version %s, the changelog's %s" % (deb, field(deb, "Version"), version))
files = contents(run_deb)
dev_files = contents(dev_deb)
at = lambda rel: os.path.join(prefix, rel)  # noqa: E731
# Every file an install puts in place is in one of the packages (debhelper's
# dh_missing): a new library, or an install rule with no COMPONENT, cannot be
# left out silently.
stage = os.path.join(tmp, "stage")
sh(["cmake", "--install", cttest.BUILD], env=dict(os.environ, DESTDIR=stage))
staged = {os.path.join("/", os.path.relpath(os.path.join(d, f), stage))
          for d, _, names in os.walk(stage) for f in names}
missing = staged - files - dev_files
cttest.check(not missing, "installed by cmake --install but in neither package:\n%s" % "\n".join(sorted(missing)))
want = [at(layout[k]) for k in ("binary", "plugin", "man1", "man5", "completion", "copyright", "changelog",
                                "inject", "inproc", "inproc_cudart")]
want += [at(os.path.join(os.path.dirname(layout["plugin"]), "libct-%s.so" % p)) for p in ("cuda", "hip", "opencl", "nccl")]
want.append(system)
want.append(at("lib/systemd/system/cudatracer.service"))  # the daemon's unit (docs/daemon.md)
for path in want:
    cttest.check(path in files, "cudatracer's package has no %s:\n%s" % (path, "\n".join(sorted(files))))
for path in (at(layout["header"]), at("include/cudatracer/hook.bpf.h"), at(layout["pc"]), at(layout["gen_enum"]), at(layout["gen_apis"]),
             at("share/doc/cudatracer-dev/copyright")):
    cttest.check(path in dev_files, "cudatracer-dev's package has no %s" % path)
cttest.check(not files & dev_files, "files in both packages: %s" % sorted(files & dev_files))
cttest.check(sh(["dpkg-deb", "-I", run_deb, "conffiles"]).split() == [system], "conffiles is not %s alone" % system)
cttest.check(("cudatracer (= %s)" % version) in field(dev_deb, "Depends"), "cudatracer-dev: Depends %s" % field(dev_deb, "Depends"))
unpacked = os.path.join(tmp, "unpacked")
sh(["dpkg-deb", "-x", run_deb, unpacked])
with gzip.open(unpacked + at(layout["changelog"]), "rt") as f:
    cttest.check(f.read() == changelog, "the packaged changelog is not packaging/debian/changelog")
with open(unpacked + at(layout["copyright"])) as f:
    cttest.check("MIT License" in f.read(), "the packaged copyright is not the MIT LICENSE")

# The unit never restarts forever: the shipped config has no sink, and the
# status a daemon exits with for that is one the unit does not restart on.
with open(unpacked + at("lib/systemd/system/cudatracer.service")) as f:
    unit = dict(re.findall(r"^(\w+)=(.*)$", f.read(), re.M))
daemon = subprocess.run([cttest.TRACER, "--daemon", "-c", unpacked + system], capture_output=True, text=True, timeout=60)
cttest.check(unit.get("Restart") == "on-failure" and daemon.returncode != 0 and
             str(daemon.returncode) in unit.get("RestartPreventExitStatus", "").split(),
             "the shipped config's daemon exits %d (%s), the unit restarts on-failure but for RestartPreventExitStatus=%s" % (
                 daemon.returncode, daemon.stderr.strip(), unit.get("RestartPreventExitStatus")))
control = sh(["dpkg-deb", "-I", run_deb])
for script in ("postinst", "prerm", "postrm"):
    cttest.check(re.search(r"^\s+\d+ bytes,\s+\d+ lines\s+\*\s+%s\s" % script, control, re.M),
                 "cudatracer has no %s (systemd is not told of the unit):\n%s" % (script, control))

# Depends names the package that ships each library the ELF files need.
depends = {d.split()[0] for d in field(run_deb, "Depends").split(", ")}
ldcache = dict(re.findall(r"^\s+(\S+) \(libc6,x86-64\) => (\S+)$", sh(["ldconfig", "-p"]), re.M))
elfs = [unpacked + at(layout["binary"])] + glob.glob(unpacked + at(os.path.dirname(layout["plugin"])) + "/*.so")
for elf in elfs:
    for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[(\S+)\]", sh(["readelf", "-d", elf])):
        path = ldcache.get(lib)
        cttest.check(path, "%s needs %s, which ldconfig does not know" % (elf, lib))
        owners = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True).stdout or \
            subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True).stdout or \
            subprocess.run(["dpkg", "-S", path.replace("/lib/", "/usr/lib/", 1)], capture_output=True, text=True).stdout
        pkgs = {o.split(":")[0] for o in owners.split(": ")[0].split(", ")} if owners else set()
        cttest.check(pkgs & depends, "%s needs %s (%s), but Depends is %s" % (os.path.basename(elf), lib, pkgs, sorted(depends)))
# lintian: no error or warning but the overrides the packages ship, each
# with its reason (packaging/debian/*.lintian-overrides).
p = subprocess.run(["lintian", "--fail-on", "error,warning", "--tag-display-limit", "0", run_deb, dev_deb],
                   capture_output=True, text=True, timeout=600)
tags = [l for l in p.stdout.splitlines() if re.match(r"^[EW]: ", l)]
cttest.check(p.returncode == 0 and not tags, "lintian: exit %d\n%s%s" % (p.returncode, p.stdout[-4000:], p.stderr[-2000:]))
built = time.monotonic()


# --- the throw-away root ---
def host_sources():
    """The host's apt stanzas for Debian 12 (bookworm*), as deb822."""
    stanzas = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        with open(path) as f:
            for s in re.split(r"\n\s*\n", f.read()):
                fields = dict(re.findall(r"^([\w-]+):\s*(.*)$", s, re.M))
                if fields.get("Types", "").split()[:1] == ["deb"] and \
                        any(x.startswith("bookworm") for x in fields.get("Suites", "").split()) and \
                        fields.get("Enabled", "yes") != "no":
                    stanzas.append(fields)
    if os.path.exists("/etc/apt/sources.list"):
        with open("/etc/apt/sources.list") as f:
            for uri, suite, comps in re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(bookworm\S*)\s+(.+)$", f.read(), re.M):
                stanzas.append({"Types": "deb", "URIs": uri, "Suites": suite, "Components": comps})
    return stanzas


def in_namespace(script, timeout=600):
    """A shell script in a private mount namespace: its mounts end with it."""
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-ec", script],
                          capture_output=True, text=True, timeout=timeout)


sources = host_sources()
mirror = next((s["URIs"].split()[0] for s in sources if "bookworm" in s["Suites"].split()), None)
if not mirror:
    cttest.skip("the host's apt has no Debian 12 (bookworm) source to make a root from")
backports = any("bookworm-backports" in s["Suites"].split() for s in sources)
if not os.path.exists(os.path.join(root, ".ready")):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(cache, "archives"), exist_ok=True)
    p = in_namespace("debootstrap --variant=minbase bookworm '%s' '%s'" % (root, mirror), timeout=800)
    cttest.check(p.returncode == 0, "debootstrap: exit %d\n%s%s" % (p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
    os.unlink(os.path.join(root, "etc", "apt", "sources.list"))
    with open(os.path.join(root, "etc", "apt", "sources.list.d", "host.sources"), "w") as f:
        f.write("\n".join("".join("%s: %s\n" % kv for kv in s.items()) for s in sources))
    p = in_namespace("mount -t proc proc '%s/proc'; chroot '%s' apt-get update -q" % (root, root))
    cttest.check(p.returncode == 0, "apt-get update in the new root: %s%s" % (p.stdout[-3000:], p.stderr[-3000:]))
    open(os.path.join(root, ".ready"), "w").close()
    print("made the Debian 12 root in %.0f s" % (time.monotonic() - built))
rooted = time.monotonic()

# --- install, trace, remove, purge: in an overlay of the root ---
pkg = os.path.join(tmp, "pkg")
out = os.path.join(pkg, "out")
os.makedirs(out)
for f in (run_deb, dev_deb, sample):
    shutil.copy(f, pkg)
with open(os.path.join(pkg, "inside.sh"), "w") as f:
    f.write(r"""set -e
cd /pkg
export DEBIAN_FRONTEND=noninteractive
# Lists a day old may name packages the mirror no longer has.
[ -n "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440)" ] || apt-get update -q
# systemd as the maintainer scripts see it (/run/systemd/system), played by
# a systemctl that logs what it is asked.
mkdir -p /run/systemd/system
printf '#!/bin/sh\necho "$*" >> /pkg/out/systemctl.log\n' > /usr/bin/systemctl
chmod 755 /usr/bin/systemctl
apt-get install -y -q --no-install-recommends %(target)s ./%(run)s ./%(dev)s > out/apt.log 2>&1
ls /etc/systemd/system/*.wants/ > out/wants 2>&1 || true
cp out/systemctl.log out/systemctl.install
dpkg-query -W -f '${Package} ${Status} ${Version}\n' cudatracer cudatracer-dev > out/status
dpkg-query -W -f '${Conffiles}\n' cudatracer > out/conffiles
cudatracer --list-plugins > out/list.txt
# The libraries put into a command, from the package's libdir.
rc=0; cudatracer -v --engine inproc -o jsonl:/dev/null -- /bin/true > out/inproc.out 2>&1 || rc=$?
echo $rc > out/inproc.rc
rc=0; cudatracer -v --plugin cudart --gpu-activity -o jsonl:/dev/null -- /bin/true > out/inject.out 2>&1 || rc=$?
echo $rc > out/inject.rc
rc=0; cudatracer --plugin cudart -o jsonl:/pkg/out/trace.jsonl -- /pkg/%(sample)s > out/trace.out 2>&1 || rc=$?
echo $rc > out/trace.rc
apt-get remove -y -q cudatracer-dev cudatracer > out/remove.log 2>&1
cp out/systemctl.log out/systemctl.remove
dpkg-query -W -f '${Status}\n' cudatracer > out/removed
test -f %(system)s && echo kept > out/conf_after_remove
apt-get purge -y -q cudatracer > out/purge.log 2>&1
test -e %(system)s || echo gone > out/conf_after_purge
""" % {"target": "-t bookworm-backports" if backports else "", "run": os.path.basename(run_deb),
       "dev": os.path.basename(dev_deb), "sample": os.path.basename(sample), "system": system})
up, work, mnt = (os.path.join(tmp, d) for d in ("up", "work", "mnt"))
for d in (up, work, mnt):
    os.makedirs(d)
os.makedirs(os.path.join(cache, "archives", "partial"), exist_ok=True)
p = in_namespace("""
R=%(mnt)s
mount -t overlay overlay -o lowerdir=%(root)s,upperdir=%(up)s,workdir=%(work)s $R
mount -t proc proc $R/proc
mount --rbind /sys $R/sys
mount --rbind /dev $R/dev
mount --bind %(archives)s $R/var/cache/apt/archives
mkdir $R/pkg && mount --bind %(pkg)s $R/pkg
cp /etc/resolv.conf $R/etc/resolv.conf
chroot $R /bin/sh /pkg/inside.sh
""" % {"mnt": mnt, "root": root, "up": up, "work": work, "archives": os.path.join(cache, "archives"), "pkg": pkg})


def out_file(name):
    path = os.path.join(out, name)
    return open(path).read() if os.path.exists(path) else ""


cttest.check(p.returncode == 0, "in the root: exit %d\n%s%s\n--- apt ---\n%s\n--- trace ---\n%s" % (
    p.returncode, p.stdout[-3000:], p.stderr[-3000:], out_file("apt.log")[-3000:], out_file("trace.out")[-3000:]))
status = out_file("status").splitlines()
cttest.check(status == ["cudatracer install ok installed %s" % version, "cudatracer-dev install ok installed %s" % version],
             "dpkg in the root: %s" % status)
cttest.check(out_file("conffiles").split()[:1] == [system], "the installed conffiles: %r" % out_file("conffiles"))
plugdir = at(os.path.dirname(layout["plugin"]))
for name in ("cudart", "cuda", "hip", "opencl", "nccl"):
    cttest.check(re.search(r"^%s .* %s/libct-%s\.so$" % (name, re.escape(plugdir), name), out_file("list.txt"), re.M),
                 "the installed binary does not find %s in %s:\n%s" % (name, plugdir, out_file("list.txt")))
cttest.check(out_file("list.txt").count("libct-cudart.so") == 1, "cudart listed twice:\n" + out_file("list.txt"))
for what, key in (("inproc", "inproc"), ("inject", "inject")):
    cttest.check(out_file(what + ".rc").strip() == "0" and at(layout[key]) in out_file(what + ".out"),
                 "the installed tracer with %s: exit %s, no %s named:\n%s" % (
                     what, out_file(what + ".rc").strip(), at(layout[key]), out_file(what + ".out")[-3000:]))
# Installed: systemd knows the unit, nothing enabled or started it; removed:
# the unit was stopped before its binary went, then systemd forgot it.
cttest.check(out_file("systemctl.install").split("\n")[-2:] == ["--system daemon-reload", ""] and
             not re.search(r"\b(start|enable|restart)\b", out_file("systemctl.install")) and
             "cudatracer" not in out_file("wants"),
             "install: systemctl was asked %r; enabled: %r" % (out_file("systemctl.install"), out_file("wants")))
removed = out_file("systemctl.remove")[len(out_file("systemctl.install")):]
cttest.check(re.search(r"^stop cudatracer\.service\n(.*\n)*.*daemon-reload$", removed, re.M),
             "remove: systemctl was asked %r" % removed)
events = cttest.read_jsonl(os.path.join(out, "trace.jsonl"))
pkgtest.check_sample(events, "the installed tracer, in the root")
got = [(e["api"], e["result_name"]) for e in events]
want = pkgtest.reference_trace(sample)
cttest.check(got == want, "the installed tracer's trace differs from the build tree's:\n got  %s\n want %s" % (got, want))
sample_rc = subprocess.run([sample], capture_output=True).returncode
cttest.check(out_file("trace.rc").strip() == str(sample_rc), "the installed tracer exited %s, the sample %d" % (
    out_file("trace.rc").strip(), sample_rc))
cttest.check(out_file("removed").strip() == "deinstall ok config-files" and out_file("conf_after_remove").strip() == "kept",
             "remove: %r, the conffile %r" % (out_file("removed"), out_file("conf_after_remove")))
cttest.check(out_file("conf_after_purge").strip() == "gone", "purge left %s" % system)
shutil.rmtree(tmp)
done = time.monotonic()
print("test_package_deb: cpack and checks %.0f s, root %.0f s, install+trace+purge %.0f s; %d events traced" % (
    built - started, rooted - built, done - rooted, len(events)))
