# SPDX-License-Identifier: MIT
"""The network sinks' libraries are mapped only where such a sink is.

A tracer with the jsonl sink alone maps none of libcurl, libmicrohttpd and
libsnappy (nor what libcurl brings: TLS, Kerberos, LDAP, ssh): read from
/proc/PID/maps of the running tracer. With a prometheus sink it maps
libmicrohttpd, and serves /metrics; with remote_write, libcurl and libsnappy.
"""
import os
import re
import subprocess
import urllib.request

import cttest
import metrics_common as mc

NET_LIBS = ("libcurl", "libmicrohttpd", "libsnappy", "libgnutls", "libssl", "libkrb5", "libldap", "libssh2")


def mapped(pid):
    with open("/proc/%d/maps" % pid) as f:
        return {m for m in re.findall(r"/(lib[\w+-]+)\.so", f.read())}


def held(config):
    """The tracer's mapped libraries once it traces, and its run."""
    t = mc.HeldTracer(mc.tmpdir(), config, "true")
    try:
        t.read_err_until("Ctrl-C to end.")
        libs = mapped(t.proc.pid)
        extra = None
        if "prometheus" in config:
            url = re.search(r"serving at (\S+)", t.read_err_until("(prometheus): serving at ")).group(1)
            with urllib.request.urlopen(url, timeout=10) as r:
                extra = (r.status, r.read().decode())
        return libs, extra, t.release()
    finally:
        t.kill()


def main():
    cttest.need_root()
    libs, _, tr = held("")
    loaded = sorted(l for l in libs if l.startswith(NET_LIBS))
    cttest.check(tr.rc == 0 and not loaded, "the jsonl sink alone maps %s" % loaded, tr)

    libs, (status, text), tr = held("[sink.prom]\ntype = prometheus\nlisten = 127.0.0.1:0\n")
    cttest.check("libmicrohttpd" in libs and "libcurl" not in libs, "prometheus: maps %s" % sorted(libs), tr)
    cttest.check(status == 200 and "# TYPE cudatracer_" in text, "prometheus: /metrics %d:\n%s" % (status, text[:2000]), tr)

    libs, _, tr = held("[sink.rw]\ntype = remote_write\nurl = http://127.0.0.1:9/api/v1/write\n")
    cttest.check({"libcurl", "libsnappy"} <= libs, "remote_write: maps %s" % sorted(libs), tr)
    # libmicrohttpd missing (an empty file over it, in a mount namespace of
    # its own): the sink says which package to install, the tracer stops.
    conf = os.path.join(mc.tmpdir(), "prom.ini")
    with open(conf, "w") as f:
        f.write("[sink.metrics]\ntype = prometheus\nlisten = 127.0.0.1:0\n")
    lib = os.path.realpath("/usr/lib/x86_64-linux-gnu/libmicrohttpd.so.12")
    p = subprocess.run(["unshare", "-m", "sh", "-c", 'mount --bind /dev/null "$0" && exec "$@"', lib,
                        cttest.TRACER, "-c", conf, "--", "true"], capture_output=True, text=True, timeout=60)
    cttest.check(p.returncode != 0 and "sink 'metrics' (prometheus) needs libmicrohttpd.so.12: " in p.stderr and
                 "install the Debian package libmicrohttpd12" in p.stderr,
                 "prometheus without libmicrohttpd: exit %d\n%s" % (p.returncode, p.stderr))
    print("test_sink_libs: jsonl maps no network library; prometheus maps libmicrohttpd and serves")


main()
