#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""roced's raw /metrics, without Prometheus in between.

  lint   `promtool check metrics` reports nothing on scrapes taken as soon as /metrics answers,
         once every port is in sync, and after a drift (which brings the drift series).
  names  the metric families served are those of docs/metrics.md: none undocumented, and every
         documented one present unless listed in MAY_BE_ABSENT with the docs' reason.

roced runs with its PFC storm watchdog enabled (harness.WATCHDOG_CONFIG): its families, the
detection-latency histogram among them, are served from the start, at 0, and linted too.
"""
import argparse
import re
import subprocess
import sys

from harness import WATCHDOG_CONFIG, Failure, Stack, wait_for

PORTS = ["lan2", "lan3", "lan4", "lan5"]
# health.interval at its least, so that the families read as a rate between two of its readings
# (the pre-FEC bit error rate) are served within the test's time.
CONFIG = """daemon: {drift_policy: report, drift_check_interval: 5s}
health: {interval: 1s}
ports:
  netdevs: [lan2, lan3, lan4, lan5]
profile:
  dcbx: host
  trust: dscp
  dscp_map: {26: 3, 48: 6}
  pfc: {priorities: [3], cable_length: 10}
  mtu: 9000
  stall_prevention: auto
  roce: {rdma_cm_mode: v2, tos: 106}
  ecn: {priorities: [3]}  # not on the inbox driver: served as roced_finding
""" + WATCHDOG_CONFIG

# Documented families this node and config legitimately lack (docs/metrics.md says why).
_GLOBAL_PAUSE = ("mlx5 has the rx/tx_global_pause* counters only while 802.3x global pause is "
                 "used instead of PFC; these ports run PFC")
_RXE_ONLY = ("rxe's sent_pkts/rcvd_pkts hw_counters; mlx5 has no such hw_counters file and "
             "these ports are mlx5")
_NO_SWITCH = "no switch at the default node's ports: nothing heard, nothing compared"
_NO_PROBING = ("probing is off here: roce-sim has no RDMA data path; served and checked between "
               "two VMs (vm.probe_pair) and on a simulated fabric (probe.ProbeModule)")
MAY_BE_ABSENT = {
    **{name: _NO_PROBING for name in (
        "roce_probe_sent_total", "roce_probe_answered_total", "roce_probe_lost_total",
        "roce_probe_network_rtt_seconds", "roce_probe_bad_paths", "roce_probe_answers_total",
        "roce_probe_refused_total", "roce_probe_up")},
    "roce_global_pause_frames_total": _GLOBAL_PAUSE,
    "roce_global_pause_duration_seconds_total": _GLOBAL_PAUSE,
    "roce_global_pause_transitions_total": _GLOBAL_PAUSE,
    "roce_rocev2_gid_index_expected": "only when roce.gid_index is configured (it is not here)",
    "roce_config_corrections_total": "counts corrections under drift_policy enforce; this runs "
                                     "report",
    # Served on soft-RoCE ports, checked against a real rxe device by the VM tests (vm.kernel_*).
    "roce_rdma_sent_packets_total": _RXE_ONLY,
    "roce_rdma_received_packets_total": _RXE_ONLY,
    # roce-sim's default node has no switch at the ports' other ends (each port reads no_peer):
    # the families of a switch heard are checked on simulated time (test/lldp), by the
    # exposition's unit tests and through the real kernel's packet path (lldp_veth_test).
    "roced_lldp_peer_info": _NO_SWITCH,
    "roced_lldp_frames_dropped_total": "no frame is dropped where none is sent",
    "roce_fec_lane_corrected_blocks_total": "mlx5 counts per lane only in FireCode (BASE-R) "
                                            "mode; these links run RS-FEC",
    "roce_fec_lane_uncorrectable_blocks_total": "mlx5 counts per lane only in FireCode (BASE-R) "
                                                "mode; these links run RS-FEC",
}

_SAMPLE = re.compile(r"^(\w+)(\{[^}]*\})?\s+(\S+)")


def samples(text):
    """[(name, labels text, value)] of a text exposition."""
    out = []
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match and not line.startswith("#"):
            out.append((match.group(1), match.group(2) or "", match.group(3)))
    return out


def families(text):
    """{name: type} from the # TYPE lines."""
    return dict(re.findall(r"^# TYPE (\w+) (\w+)$", text, re.M))


def in_sync_everywhere(text):
    got = {}
    for name, labels, value in samples(text):
        if name == "roce_config_in_sync":
            port = re.search(r'netdev="([^"]*)"', labels).group(1)
            got.setdefault(port, []).append(float(value))
    return set(got) == set(PORTS) and all(v == 1 for vs in got.values() for v in vs)


def drifted(text, port, setting):
    return any(name == "roce_config_in_sync" and f'netdev="{port}"' in labels and
               f'setting="{setting}"' in labels and float(value) == 0
               for name, labels, value in samples(text))


def promtool_check(promtool, text, when):
    done = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=60)
    report = (done.stdout + done.stderr).strip()
    if done.returncode != 0 or report:
        raise Failure(f"promtool check metrics on the scrape {when} (exit {done.returncode}):\n"
                      f"{report}")
    print(f"  ok  promtool check metrics: nothing to report on the scrape {when} "
          f"({len(samples(text))} samples, {len(families(text))} families)")


def documented_names(docs):
    """Metric names in the first column of docs/metrics.md's tables."""
    with open(docs) as f:
        return set(re.findall(r"^\| `((?:roced?|process)_\w+)` \|", f.read(), re.M))


def scrapes(stack):
    """Scrapes at the three moments: as soon as /metrics answers, all in sync, after a drift."""
    yield "at start-up", stack.scrape()
    yield "with every port in sync", wait_for(
        "every port in sync in /metrics",
        lambda: (lambda t: t if in_sync_everywhere(t) else None)(stack.scrape()))
    stack.sim_exec("dcb", "pfc", "set", "dev", "lan2", "prio-pfc", "3:off")
    yield "after a drift on lan2", wait_for(
        "roce_config_in_sync{lan2,pfc.priorities} 0 in /metrics",
        lambda: (lambda t: t if drifted(t, "lan2", "pfc.priorities") else None)(stack.scrape()))
    yield "after two health readings", wait_for(
        "roce_phy_pre_fec_ber in /metrics",
        lambda: (lambda t: t if "\nroce_phy_pre_fec_ber{" in t else None)(stack.scrape()))


def lint(stack, args):
    for when, text in scrapes(stack):
        promtool_check(args.promtool, text, when)


def names(stack, args):
    documented = documented_names(args.docs)
    if len(documented) < 40:
        raise Failure(f"{args.docs}: read only {len(documented)} metric names; has the table "
                      f"layout changed?")
    served = set()
    for _, text in scrapes(stack):
        served |= set(families(text))
    ours = served  # every family served is roced's own, and documented
    undocumented = sorted(ours - documented)
    missing = sorted(documented - ours - set(MAY_BE_ABSENT))
    print(f"  served {len(ours)} families of roced's, {len(documented)} documented")
    for name in sorted(set(MAY_BE_ABSENT) & documented - ours):
        print(f"  --  {name} absent, allowed: {MAY_BE_ABSENT[name]}")
    problems = []
    if undocumented:
        problems.append(f"served but not in docs/metrics.md: {undocumented}")
    if missing:
        problems.append(f"documented but not served: {missing}")
    if problems:
        raise Failure("; ".join(problems))
    print("  ok  every served family is documented and every documented one is served")
    # The watchdog drives the statistics poller: a scrape serves its readings
    # (metrics.max_sample_age, 3 s; a quiet port's is renewed every 2 s) and reads no NIC, so
    # every port's ethtool counters are a little old, never read fresh.
    ages = served_ages(stack, "roced_ethtool_sample_age_seconds", 3,
                       "every port's ethtool counters served from the watchdog's readings")
    print(f"  ok  ethtool counters served from the watchdog's readings, ages {sorted(ages.values())}")
    # The RDMA counters likewise, from roced's background reading (metrics.rdma_interval, 1 s),
    # served while at most two intervals old.
    ages = served_ages(stack, "roced_rdma_sample_age_seconds", 2,
                       "every port's RDMA counters served from the background reading")
    print(f"  ok  RDMA counters served from the background reading, ages {sorted(ages.values())}")


def served_ages(stack, family, at_most, what):
    """Each port's value of the age gauge `family`, once every port's is above 0 and at most
    `at_most` seconds."""
    def ages():
        found = {re.search(r'netdev="([^"]*)"', labels).group(1): float(value)
                 for name, labels, value in samples(stack.scrape()) if name == family}
        fresh = len(found) == len(PORTS) and all(0 < v <= at_most for v in found.values())
        return found if fresh else None
    return wait_for(what, ages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["lint", "names"])
    for name in ("roce-sim", "roced", "rocectl", "promtool", "scenario", "docs"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    binaries = argparse.Namespace(roce_sim=args.roce_sim, roced=args.roced, rocectl=args.rocectl)
    with Stack(binaries) as stack:
        try:
            stack.start_sim(args.scenario)
            stack.write_config(CONFIG)
            stack.apply_with_rocectl()
            stack.start_roced()
            {"lint": lint, "names": names}[args.check](stack, args)
        except Failure as e:
            stack.print_logs()
            print(f"FAIL {args.check}: {e}", file=sys.stderr)
            return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
