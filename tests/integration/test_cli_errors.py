# SPDX-License-Identifier: MIT
"""What a user sees when something is wrong: config errors with file:line,
a missing plugin with where we looked, a plugin for another ABI, a bad
pid, a missing --lib, and a non-root user told which capabilities."""
import os
import subprocess
import tempfile
import cttest as t


def run(args, **kw):
    return subprocess.run([t.TRACER] + args, capture_output=True, text=True, timeout=60, **kw)


def conf(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False)
    f.write(text)
    f.close()
    return f.name


def main():
    c = conf("[tracer]\nplugins = cudart\n\nringbufsize = 1M\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode != 0 and "%s:4: unknown key 'ringbufsize' in [tracer]" % c in p.stderr, p.stderr)

    c = conf("[filter]\nmin_duration = soon\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode != 0 and "%s:2: bad value 'soon' for filter.min_duration" % c in p.stderr, p.stderr)

    c = conf("[sink.out]\ntype = jsonl\npath = /tmp/x\nindent = 2\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode != 0 and "%s:4: unknown key 'indent' for a sink of type jsonl" % c in p.stderr, p.stderr)

    # A choice key takes one of its words, the same in a file, with -C and with its option;
    # the message names where the word came from and lists the allowed ones.
    allowed = "bad value 'many' for tracer.attach: expected one of: auto, multi, single"
    c = conf("[tracer]\nplugins = cudart\nattach = many\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode == 2 and "%s:3: %s" % (c, allowed) in p.stderr, p.stderr)
    p = run(["-C", "tracer.attach=many", "--list-apis"])
    t.check(p.returncode == 2 and "-C tracer.attach=many: " + allowed in p.stderr, p.stderr)
    p = run(["--attach", "many", "--list-apis"])
    t.check(p.returncode == 2 and "--attach many: " + allowed in p.stderr, p.stderr)
    p = run(["--profile", "most", "--list-apis"])
    t.check(p.returncode == 2 and "--profile most: bad value 'most' for tracer.profile: expected one of: default, full"
            in p.stderr, p.stderr)
    c = conf("[sink.s]\ntype = summary\nformat = yaml\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode == 2 and "%s:3: bad value 'yaml' for sink.s.format: expected one of: table, json, csv" % c
            in p.stderr, p.stderr)
    p = run(["-o", "yaml", "--list-apis"])
    # -o names the option as written, not an internal section name or a line 0.
    p = run(["-o", "yaml", "--list-apis"])
    t.check(p.returncode == 2 and p.stderr == "cudatracer: error: -o yaml: unknown sink type 'yaml' (one of: text, "
            "jsonl, summary, csv, chrome, memory, html, prometheus, remote_write, otlp, sqlite)\n", p.stderr)
    p = run(["-o", "out=yaml:/tmp/x", "--list-apis"])
    t.check(p.returncode == 2 and "-o out=yaml:/tmp/x: unknown sink type 'yaml' (one of: text," in p.stderr, p.stderr)
    p = run(["--config-help=yaml"])
    t.check(p.returncode == 2 and "--config-help=yaml: expected one of: ini, markdown" in p.stderr, p.stderr)

    # A second [sink.NAME] of a name is refused, both lines named (it merged into the first).
    c = conf("[sink.a]\ntype = jsonl\npath = /tmp/x1\n\n[sink.a]\npath = /tmp/x2\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode == 2 and p.stderr == "cudatracer: error: %s:5: [sink.a] again: it is at line 1 already "
            "(one section per sink; give this one another name)\n" % c, p.stderr)
    # " #" after a value begins a comment, as " ;" does; a # inside a value stays.
    c = conf("[tracer]\nplugins = cudart # the runtime\n[sink.j]\ntype = jsonl\t# a file\npath = /tmp/a#b\n")
    p = run(["-c", c, "-C", "sink.j.nosuch=1", "--list-apis"])
    t.check(p.returncode == 2 and p.stderr == "cudatracer: error: -C sink.j.nosuch=1: unknown key 'nosuch' for a "
            "sink of type jsonl (its keys: type, path, rotate_size, rotate_interval, rotate_keep, rotate_keep_bytes, "
            "rotate_compress)\n", p.stderr)
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode == 0 and p.stdout.startswith("# plugin cudart ("), p.stdout + p.stderr)

    # The plugin list is checked once, where it is set.
    c = conf("[tracer]\nplugins = ,\n")
    p = run(["-c", c, "--list-apis"])
    t.check(p.returncode == 2 and "%s:2: bad value ',' for tracer.plugins: expected at least one plugin" % c
            in p.stderr, p.stderr)
    p = run(["-C", "tracer.plugins=a,b,c,d,e,f,g,h,i", "--list-apis"])
    t.check(p.returncode == 2 and "for tracer.plugins: at most 8 plugins at once" in p.stderr, p.stderr)
    p = run(["-C", "filter.pid=2147483648", "--list-apis"])
    t.check(p.returncode == 2 and "-C filter.pid=2147483648: bad value '2147483648' for filter.pid: expected a process "
            "id (at most 2147483647), or 0 for every process" in p.stderr, p.stderr)
    # filter.pid is -p, from a file or -C alike.
    p = run(["-C", "filter.pid=1", "--", "true"])
    t.check(p.returncode == 2 and "give either -p PID or a command, not both" in p.stderr, p.stderr)
    p = run(["-c", conf("[filter]\npid = 1\n"), "--", "true"])
    t.check(p.returncode == 2 and "give either -p PID or a command, not both" in p.stderr, p.stderr)

    p = run(["--plugin", "nosuch", "--list-apis"])
    t.check(p.returncode != 0 and "plugin 'nosuch' not found: looked for libct-nosuch.so in:" in p.stderr
            and os.path.join(t.BUILD, "plugins") in p.stderr, p.stderr)

    p = run(["--plugin", os.path.join(t.BUILD, "tests", "badplugins", "libct-badabi.so"), "--list-apis"])
    t.check(p.returncode != 0 and "was built for plugin ABI 9999" in p.stderr and "rebuild the plugin" in p.stderr,
            p.stderr)

    p = run(["-p", "12abc"])
    t.check(p.returncode != 0 and "-p 12abc: not a process id" in p.stderr, p.stderr)

    p = run(["--config-help"])
    t.check(p.returncode == 0 and "ringbuf_size" in p.stdout and "type = jsonl" in p.stdout, p.stdout)

    p = run(["--list-plugins"])
    t.check(p.returncode == 0 and any(l.split()[0] == "cudart" and l.endswith("libct-cudart.so")
                                      for l in p.stdout.splitlines() if l.strip()), p.stdout)

    p = run(["--list-apis"])
    t.check(p.returncode == 0 and "cudaLaunchKernel" in p.stdout and "cudaGetDevice " in p.stdout, p.stdout)
    line = [l for l in p.stdout.splitlines() if l.startswith("cudaGetDevice ")][0]
    t.check(" off " in line and "[hot]" in line, "cudaGetDevice should be off by default: " + line)

    if os.geteuid() == 0:
        p = run(["-p", "999999999"])
        t.check(p.returncode != 0 and "-p 999999999" in p.stderr or "no such process" in p.stderr, p.stderr)
        p = run(["--lib", "/nonexistent/libcudart.so"])
        t.check(p.returncode != 0 and "/nonexistent/libcudart.so: No such file or directory" in p.stderr, p.stderr)
        # A user without root or capabilities is told which ones are needed.
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
                            t.TRACER, "--", "true"], capture_output=True, text=True, timeout=60)
        t.check(p.returncode != 0 and "CAP_BPF" in p.stderr and "CAP_PERFMON" in p.stderr, p.stderr)
    print("ok")


main()
