# SPDX-License-Identifier: MIT
"""Bad input gets one clear error and starts nothing: a pid that does not
exist, a --lib that is not an ELF file (or defines none of the plugin's
symbols), a plugin that is not a cudatracer plugin, a sink path in a folder
that does not exist, and malformed config files (named with file:line). In
command mode the command is never run untraced: a marker file it would
create must not appear. (test_cli_errors.py covers unknown keys, bad values,
a missing plugin and a plugin built for another ABI.)"""
import atexit
import os
import shutil
import subprocess
import tempfile
import cttest as t

TMP = tempfile.mkdtemp(prefix="ctinput.")
atexit.register(shutil.rmtree, TMP, True)
MARKER = os.path.join(TMP, "command-ran")


def run(args, command=True):
    cmd = [t.TRACER] + args + (["--", "touch", MARKER] if command else [])
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    t.check(not os.path.exists(MARKER), "%s: the command ran although the tracer failed" % args)
    return p


def expect(args, lines, command=True, rc=None, part=None):
    """Each of `lines` is a whole line of stderr (or `part` is in one), and there is no other error."""
    p = run(args, command)
    got = p.stderr.splitlines()
    for want in lines:
        t.check(want in got, "%s: want the line %r in:\n%s" % (args, want, p.stderr))
    if part:
        t.check(any(part in l for l in got), "%s: want %r in:\n%s" % (args, part, p.stderr))
    errors = [l for l in got if l.startswith("cudatracer: error: ")]
    t.check(len(errors) == max(1, len(lines)), "%s: other errors as well:\n%s" % (args, p.stderr))
    t.check(p.returncode != 0 and (rc is None or p.returncode == rc), "%s: rc %d" % (args, p.returncode))
    return p


def conf(text):
    fd, path = tempfile.mkstemp(suffix=".ini", dir=TMP)
    os.write(fd, text.encode())
    os.close(fd)
    return path


def main():
    t.need_root()
    E = "cudatracer: error: "
    # A pid that does not exist (a child of ours, reaped), or is not a pid.
    p = subprocess.Popen(["true"])
    p.wait()
    expect(["-p", str(p.pid)], [E + "-p %d: no such process" % p.pid], command=False, rc=1)
    for bad in ("0", "-5", "99999999999", "12abc"):
        expect(["-p", bad], [E + "-p %s: not a process id" % bad], command=False, rc=2)

    # --lib: not ELF, a folder, an ELF file without the runtime's symbols.
    expect(["--lib", "/etc/passwd"], [E + "cannot read symbols of /etc/passwd: not an ELF file"], rc=1)
    expect(["--lib", TMP], [E + "cannot read symbols of %s: not an ELF file" % TMP], rc=1)
    expect(["--lib", "/bin/true"], [E + "--lib /bin/true defines none of the symbols of the loaded plugins"], rc=1)

    # Plugins that are not cudatracer plugins.
    none = os.path.join(t.BUILD, "tests", "badplugins", "libct-badnone.so")
    expect(["--plugin", none], [E + "%s is not a cudatracer plugin: it does not export cudatracer_plugin_entry()" % none])
    libm = "/lib/x86_64-linux-gnu/libm.so.6"
    if os.path.exists(libm):
        expect(["--plugin", libm], [E + "%s is not a cudatracer plugin: it does not export cudatracer_plugin_entry()" % libm])
    text = os.path.join(TMP, "libct-text.so")
    with open(text, "w") as f:
        f.write("not a shared object\n")
    expect(["--plugin", text], [E + "cannot load plugin %s: %s: file too short" % (text, text)])
    small = os.path.join(t.BUILD, "tests", "badplugins", "libct-badsize.so")
    expect(["--plugin", small], [], part="descriptor is 8 bytes, smaller than")

    # Sinks whose folder does not exist, from the command line and from a config.
    expect(["-o", "jsonl:/nonexistent/dir/x.jsonl"],
           [E + "sink 'jsonl': cannot open /nonexistent/dir/x.jsonl for writing: No such file or directory"], rc=1)
    c = conf("[sink.out]\ntype = text\npath = /nonexistent/dir/out.txt\n")
    expect(["-c", c], [E + "sink 'out': cannot open /nonexistent/dir/out.txt for writing: No such file or directory"], rc=1)

    # Malformed configs: each error names file:line.
    c = conf("[tracer]\nplugins = cudart\n[filter\ninclude = cuda*\n")
    expect(["-c", c], [E + "%s:3: syntax error (expected [section] or key = value)" % c,
                       E + "%s:4: unknown key 'include' in [tracer] (cudatracer --config-help lists the keys)" % c],
           rc=2)
    c = conf("# comment\nplugins = cudart\n")
    expect(["-c", c], [E + "%s:2: key 'plugins' is not in a [section]" % c], rc=2)
    c = conf("[tracer]\nplugins = cudart\nthis line has no equals sign\n")
    expect(["-c", c], [E + "%s:3: syntax error (expected [section] or key = value)" % c], rc=2)
    c = conf("[tracer]\nringbuf_size = lots\n")
    expect(["-c", c], [], rc=2, part="%s:2: bad value 'lots' for tracer.ringbuf_size" % c)
    c = conf("[sink.a]\ntype = yaml\n")
    expect(["-c", c], [E + "%s:2: sink 'a': unknown sink type 'yaml' (one of: text, jsonl, summary, csv, chrome, "
                       "memory, html, prometheus, remote_write, otlp, sqlite)" % c], rc=2)
    c = conf("[sink.a]\npath = /tmp/x\n")
    expect(["-c", c], [E + "%s:1: sink 'a' has no type (set sink.a.type to one of: text, jsonl, summary, csv, "
                       "chrome, memory, html, prometheus, remote_write, otlp, sqlite)" % c], rc=2)
    c = conf("[tracing]\nplugins = cudart\n")
    expect(["-c", c], [], rc=2, part="%s:2: unknown section [tracing]" % c)
    missing = os.path.join(TMP, "missing.ini")
    expect(["-c", missing], [E + "cannot read config file %s: No such file or directory" % missing], rc=2)
    expect(["-C", "tracer.nokey=1"],
           [E + "-C tracer.nokey=1: unknown key 'nokey' in [tracer] (cudatracer --config-help lists the keys)"], rc=2)
    print("ok")


main()
