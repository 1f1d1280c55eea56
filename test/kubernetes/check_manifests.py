#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The Kubernetes manifests (packaging/kubernetes) without a cluster.

What it checks:
  - every file parses as YAML and every document is an object with apiVersion, kind, a name;
  - the kustomizations render: in Python, exactly as kustomize does for the features they use
    (resources, namespace, configMapGenerator with files and options); any other kustomization
    field fails here, so the renderer never silently misses one. With kubectl on PATH, `kubectl
    kustomize` renders both too and must give the same objects;
  - every core object's fields, names and types against the Kubernetes API models of
    python3-kubernetes (strict: an unknown or misspelt field, a string where a number goes,
    fails); the ServiceMonitor against the Prometheus Operator's Endpoint fields it may use;
  - roced's own promises: the roced container's capabilities are the unit's
    CapabilityBoundingSet (systemd/roced.service) and nothing else, every container drops ALL,
    runs with a read-only root and no privilege escalation, not privileged; the ConfigMap is
    mounted as a directory (no subPath) where roced looks for its file, and its content is
    packaging/etc/roced.yaml byte for byte; the volumes' paths are the ones the code uses (the
    node lock, debugfs, configfs, the state directory); one node at a time (maxUnavailable 1),
    system-node-critical, the host's network; the metrics port is roced's default and the
    Service and ServiceMonitor name it; no liveness probe; the image is this version's; the
    grace period covers the unit's stop timeout; the nccl-env sidecar writes the file the
    example job sources, from the hostPath the job mounts read-only.
With --self-test it breaks the rendered objects one way at a time and fails unless each break
is caught: the checks can fail.

What it cannot check (no API server here): admission (Pod Security, quotas on
system-node-critical outside kube-system, webhooks), defaulting, whether the image exists and
holds what the pod runs, the ServiceMonitor against the installed CRD's own schema, fields newer
than python3-kubernetes's models (22.6: Kubernetes 1.22), and anything that happens on a node.
"""
import argparse
import copy
import os
import re
import shutil
import subprocess
import sys

import yaml

try:
    import kubernetes
    import kubernetes.client.models as k8s_models
except ImportError:
    sys.exit("python3-kubernetes is missing: install the Debian package python3-kubernetes "
             "(scripts/setup.sh does), it holds the API models the objects are checked against")

SOURCE = os.environ.get("ROCED_SOURCE_DIR",
                        os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
MANIFESTS = os.path.join(SOURCE, "packaging", "kubernetes")

# (apiVersion, kind) -> the python3-kubernetes model class.
MODELS = {
    ("v1", "Namespace"): "V1Namespace",
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "Service"): "V1Service",
    ("v1", "Pod"): "V1Pod",
    ("apps/v1", "DaemonSet"): "V1DaemonSet",
}
# The ServiceMonitor fields these manifests may use (prometheus-operator monitoring.coreos.com/v1:
# ServiceMonitorSpec, Endpoint, RelabelConfig, NamespaceSelector), with their types.
SERVICE_MONITOR = {
    "apiVersion": str, "kind": str, "metadata": "V1ObjectMeta",
    "spec": {
        "selector": "V1LabelSelector", "jobLabel": str,
        "namespaceSelector": {"any": bool, "matchNames": [str]},
        "endpoints": [{
            "port": str, "path": str, "scheme": str, "interval": str, "scrapeTimeout": str,
            "honorLabels": bool,
            "relabelings": [{"sourceLabels": [str], "separator": str, "targetLabel": str,
                             "regex": str, "replacement": str, "action": str}],
            "metricRelabelings": [{"sourceLabels": [str], "separator": str, "targetLabel": str,
                                   "regex": str, "replacement": str, "action": str}],
        }],
    },
}
KUSTOMIZATION_FIELDS = {"apiVersion", "kind", "namespace", "resources", "configMapGenerator"}
GENERATOR_FIELDS = {"name", "files", "options"}
GENERATOR_OPTIONS = {"labels", "disableNameSuffixHash"}
CLUSTER_SCOPED = {"Namespace"}


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, message):
        self.items.append(f"{where}: {message}")


def load_documents(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


# --- kustomize, for the features used -------------------------------------------------------

def render(directory, problems):
    """The objects `kustomize build directory` makes, for the fields KUSTOMIZATION_FIELDS."""
    kustomization = load_documents(os.path.join(directory, "kustomization.yaml"))[0]
    where = os.path.relpath(os.path.join(directory, "kustomization.yaml"), SOURCE)
    for key in sorted(set(kustomization) - KUSTOMIZATION_FIELDS):
        problems.add(where, f"{key}: a kustomize feature this test does not render; teach it")
    objects = []
    for resource in kustomization.get("resources", []):
        path = os.path.normpath(os.path.join(directory, resource))
        if os.path.isdir(path):
            objects += render(path, problems)
        else:
            objects += load_documents(path)
    for generator in kustomization.get("configMapGenerator", []):
        for key in sorted(set(generator) - GENERATOR_FIELDS):
            problems.add(where, f"configMapGenerator.{key}: not rendered by this test")
        options = generator.get("options", {})
        for key in sorted(set(options) - GENERATOR_OPTIONS):
            problems.add(where, f"configMapGenerator.options.{key}: not rendered by this test")
        if not options.get("disableNameSuffixHash"):
            problems.add(where, "configMapGenerator: without disableNameSuffixHash the name "
                         "gets a hash suffix this test does not compute")
        data = {}
        for name in generator.get("files", []):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                data[os.path.basename(name)] = f.read()
        metadata = {"name": generator["name"]}
        if options.get("labels"):
            metadata["labels"] = dict(options["labels"])
        objects.append({"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata,
                        "data": data})
    if "namespace" in kustomization:
        for obj in objects:
            if obj["kind"] not in CLUSTER_SCOPED:
                obj["metadata"]["namespace"] = kustomization["namespace"]
    return objects


def keyed(objects):
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


def compare_with_kubectl(directory, ours, problems):
    kubectl = shutil.which("kubectl")
    if not kubectl:
        print(f"note: no kubectl: {os.path.relpath(directory, SOURCE)} rendered in Python only")
        return
    run = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True,
                         check=False)
    where = "kubectl kustomize " + os.path.relpath(directory, SOURCE)
    if run.returncode != 0:
        problems.add(where, run.stderr.strip())
        return
    theirs = keyed(d for d in yaml.safe_load_all(run.stdout) if d)
    mine = keyed(ours)
    if set(theirs) != set(mine):
        problems.add(where, f"objects {sorted(theirs)} where the test renders {sorted(mine)}")
        return
    for key, obj in theirs.items():
        if obj != mine[key]:
            problems.add(where, f"{key[0]}/{key[1]} differs from the test's own rendering")


# --- the API models ---------------------------------------------------------------------------

def check_model(value, type_name, where, problems):
    """`value` (parsed YAML) against a python3-kubernetes type: a model name, 'str', 'int',
    'bool', 'float', 'object' (int-or-string, quantities), 'list[T]', 'dict(str, T)'."""
    if type_name.startswith("list["):
        if not isinstance(value, list):
            problems.add(where, f"a list expected, found {type(value).__name__}")
            return
        for i, item in enumerate(value):
            check_model(item, type_name[5:-1], f"{where}[{i}]", problems)
        return
    if type_name.startswith("dict("):
        if not isinstance(value, dict):
            problems.add(where, f"a mapping expected, found {type(value).__name__}")
            return
        inner = type_name[type_name.index(",") + 1:-1].strip()
        for key, item in value.items():
            check_model(item, inner, f"{where}.{key}", problems)
        return
    if type_name == "str":
        if not isinstance(value, str):
            problems.add(where, f"a string expected, found {value!r}")
        return
    if type_name == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            problems.add(where, f"an integer expected, found {value!r}")
        return
    if type_name == "bool":
        if not isinstance(value, bool):
            problems.add(where, f"true or false expected, found {value!r}")
        return
    if type_name in ("float", "object", "datetime"):
        if isinstance(value, (dict, list)):
            problems.add(where, f"a scalar expected, found {type(value).__name__}")
        return
    model = getattr(k8s_models, type_name, None)
    if model is None:
        problems.add(where, f"no model {type_name} in python3-kubernetes")
        return
    if not isinstance(value, dict):
        problems.add(where, f"an object ({type_name}) expected, found {value!r}")
        return
    fields = {json_name: model.openapi_types[attr]
              for attr, json_name in model.attribute_map.items()}
    if type_name == "V1ResourceRequirements":
        # Quantities: the models say str, the API takes a number too ("1", 1, "500m").
        fields = {name: "dict(str, object)" for name in fields}
    for key, item in value.items():
        if key not in fields:
            problems.add(where, f"unknown field {key!r} in {type_name}")
            continue
        check_model(item, fields[key], f"{where}.{key}", problems)


def check_shape(value, shape, where, problems):
    """`value` against SERVICE_MONITOR-style shapes: dict of fields, [item], type, model name."""
    if isinstance(shape, str):
        check_model(value, shape, where, problems)
    elif isinstance(shape, list):
        if not isinstance(value, list):
            problems.add(where, "a list expected")
            return
        for i, item in enumerate(value):
            check_shape(item, shape[0], f"{where}[{i}]", problems)
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            problems.add(where, "an object expected")
            return
        for key, item in value.items():
            if key not in shape:
                problems.add(where, f"unknown field {key!r}")
            else:
                check_shape(item, shape[key], f"{where}.{key}", problems)
    elif not isinstance(value, shape) or (shape is int and isinstance(value, bool)):
        problems.add(where, f"{shape.__name__} expected, found {value!r}")


def check_fields(obj, where, problems):
    key = (obj.get("apiVersion"), obj.get("kind"))
    if key == ("monitoring.coreos.com/v1", "ServiceMonitor"):
        check_shape(obj, SERVICE_MONITOR, where, problems)
    elif key in MODELS:
        check_model(obj, MODELS[key], where, problems)
    else:
        problems.add(where, f"{key}: a kind this test has no model for")


# --- roced's own promises ---------------------------------------------------------------------

def source_text(*parts):
    with open(os.path.join(SOURCE, *parts), encoding="utf-8") as f:
        return f.read()


def source_has(text, *parts):
    return text in source_text(*parts)


class Facts:
    """What the code, the unit and the docs say, read from the tree rather than repeated here."""

    def __init__(self):
        unit = source_text("systemd", "roced.service")
        bounding = re.search(r"^CapabilityBoundingSet=(.*)$", unit, re.M).group(1).split()
        self.capabilities = sorted(c.removeprefix("CAP_") for c in bounding)
        self.stop_timeout = int(re.search(r"^TimeoutStopSec=(\d+)s$", unit, re.M).group(1))
        self.state_directory = "/var/lib/" + re.search(r"^StateDirectory=(\S+)$", unit,
                                                         re.M).group(1)
        settings = source_text("telemetry", "exporter_settings.hpp")
        self.metrics_port = int(re.search(r"kDefaultMetricsPort = (\d+);", settings).group(1))
        lock = source_text("os", "node_lock.cpp")
        self.lock_path = re.search(r'"(/run/[^"]*\.lock)"', lock).group(1)
        self.version = re.search(r"project\(roced VERSION (\S+) ",
                                 source_text("CMakeLists.txt")).group(1)
        self.config_path = "/etc/roced/roced.yaml"
        # The paths the code reads and writes, as it spells them.
        for path, where in (("/sys/kernel/debug/mlx5", ("rdma", "ecn_knobs.cpp")),
                            ("/sys/kernel/config/rdma_cm", ("rdma", "rdma_cm.cpp")),
                            (self.config_path, ("cli", "cmd_nccl_env.cpp"))):
            if not source_has(path, *where):
                raise SystemExit(f"{'/'.join(where)} no longer names {path}: update this test")
        with open(os.path.join(SOURCE, "packaging", "etc", "roced.yaml"), encoding="utf-8") as f:
            self.config_text = f.read()


def containers_of(daemonset):
    return {c["name"]: c for c in daemonset["spec"]["template"]["spec"]["containers"]}


def mounts_of(container):
    return {m["mountPath"]: m for m in container.get("volumeMounts", [])}


def check_promises(objects, monitoring, example, facts, problems):
    by_key = keyed(objects)
    ds = by_key.get(("DaemonSet", "roced"))
    if ds is None:
        problems.add("daemonset", "no DaemonSet roced")
        return
    where = "DaemonSet/roced"
    spec = ds["spec"]
    pod = spec["template"]["spec"]
    strategy = spec.get("updateStrategy", {})
    if strategy.get("type") != "RollingUpdate" or \
            strategy.get("rollingUpdate", {}).get("maxUnavailable") != 1:
        problems.add(where, "updateStrategy must be RollingUpdate with maxUnavailable 1")
    for key, wanted in (("priorityClassName", "system-node-critical"), ("hostNetwork", True),
                        ("dnsPolicy", "ClusterFirstWithHostNet")):
        if pod.get(key) != wanted:
            problems.add(where, f"{key} must be {wanted!r}, is {pod.get(key)!r}")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    if isinstance(grace, int) and grace < facts.stop_timeout:
        problems.add(where, f"terminationGracePeriodSeconds below the unit's TimeoutStopSec "
                     f"({facts.stop_timeout} s): a stop would kill roced mid-apply")
    containers = containers_of(ds)
    if set(containers) != {"roced", "bus", "nccl-env"}:
        problems.add(where, f"containers {sorted(containers)}, not roced, bus and nccl-env")
        return
    if list(containers)[0] != "bus":
        problems.add(where, "bus must come first: roced offers D-Bus only if the bus is up")
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for name, container in containers.items():
        at = f"{where} container {name}"
        if container.get("image") != f"roced:{facts.version}":
            problems.add(at, f"image {container.get('image')!r}, not roced:{facts.version}")
        sc = container.get("securityContext", {})
        for key, wanted in (("readOnlyRootFilesystem", True), ("allowPrivilegeEscalation", False),
                            ("privileged", False)):
            if sc.get(key) is not wanted:
                problems.add(at, f"securityContext.{key} must be {wanted}")
        if sc.get("capabilities", {}).get("drop") != ["ALL"]:
            problems.add(at, "must drop ALL capabilities")
        added = sorted(sc.get("capabilities", {}).get("add", []))
        wanted_caps = facts.capabilities if name == "roced" else []
        if added != wanted_caps:
            problems.add(at, f"adds capabilities {added}; the unit's CapabilityBoundingSet "
                         f"grants roced {facts.capabilities}, and the others need none")
        for mount in container.get("volumeMounts", []):
            volume = volumes.get(mount["name"], {})
            if "configMap" in volume and ("subPath" in mount or "subPathExpr" in mount):
                problems.add(at, f"mounts ConfigMap {mount['name']} with a subPath: the kubelet's "
                             "updates never reach a subPath mount")
    roced, bus, nccl = containers["roced"], containers["bus"], containers["nccl-env"]
    if roced["securityContext"].get("runAsUser") != 0:
        problems.add(f"{where} container roced", "runAsUser must be 0 (file ownership)")
    if bus["securityContext"].get("runAsUser") != 65534:
        problems.add(f"{where} container bus", "runAsUser must be 65534")
    if "livenessProbe" in roced:
        problems.add(f"{where} container roced", "no livenessProbe: a restart mid-apply leaves "
                     "ports half done")

    # Each mount of roced that the code needs, from the volume that gives it.
    def host_path_of(container, mount_path):
        mount = mounts_of(container).get(mount_path)
        if mount is None:
            return None
        return volumes.get(mount["name"], {}).get("hostPath", {}).get("path")

    mounts = mounts_of(roced)
    for path, host in (("/sys", "/sys"), ("/sys/kernel/debug", "/sys/kernel/debug"),
                       ("/sys/kernel/config", "/sys/kernel/config"),
                       (os.path.dirname(facts.lock_path), os.path.dirname(facts.lock_path)),
                       (facts.state_directory, facts.state_directory)):
        if host_path_of(roced, path) != host:
            problems.add(f"{where} container roced", f"{path} must be the host's {host}")
        elif mounts[path].get("readOnly"):
            problems.add(f"{where} container roced", f"{path} must be writable")
    run_roced = volumes[mounts[os.path.dirname(facts.lock_path)]["name"]]["hostPath"]
    if run_roced.get("type") != "DirectoryOrCreate":
        problems.add(where, "the node lock's directory must be DirectoryOrCreate")
    env = {e["name"]: e.get("value") for e in roced.get("env", [])}
    if env.get("STATE_DIRECTORY") != facts.state_directory:
        problems.add(f"{where} container roced", f"STATE_DIRECTORY must be "
                     f"{facts.state_directory}, the mounted state directory")
    config_dir = os.path.dirname(facts.config_path)
    for container in (roced, nccl):
        mount = mounts_of(container).get(config_dir)
        if mount is None or "configMap" not in volumes.get(mount["name"], {}):
            problems.add(f"{where} container {container['name']}",
                         f"{config_dir} must be the ConfigMap, mounted as a directory")
            continue
        name = volumes[mount["name"]]["configMap"]["name"]
        config_map = by_key.get(("ConfigMap", name))
        if config_map is None:
            problems.add(where, f"ConfigMap {name} is not among the objects")
        elif config_map.get("data", {}).get(os.path.basename(facts.config_path)) != \
                facts.config_text:
            problems.add(f"ConfigMap/{name}", "roced.yaml differs from packaging/etc/roced.yaml")
    if "dbus" not in volumes or "emptyDir" not in volumes["dbus"] or \
            mounts_of(roced).get("/run/dbus", {}).get("name") != "dbus" or \
            mounts_of(bus).get("/run/dbus", {}).get("name") != "dbus":
        problems.add(where, "roced and bus must share an emptyDir at /run/dbus (the bus socket)")
    ports = {p["name"]: p["containerPort"] for p in roced.get("ports", [])}
    if ports.get("metrics") != facts.metrics_port:
        problems.add(f"{where} container roced",
                     f"port metrics must be roced's default {facts.metrics_port}")
    probe = roced.get("readinessProbe", {}).get("httpGet", {})
    if probe.get("path") != "/healthz" or probe.get("port") not in ("metrics", facts.metrics_port):
        problems.add(f"{where} container roced", "readinessProbe must GET /healthz on metrics")
    monitor = monitoring[0] if monitoring else {}
    endpoints = monitor.get("spec", {}).get("endpoints", [{}])
    if monitor.get("metadata", {}).get("namespace") != ds["metadata"].get("namespace") or \
            endpoints[0].get("port") != "metrics":
        problems.add("servicemonitor.yaml", "must be in roced's namespace and scrape port metrics")
    service = by_key.get(("Service", "roced-metrics"))
    if service is None:
        problems.add("Service", "no Service roced-metrics")
    else:
        sports = {p["name"]: p for p in service["spec"]["ports"]}
        if service["spec"].get("clusterIP") != "None" or "metrics" not in sports or \
                sports["metrics"]["port"] != facts.metrics_port:
            problems.add("Service/roced-metrics", "headless, with port metrics on "
                         f"{facts.metrics_port}")
        labels = ds["spec"]["template"]["metadata"]["labels"]
        if any(labels.get(k) != v for k, v in service["spec"]["selector"].items()):
            problems.add("Service/roced-metrics", "its selector does not select roced's pods")

    # nccl-env writes the file the example job sources, in the hostPath the job mounts.
    command = nccl.get("command", [])
    try:
        output = command[command.index("--output") + 1]
        every = command[command.index("--every") + 1]
        fmt = command[command.index("--format") + 1]
    except (ValueError, IndexError):
        problems.add(f"{where} container nccl-env", "needs --output FILE, --every and --format")
        return
    if command[:2] != ["rocectl", "nccl-env"] or fmt != "shell" or not re.fullmatch(r"\d+[smh]",
                                                                                      every):
        problems.add(f"{where} container nccl-env", "rocectl nccl-env --format shell (export "
                     "lines a shell sources) --every DURATION")
    host_dir = host_path_of(nccl, os.path.dirname(output))
    if host_dir is None:
        problems.add(f"{where} container nccl-env", f"{os.path.dirname(output)} is no hostPath")
    job = example["spec"]["containers"][0]
    job_volumes = {v["name"]: v for v in example["spec"].get("volumes", [])}
    job_mount = mounts_of(job).get(os.path.dirname(output))
    if job_mount is None or not job_mount.get("readOnly") or \
            job_volumes[job_mount["name"]].get("hostPath", {}).get("path") != host_dir:
        problems.add("examples/nccl-pod.yaml", f"must mount the host's {host_dir} read-only at "
                     f"{os.path.dirname(output)}")
    if f". {output}" not in "\n".join(job.get("command", []) + job.get("args", [])):
        problems.add("examples/nccl-pod.yaml", f"the job must source {output}")


def check_all(objects, monitoring, example, facts):
    problems = Problems()
    for obj in objects + monitoring + [example]:
        name = obj.get("metadata", {}).get("name")
        if not obj.get("apiVersion") or not obj.get("kind") or not name:
            problems.add(str(obj)[:60], "apiVersion, kind and metadata.name are needed")
            continue
        check_fields(obj, f"{obj['kind']}/{name}", problems)
    check_promises(objects, monitoring, example, facts, problems)
    return problems


# --- the self-test ----------------------------------------------------------------------------

def mutations():
    """(what, change) pairs: each change breaks the objects in a way a check must report."""
    def ds_of(objs):
        return next(o for o in objs if o["kind"] == "DaemonSet")

    def container(objs, name):
        return containers_of(ds_of(objs))[name]

    def pod(objs):
        return ds_of(objs)["spec"]["template"]["spec"]

    return [
        ("a misspelt field", lambda o: pod(o).update(hostNetwrok=True)),
        ("a string for a number", lambda o: pod(o).update(terminationGracePeriodSeconds="60")),
        ("SYS_ADMIN added", lambda o: container(o, "roced")["securityContext"]["capabilities"]
         ["add"].append("SYS_ADMIN")),
        ("NET_RAW left out", lambda o: container(o, "roced")["securityContext"]["capabilities"]
         ["add"].remove("NET_RAW")),
        ("a writable root", lambda o: container(o, "bus")["securityContext"]
         .update(readOnlyRootFilesystem=False)),
        ("the config by subPath", lambda o: mounts_of(container(o, "roced"))["/etc/roced"]
         .update(subPath="roced.yaml")),
        ("two nodes at a time", lambda o: ds_of(o)["spec"]["updateStrategy"]["rollingUpdate"]
         .update(maxUnavailable=2)),
        ("another priority", lambda o: pod(o).update(priorityClassName="system-cluster-critical")),
        ("a liveness probe", lambda o: container(o, "roced").update(
            livenessProbe={"httpGet": {"path": "/healthz", "port": "metrics"}})),
        ("the config edited", lambda o: next(c for c in o if c["kind"] == "ConfigMap")["data"]
         .update({"roced.yaml": "ports: {netdevs: ['*']}\n"})),
        ("the lock elsewhere", lambda o: next(v for v in pod(o)["volumes"] if v["name"] ==
                                              "run-roced")["hostPath"].update(path="/run/other")),
        ("another port", lambda o: container(o, "roced")["ports"][0].update(containerPort=9100)),
        ("a short grace", lambda o: pod(o).update(terminationGracePeriodSeconds=30)),
        ("nccl-env elsewhere", lambda o: container(o, "nccl-env")["command"].__setitem__(
            container(o, "nccl-env")["command"].index("--output") + 1, "/tmp/nccl.env")),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    facts = Facts()
    problems = Problems()
    for root, _, files in os.walk(MANIFESTS):
        for name in sorted(files):
            if name.endswith(".yaml"):
                try:
                    load_documents(os.path.join(root, name))
                except yaml.YAMLError as error:
                    problems.add(os.path.relpath(os.path.join(root, name), SOURCE), str(error))
    objects = render(MANIFESTS, problems)
    compare_with_kubectl(MANIFESTS, objects, problems)
    monitoring = load_documents(os.path.join(MANIFESTS, "servicemonitor.yaml"))
    example = load_documents(os.path.join(MANIFESTS, "examples", "nccl-pod.yaml"))[0]
    problems.items += check_all(objects, monitoring, example, facts).items
    if args.self_test:
        baseline = set(problems.items)
        missed = []
        for what, change in mutations():
            broken = copy.deepcopy(objects)
            change(broken)
            found = [p for p in check_all(broken, monitoring, example, facts).items
                     if p not in baseline]
            print(f"{what}: {'caught: ' + found[0] if found else 'MISSED'}")
            if not found:
                missed.append(what)
        if missed:
            problems.add("self-test", f"breaks not caught: {', '.join(missed)}")
    for item in problems.items:
        print(f"FAIL {item}")
    print(f"{len(objects)} objects, the ServiceMonitor and the example"
          f" checked against python3-kubernetes {kubernetes.__version__}'s models")
    return 1 if problems.items else 0


if __name__ == "__main__":
    sys.exit(main())
