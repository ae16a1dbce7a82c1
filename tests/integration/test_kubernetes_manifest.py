#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""packaging/kubernetes/daemonset.yaml (docs/daemon.md, "Kubernetes") is a
deployment that would run: a privileged DaemonSet in the host's PID
namespace, each mount the daemon uses backed by a volume of the node's same
path (tracefs, cgroups, the control socket's folder, the traces' folder) or
the ConfigMap at the path the arguments name, the scrape annotations on the
port the prometheus sink listens on, resources, GPU tolerations and a node
selector. Then the binary itself: the ConfigMap's config written to a file
(its /var/log/cudatracer put in a folder of the test's own) passes
`cudatracer --check-config` with the container's command and arguments; a
broken key in it, and a misspelt argument, fail the same check (exit 2)."""
import os
import re
import shutil
import subprocess
import tempfile

import cttest

try:
    import yaml
except ImportError:
    cttest.skip("python3-yaml is not installed (scripts/install-deps.sh installs it)")

MANIFEST = os.path.join(os.environ.get("CT_SOURCE", "."), "packaging", "kubernetes", "daemonset.yaml")
HOST_MOUNTS = ("/sys/kernel/tracing", "/sys/fs/cgroup", "/run/cudatracer", "/var/log/cudatracer")


def check_manifest(docs):
    kinds = {d["kind"]: d for d in docs}
    cttest.check(set(kinds) == {"Namespace", "ConfigMap", "DaemonSet"}, "kinds %r" % sorted(kinds))
    ds, cm = kinds["DaemonSet"], kinds["ConfigMap"]
    spec = ds["spec"]["template"]["spec"]
    cttest.check(spec.get("hostPID") is True, "hostPID is not true")
    cttest.check(ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items(),
                 "the selector does not match the pods' labels")
    (c,) = spec["containers"]
    cttest.check(c["securityContext"].get("privileged") is True, "not privileged")
    res = c["resources"]
    cttest.check(all(k in res["requests"] and k in res["limits"] for k in ("cpu", "memory")), "resources %r" % res)
    cttest.check({t["key"] for t in spec["tolerations"]} >= {"nvidia.com/gpu"}, "no GPU toleration")
    cttest.check(spec.get("nodeSelector"), "no node selector")
    volumes = {v["name"]: v for v in spec["volumes"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    for path in HOST_MOUNTS:
        cttest.check(path in mounts and volumes[mounts[path]].get("hostPath", {}).get("path") == path,
                     "%s is not the node's %s" % (path, path))
    for ic in spec.get("initContainers", []):
        for m in ic["volumeMounts"]:
            cttest.check(m["name"] in volumes, "init container mount %r has no volume" % m)
    cttest.check(all(name in volumes for name in mounts.values()), "a mount without a volume: %r" % mounts)
    conf_dir = next(p for p, n in mounts.items() if volumes[n].get("configMap", {}).get("name") == cm["metadata"]["name"])
    args = c["command"] + c["args"]
    conf_path = args[args.index("-c") + 1]
    cttest.check(os.path.dirname(conf_path) == conf_dir and os.path.basename(conf_path) in cm["data"],
                 "-c %s is not the ConfigMap's file (mounted at %s)" % (conf_path, conf_dir))
    text = cm["data"][os.path.basename(conf_path)]
    port = re.search(r"^listen = [\d.]+:(\d+)$", text, re.M).group(1)
    ann = ds["spec"]["template"]["metadata"]["annotations"]
    cttest.check(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == port and
                 [p["containerPort"] for p in c["ports"]] == [int(port)], "scrape annotations %r, port %s" % (ann, port))
    for path in re.findall(r"^path = (\S+)$", text, re.M):
        cttest.check(any(path.startswith(m + "/") for m in mounts), "sink path %s is in no mount" % path)
    return args, conf_path, text


def check_config(args, conf_path, text, tmp):
    """`cudatracer ARGS --check-config` with the config (and the traces'
    folder) in tmp: the process's exit status and what it said."""
    conf = os.path.join(tmp, "cudatracer.ini")
    logs = os.path.join(tmp, "log")
    os.makedirs(logs, exist_ok=True)
    with open(conf, "w") as f:
        f.write(text.replace("/var/log/cudatracer/", logs + "/"))
    argv = [cttest.TRACER if a == "cudatracer" else conf if a == conf_path else a for a in args]
    p = subprocess.run(argv + ["--check-config"], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr, conf


def main():
    with open(MANIFEST) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    args, conf_path, text = check_manifest(docs)
    tmp = tempfile.mkdtemp(prefix="ctk8s.")
    try:
        rc, err, conf = check_config(args, conf_path, text, tmp)
        cttest.check(rc == 0 and err == "cudatracer: %s: the configuration is valid\n" % conf,
                     "the manifest's config and arguments: rc %d\n%s" % (rc, err))
        rc, err, conf = check_config(args, conf_path, text + "rotate_kept = 3\n", tmp)
        cttest.check(rc == 2 and "unknown key 'rotate_kept'" in err, "a broken config passed: rc %d\n%s" % (rc, err))
        rc, err, _ = check_config([a.replace("--daemon", "--deamon") for a in args], conf_path, text, tmp)
        cttest.check(rc == 2 and "deamon" in err, "a misspelt argument passed: rc %d\n%s" % (rc, err))
    finally:
        shutil.rmtree(tmp, True)
    print("ok: %s: %d objects, config and arguments pass --check-config" % (MANIFEST, len(docs)))


if __name__ == "__main__":
    main()
