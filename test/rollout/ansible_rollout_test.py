#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Ansible role (packaging/ansible) against two simulated nodes on this machine, for real.

Run inside a scratch root (test/packaging/in-scratch-root.sh): the role installs the package with
apt. Two inventory hosts, node-a and node-b, both this machine (connection local), each with its
own roce-sim node, D-Bus bus and roced; the package's roced runs under no systemd (there is none
as PID 1 here), so the role is told `roced_service_manager: none` and reloads with kill -HUP. What
that leaves untested: the role's systemd tasks (enable, start, reload through the unit).

Steps: syntax check; check mode before the install (would install, writes nothing); install;
roced installed idle (roced_allow_idle, a file naming no port: the gate passes an idle roced);
check mode with the site configuration (per-port changes reported, nothing written to a file or a
port); roced_disruptive refuse (the plan flaps links: the node fails, nothing changed); the real
run under roced_disruptive drain (each node drained before its first write, undrained after its
gate); a second run and a second check (nothing changed, nobody drained); a broken configuration
(refused by roced --check-config, nothing replaced); the health gate (node-a cannot take the new
MTU, so node-b is never touched, and node-a is undrained all the same).
"""

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ROCED_BUILD_DIR") or REPO / "build")
DEBS = Path(sys.argv[1]) if len(sys.argv) > 1 else BUILD / "deb"
ROCE_SIM = BUILD / "bin" / "roce-sim"
PLAYBOOK = REPO / "packaging" / "ansible" / "site.yml"
WORK = Path("/tmp/rollout")
HOSTS = {
    "node-a": {"config": Path("/etc/roced/roced.yaml")},  # the package's conffile
    "node-b": {"config": Path("/etc/roced-b/roced.yaml")},  # node-b's own /etc, as it were
}
failures = []


def check(what, condition, detail=""):
    print(("ok: " if condition else "FAIL: ") + what + ("" if condition else f"\n  {detail}"))
    if not condition:
        failures.append(what)
    return condition


def run(argv, **kwargs):
    return subprocess.run(argv, capture_output=True, text=True, **kwargs)


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def writes(host):
    """The simulated node's count of write requests (roce-sim.writes, `total N`)."""
    text = (WORK / host / "sim" / "roce-sim.writes").read_text()
    return int(re.search(r"^total (\d+)$", text, re.M).group(1))


def bus_env(host):
    return dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=f"unix:path={WORK / host / 'bus.sock'}")


def rocectl(host, *args):
    return run(["/usr/bin/rocectl", "--sim", str(WORK / host / "sim"), *args], env=bus_env(host))


def mtu(host, netdev):
    out = run([str(ROCE_SIM), "exec", str(WORK / host / "sim"), "--", "ip", "link", "show", netdev])
    match = re.search(r"mtu (\d+)", out.stdout)
    return int(match.group(1)) if match else None


def playbook(*args, extra=None, inventory=None):
    argv = ["ansible-playbook", "-i", str(inventory or WORK / "inventory"), str(PLAYBOOK), *args]
    if extra is not None:
        argv += ["-e", json.dumps(extra)]
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_HOME=str(WORK / "ansible-home"),
               ANSIBLE_LOCAL_TEMP=str(WORK / "ansible-tmp"), ANSIBLE_RETRY_FILES_ENABLED="0")
    started = time.monotonic()
    result = run(argv, env=env, cwd=WORK)
    print(f"--- ansible-playbook {' '.join(args)} (exit {result.returncode}, "
          f"{time.monotonic() - started:.1f} s)")
    print(result.stdout + result.stderr)
    return result


def recap(result):
    """PLAY RECAP as {host: {"ok": n, "changed": n, "failed": n, ...}}."""
    counts = {}
    for host, fields in re.findall(r"^(node-[ab])\s+:\s+(.*)$", result.stdout, re.M):
        counts[host] = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", fields)}
    return counts


def wait_for(what, predicate, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return check(what, False, "timed out")


def daemon_status(host):
    """`rocectl status --json` when the running roced answered it, else None."""
    try:
        document = json.loads(rocectl(host, "status", "--json").stdout)
    except ValueError:
        return None
    return document if document.get("answered_by") == "roced" else None


def in_sync(host):
    ports = (daemon_status(host) or {}).get("ports")
    return bool(ports) and all(p["condition"] == "in-sync" for p in ports)


def idle(host):
    """roced runs and manages no port: what the package's file (it names none) gives."""
    return (daemon_status(host) or {}).get("ports") == []


def drain_log():
    """The drain hooks' lines (roced_drain_command, roced_undrain_command): "drain|undrain NODE
    MTU", MTU being the node's lan2 MTU as the hook ran."""
    path = WORK / "drain.log"
    return path.read_text().splitlines() if path.exists() else []


def hook(word):
    """A drain hook as an operator's would be: a shell command run on the node by the role."""
    return (f'echo "{word} $ROCED_NODE $(cat {WORK}/$ROCED_NODE/sim/sys/class/net/lan2/mtu)"'
            f' >> {WORK}/drain.log')


def write_inventory(pids):
    inventory = WORK / "inventory"
    (inventory / "group_vars").mkdir(parents=True, exist_ok=True)
    (inventory / "host_vars").mkdir(exist_ok=True)
    (inventory / "hosts").write_text(
        "[gpu]\nnode-a\nnode-b\n\n[storage]\nnode-b\n\n[gpu:vars]\nansible_connection=local\n"
        "ansible_python_interpreter=/usr/bin/python3\n"
        "# Already root, and this machine has no sudo.\nansible_become=false\n")
    deb = next(DEBS.glob("roced_*_amd64.deb"))
    # The fleet's file: roced's recipe with a 4200-byte MTU and 5 m cables; node-b's host
    # override keeps 9000 on its storage port lan5. JSON is YAML.
    (inventory / "group_vars" / "gpu.json").write_text(json.dumps({
        "roced_package_file": str(deb),
        "roced_service_manager": "none",
        "roced_health_retries": 60,  # links train for 3 s each, one port at a time
        "roced_health_delay": 1,
        # Nodes that run jobs: drained around a disruptive change, and only then.
        "roced_disruptive": "drain",
        "roced_drain_command": hook("drain"),
        "roced_undrain_command": hook("undrain"),
        "roced_config": {"daemon": {"drift_check_interval": "5s"}, "ports": {"netdevs": ["lan*"]}},
        "roced_config_group": {"profile": {"mtu": 4200, "pfc": {"cable_length": 5}}},
    }, indent=2))
    # node-b is in two groups: each group's own layer reaches it.
    (inventory / "group_vars" / "storage.json").write_text(json.dumps({
        "roced_config_group_storage": {"daemon": {"log_level": "debug"}},
    }, indent=2))
    for host, spec in HOSTS.items():
        vars_ = {
            "roced_sim_dir": str(WORK / host / "sim"),
            "roced_config_path": str(spec["config"]),
            "roced_environment": {"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={WORK / host / 'bus.sock'}"},
            "roced_reload_command": f"kill -HUP {pids.get(host, 0)}",
        }
        if host == "node-b":
            vars_["roced_config_host"] = {"overrides": {"lan5": {"mtu": 9000}}}
        (inventory / "host_vars" / f"{host}.json").write_text(json.dumps(vars_, indent=2))


def start_node(host):
    """roce-sim and a private system bus (the tree's D-Bus policy) for one host."""
    base = WORK / host
    (base / "sim").mkdir(parents=True)
    sim = subprocess.Popen([str(ROCE_SIM), "run", "--dir", str(base / "sim"), "--quiet"])
    (base / "bus.conf").write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={base / 'bus.sock'}</listen><auth>EXTERNAL</auth>
  <policy context="default"><allow user="*"/><deny own="*"/><deny send_type="method_call"/>
    <allow send_type="signal"/><allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/><allow receive_type="method_call"/>
    <allow receive_type="method_return"/><allow receive_type="error"/><allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/></policy>
  <include>{REPO / 'packaging' / 'dbus' / 'io.roced.Daemon1.conf'}</include>
</busconfig>
""")
    bus = subprocess.Popen(["dbus-daemon", "--config-file", str(base / "bus.conf"), "--nofork"])
    wait_for(f"{host}: node and bus up",
             lambda: (base / "sim" / "roce-sim.pid").exists() and (base / "bus.sock").exists())
    return [sim, bus]


def start_roced(host):
    """The packaged roced on the host's node with the host's file, as its unit would run it."""
    config = HOSTS[host]["config"]
    if not config.exists():
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_bytes(Path("/etc/roced/roced.yaml").read_bytes())
    log = open(WORK / host / "roced.log", "w")
    daemon = subprocess.Popen(
        ["/usr/sbin/roced", "--sim", str(WORK / host / "sim"), "--config", str(config),
         "--no-metrics", "--log-target", "console"],
        env=bus_env(host), stdout=log, stderr=subprocess.STDOUT)
    wait_for(f"{host}: roced idle with the package's file (it names no port)", lambda: idle(host))
    check(f"{host}: ... and nothing written to its node", writes(host) == 0, writes(host))
    return daemon


def check_batches():
    """Five nodes, two at a time: the batches site.yml makes, and an inventory roced_serial
    (which Ansible cannot use for the batch size) refused before anything runs. Only the tasks
    tagged always run (--tags names none), so the nodes need no roced."""
    print("== batches: five nodes, roced_serial 2")
    inventory = WORK / "inventory-batches"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "hosts").write_text(
        "[gpu]\nn1\nn2\nn3\nn4\nn5\n\n[gpu:vars]\nansible_connection=local\n"
        "ansible_python_interpreter=/usr/bin/python3\nansible_become=false\n")
    group = {"roced_config": {"ports": {"netdevs": ["*"]}}}
    (inventory / "group_vars" / "gpu.json").write_text(json.dumps(group))
    result = playbook("--tags", "roced_batches_only", inventory=inventory,
                      extra={"roced_serial": 2})
    check("-e roced_serial=2 runs", result.returncode == 0, result.stdout[-2000:])
    batches = re.findall(r'"msg": "batch of (\d+): ([^"]*)"', result.stdout)
    check("batches of 2, 2 and 1, in inventory order",
          batches == [("2", "n1, n2"), ("2", "n3, n4"), ("1", "n5")], batches)

    (inventory / "group_vars" / "gpu.json").write_text(json.dumps(dict(group, roced_serial=2)))
    result = playbook("--tags", "roced_batches_only", inventory=inventory)
    check("roced_serial in the inventory is refused, not ignored", result.returncode != 0)
    check("... saying where to set it", "Set roced_serial in rollout.yml" in result.stdout,
          result.stdout[-2000:])
    check("... before the second batch", "n3" not in re.sub(r"PLAY RECAP.*", "", result.stdout, flags=re.S),
          result.stdout[-2000:])


def main():
    WORK.mkdir(parents=True)
    # The nodes are simulated: their roced and rocectl reach them through the transports that
    # the roce-sim package installs (roced's own package holds no simulator code).
    sim_deb = next(DEBS.glob("roce-sim_*_amd64.deb"))
    installed = subprocess.run(["dpkg", "-i", str(sim_deb)], capture_output=True, text=True)
    check("the roce-sim package installs", installed.returncode == 0, installed.stderr)
    children = start_node("node-a") + start_node("node-b")
    write_inventory({})

    print("== syntax check, and the inventory holds both hosts")
    result = playbook("--syntax-check")
    check("syntax check passes", result.returncode == 0, result.stderr)
    result = playbook("--list-hosts")
    check("the play runs on node-a and node-b",
          re.search(r"hosts \(2\):\s+node-[ab]\s+node-[ab]", result.stdout) is not None
          and "node-a" in result.stdout and "node-b" in result.stdout, result.stdout)

    check_batches()

    print("== check mode before the install: it would install, and writes nothing")
    result = playbook("--check", "--diff")
    counts = recap(result)
    check("check run succeeds", result.returncode == 0)
    check("it reports a change on node-a (the package)", counts.get("node-a", {}).get("changed", 0) >= 1,
          counts)
    # dpkg knows roced's name once roce-sim (which recommends it) is in: ask for its state.
    state = run(["dpkg-query", "-W", "-f=${db:Status-Status}", "roced"])
    check("nothing was installed", state.returncode != 0 or state.stdout.strip() != "installed",
          state.stdout)

    print("== install (--tags roced_install)")
    result = playbook("--tags", "roced_install")
    check("install run succeeds", result.returncode == 0)
    check("roced is installed from the file",
          run(["dpkg-query", "-W", "-f=${db:Status-Status}", "roced"]).stdout == "installed")
    check("the install is reported as a change", recap(result).get("node-a", {}).get("changed", 0) >= 1)

    pids = {}
    for host in HOSTS:
        daemon = start_roced(host)
        children.append(daemon)
        pids[host] = daemon.pid
    write_inventory(pids)
    print("== roced installed idle: a file that names no port, with roced_allow_idle")
    counted = {h: writes(h) for h in HOSTS}
    # Only the daemon's section: the site's profile stays for the check run below to show.
    result = playbook(extra={"roced_config": {"daemon": {"drift_check_interval": "5s"}},
                             "roced_config_group": {}, "roced_config_group_storage": {},
                             "roced_config_host": {},
                             "roced_allow_idle": True, "roced_health_retries": 5})
    check("the idle run succeeds", result.returncode == 0, result.stdout[-3000:])
    check("the gate ran on both nodes, and passed",
          len(re.findall(r"^TASK \[roced : Wait until roced reports every port in sync", result.stdout,
                         re.M)) == 2 and recap(result).get("node-b", {}).get("failed", 1) == 0)
    for host, spec in HOSTS.items():
        check(f"{host}: its file names no port", "netdevs" not in spec["config"].read_text(),
              spec["config"].read_text())
        check(f"{host}: roced runs idle", idle(host))
        check(f"{host}: nothing written to its node", writes(host) == counted[host])
    check("nobody drained (the plan has no port)", drain_log() == [], drain_log())

    files = {h: sha(s["config"]) for h, s in HOSTS.items()}
    counted = {h: writes(h) for h in HOSTS}

    print("== check mode with the site configuration: per-port changes, nothing written")
    result = playbook("--check", "--diff")
    counts = recap(result)
    check("check run succeeds", result.returncode == 0)
    for host in HOSTS:
        check(f"{host}: changed in the recap", counts.get(host, {}).get("changed", 0) >= 1, counts)
    # Counted as the per-port lines print them; the drain's notice lists them again.
    check("the per-port change is reported: lan2 mtu 1500 -> 4200",
          result.stdout.count("lan2: mtu: 1500 -> 4200 (disruptive") == 2, "expected once per host")
    check("and the cable length", "lan3: pfc.cable_length: 7 m -> 5 m" in result.stdout)
    check("node-b's host override: its lan5 gets 9000, node-a's 4200",
          result.stdout.count("lan5: mtu: 1500 -> 9000 (disruptive") == 1
          and result.stdout.count("lan5: mtu: 1500 -> 4200 (disruptive") == 1)
    check("node-b is also in group storage: that group's layer is in its file too",
          "log_level: debug" in result.stdout)
    check("--diff shows the file's change", "+  mtu: 4200" in result.stdout)
    for host, spec in HOSTS.items():
        check(f"{host}: its file is untouched", sha(spec["config"]) == files[host])
        check(f"{host}: no write request reached its node", writes(host) == counted[host],
              f"{counted[host]} -> {writes(host)}")
    check("check mode says it would drain, and drains nobody",
          "would drain node-a" in result.stdout and drain_log() == [], drain_log())

    print("== roced_disruptive refuse: the plan flaps links, so the node fails, changing nothing")
    result = playbook(extra={"roced_disruptive": "refuse"})
    counts = recap(result)
    check("the run fails", result.returncode != 0)
    check("node-a failed, listing the disruptive changes",
          counts.get("node-a", {}).get("failed") == 1
          and re.search(r"roced_disruptive is refuse .*lan2: mtu: 1500 -> 4200", result.stdout, re.S)
          is not None, result.stdout[-3000:])
    check("node-b did not run", "node-b" not in counts or counts["node-b"].get("ok", 0) == 0, counts)
    for host, spec in HOSTS.items():
        check(f"{host}: its file is untouched", sha(spec["config"]) == files[host])
        check(f"{host}: nothing written", writes(host) == counted[host])
    check("nobody drained", drain_log() == [], drain_log())

    print("== the real run")
    result = playbook("--diff")
    counts = recap(result)
    check("real run succeeds", result.returncode == 0)
    for host in HOSTS:
        check(f"{host}: changed", counts.get(host, {}).get("changed", 0) >= 1, counts)
        check(f"{host}: the ports were written", writes(host) > counted[host])
        check(f"{host}: lan2 mtu is 4200", mtu(host, "lan2") == 4200, mtu(host, "lan2"))
        settled = rocectl(host, "apply", "--check", "--direct", "--config", str(HOSTS[host]["config"]))
        check(f"{host}: the ports match the installed file", settled.returncode == 0, settled.stdout)
    check("node-a: lan5 mtu is 4200", mtu("node-a", "lan5") == 4200)
    check("node-b: lan5 mtu stays 9000 (host override)", mtu("node-b", "lan5") == 9000)
    check("node-b's file has the override", "lan5:" in HOSTS["node-b"]["config"].read_text())
    check("the health gate ran, once per node",
          len(re.findall(r"^TASK \[roced : Wait until roced reports every port in sync", result.stdout,
                         re.M)) == 2)
    # serial 1: node-a drained before its first write, undrained once its gate passed, then node-b.
    check("each node drained before its ports changed and undrained after its gate, one at a time",
          drain_log() == ["drain node-a 1500", "undrain node-a 4200",
                          "drain node-b 1500", "undrain node-b 4200"], drain_log())
    drained = len(drain_log())

    files = {h: sha(s["config"]) for h, s in HOSTS.items()}
    counted = {h: writes(h) for h in HOSTS}
    for args, name in ((), "a second run"), (("--check", "--diff"), "a second check"):
        print(f"== {name}: nothing to change")
        result = playbook(*args)
        counts = recap(result)
        check(f"{name} succeeds", result.returncode == 0)
        for host in HOSTS:
            check(f"{name}: {host} changed=0", counts.get(host, {}).get("changed") == 0, counts)
            check(f"{name}: {host} wrote nothing", writes(host) == counted[host])
        check(f"{name}: nobody drained (nothing disruptive)", len(drain_log()) == drained,
              drain_log())

    print("== a configuration that names no port is refused before anything changes")
    result = playbook(extra={"roced_config": {"daemon": {"drift_check_interval": "5s"}}})
    check("the run fails", result.returncode != 0)
    check("it says ports.netdevs is empty", "ports.netdevs is empty" in result.stdout,
          result.stdout[-2000:])
    for host, spec in HOSTS.items():
        check(f"{host}: file untouched", sha(spec["config"]) == files[host])
        check(f"{host}: nothing written", writes(host) == counted[host])

    print("== a broken configuration is refused before it replaces anything")
    broken = {"profile": {"mtu": 4200, "ecn": {"cnp_priority": 3}}}  # 3 is the PFC priority
    result = playbook(extra={"roced_config_group": broken})
    check("the run fails", result.returncode != 0)
    check("roced --check-config names the field", "ecn.cnp_priority" in result.stdout, result.stdout[-2000:])
    for host, spec in HOSTS.items():
        check(f"{host}: file untouched", sha(spec["config"]) == files[host])
        check(f"{host}: nothing written", writes(host) == counted[host])

    print("== the health gate: node-a cannot take the new MTU, so node-b is never touched")
    (WORK / "mtu-fails.yaml").write_text(
        "events:\n  - {at: 0s, kind: netlink_errors, port: lan2, errno: EIO, op: mtu, count: 100000}\n")
    injected = run([str(ROCE_SIM), "inject", str(WORK / "node-a" / "sim"), str(WORK / "mtu-fails.yaml")])
    check("fault injected into node-a", injected.returncode == 0, injected.stderr)
    result = playbook(extra={"roced_config_group": {"profile": {"mtu": 4500}},
                             "roced_health_retries": 3})
    counts = recap(result)
    check("the rollout stops", result.returncode != 0)
    check("node-a failed at the gate", counts.get("node-a", {}).get("failed", 0) == 1, counts)
    check("the gate says which port", re.search(r"lan2: failed", result.stdout) is not None,
          result.stdout[-3000:])
    check("node-b did not run", "node-b" not in counts or counts["node-b"].get("ok", 0) == 0, counts)
    check("node-b's file is untouched", sha(HOSTS["node-b"]["config"]) == files["node-b"])
    check("node-b's ports are untouched", mtu("node-b", "lan2") == 4200 and writes("node-b") == counted["node-b"])
    check("node-a's lan2 was rolled back to 4200", mtu("node-a", "lan2") == 4200)
    check("node-a's other ports took 4500", mtu("node-a", "lan3") == 4500)
    check("node-a was drained, and undrained though its gate failed",
          drain_log()[drained:] == ["drain node-a 4200", "undrain node-a 4200"], drain_log())

    for child in reversed(children):
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
    print(f"== {len(failures)} failed" + (": " + "; ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
