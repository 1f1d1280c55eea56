#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""roced's exporter scraped by a real Prometheus, end to end.

roce-sim plays the traffic of sim/scenarios/telemetry.yaml (steady, on every port), `rocectl apply
--direct` sets the lossless profile (under drift_policy report roced itself writes nothing, not
even the first configuration), roced watches the node with its PFC storm watchdog on (alert only
for rx) and serves /metrics, and Prometheus scrapes it every second and evaluates
packaging/prometheus/roced-alerts.yml. Once Prometheus has scraped roced at rest, the test injects
the scenario's events with `roce-sim inject`: one RX PFC storm on lan4 (STORM_EVENT, 7 s) and, 3 s
into it, the scenario's congestion episode on lan3 priority 3 with known pause_ratio,
ecn_mark_ratio and cnp_rate. The test then asks Prometheus what the scenario implies:

  ready     every port configured and in sync, every collector succeeding
  drift     `dcb pfc set dev lan2 prio-pfc 3:off` makes roce_config_in_sync{lan2,pfc.priorities}
            go 1 -> 0 (roced only reports it), `rocectl apply --direct` brings it back to 1
  inject    the storm and the episode, once Prometheus has two scrapes and every port in sync
  episode   counters read in one ethtool dump agree within SAME_READ_TOLERANCE with the
            scenario's ratios, ECN marks are flat at 0 before
  dashboard every query of packaging/grafana/roced.json returns data (named exceptions only)
  totals    after the episode: rates back to 0, totals exact (they are simulated time, not
            scrape timing), nothing anywhere else but the storm, whose pause time is its length
  storm     roced's watchdog on the storm: detections and restorations 0 -> 1, roce_pfc_storm_active
            0 before, 1 through the storm, 0 after, one detection latency observed of at least
            detection_time, no action, hold or escalation, no detection on any other port or
            direction (the congestion episode is not a storm); the watchdog polls no faster than
            its interval; RocePfcStormPersistent was pending (not firing) during the storm, no
            other storm alert was, and every alert rule evaluates without error

Real processes on a real clock, on machines that may be slow or busy: only what holds however
late anything runs is asserted. Prometheus stamps a sample with the time its scrape started and
roced reads the counters some time later (up to the scrape's duration, which Prometheus records),
so a rate over a window depends on that delay at both ends: rates are shown, not checked. What is
checked does not depend on it: ratios of counters read in one ethtool dump, totals (simulated
time), the order of what happened, and lower bounds (roced acts detection_time or
restoration_time after the storm at the earliest, and a scrape shows it once it has read it).
The precise timing of the watchdog is tested on simulated time (test/watchdog).

The injected events' times come from roce-sim's log (the scenario time of the injection) and
DIR/roce-sim.clock (scenario time to Unix time).
"""
import argparse
import os
import re
import sys
import time

import dashboard
import scenario_numbers
from harness import (DEADLINE, SCRAPE_INTERVAL_S, WATCHDOG_CONFIG, WATCHDOG_DETECTION_S,
                     WATCHDOG_POLL_S, WATCHDOG_RESTORATION_S, Failure, Stack, http_get, run,
                     wait_for)
from prom_api import PrometheusApi, within

SAME_READ_TOLERANCE = 0.01  # counters of one ethtool dump: only the sim's rounding differs
TOTAL_TOLERANCE = 0.001  # totals over the whole episode, in simulated time
PAUSE_EPISODE_S = 20e-6  # docs/sim-formats.md: congestion pauses come in 20 us episodes
WINDOW = 5.0  # the [5s] of the rate queries
DRIFT_PORT = "lan2"
PORTS = ["lan2", "lan3", "lan4", "lan5"]

CONFIG = f"""daemon: {{drift_policy: report, drift_check_interval: 5s}}
ports:
  netdevs: [{", ".join(PORTS)}]
profile:
  dcbx: host
  trust: dscp
  dscp_map: {{26: 3, 48: 6}}
  pfc: {{priorities: [3], cable_length: 10}}
  mtu: 9000
  stall_prevention: auto
  roce: {{rdma_cm_mode: v2, tos: 106}}
  ecn: {{priorities: [3]}}  # not on the inbox driver: the "cannot take" panel has a row
""" + WATCHDOG_CONFIG

# The storm injected with the episode, on a port nothing else measures (lan4), at once: both are
# injected only once Prometheus has scraped roced at rest, so every counter is seen at 0 first
# however slowly everything started. 7 s: long enough for a [5s] rate wholly inside it (the
# dashboard's counter-computed storm panels), over and restored (7.5 s) before the dashboard
# check's instant (the episode's 7th second, 9.5 s or later), whose 30 s window it lies in.
STORM_EVENT = "{at: 0s, kind: pfc_storm, port: lan4, priority: 3, direction: rx, duration: 7s}"
EPISODE_AFTER_STORM_S = 3.0  # the congestion episode begins this long after the storm
# s: for "never too early" only: the sim's log gives its times to the millisecond, and its clock
# file converts them to Unix time.
STORM_SLACK = 0.1
LOOKBACK = "5m"  # longer than the whole run: every sample Prometheus has
STORM_ALERTS = ["RocePfcStormEscalated", "RocePfcStormHeld", "RocePfcStormPersistent"]

# Dashboard queries (panel title, refId) that legitimately return nothing on this healthy
# node, with why. Any other empty query fails the test.
_GLOBAL_PAUSE = "mlx5 has global (802.3x) pause counters only while PFC is off; PFC is on"
_NO_TX_STORM = "the scenario's storm is rx; the episode pauses 50 % and traffic still moves"
_NO_GID_INDEX = "roce_rocev2_gid_index_expected exists only when roce.gid_index is configured"
_RXE_ONLY = ("sent_pkts and rcvd_pkts are soft-RoCE (rxe) hw_counters; roce-sim's ports are mlx5's, "
             "which have none (the VM test has rxe)")
_NO_SWITCH = ("roce-sim's default node has no switch at the ports' other ends (every port reads "
              "no_peer); LLDP is tested on simulated time (test/lldp) and through the real "
              "kernel's packet path (lldp_veth)")
_NO_PROBING = ("probing is off here: roce-sim has no RDMA data path; the probe series are checked "
               "between two VMs (vm.probe_pair) and on a simulated fabric (probe.ProbeModule)")
DASHBOARD_MAY_BE_EMPTY = {
    **{(title, ref): _NO_PROBING for title, refs in (
        ("Probes lost per group (share of those sent)", "A"),
        ("Network round trip per group (p50, p99)", "AB"),
        ("Probes sent and answered per second; bad paths", "ABCD"),
        ("Peers' probes answered and refused per second", "AB"),
        ("Fleet: probes lost per group, and per port", "AB"),
        ("Fleet: nodes losing probes to each group", "A"),
        ("Fleet: p99 network round trip per group", "A")) for ref in refs},
    ("Switch port per port", "A"): _NO_SWITCH,
    ("Host/switch differences (RocePeerMismatch)", "A"): _NO_SWITCH,
    ("Storm state now", "E"): _NO_SWITCH,
    ("LLDP frames received and dropped", "B"): "no frame is dropped where none is sent",
    ("Pause transitions", "B"): _GLOBAL_PAUSE,
    ("Link-level and 802.3x global pause", "B"): _GLOBAL_PAUSE,
    ("802.3x global paused-time ratio", "A"): _GLOBAL_PAUSE,
    ("Storm condition: paused > 99 % and nothing moving", "B"): _NO_TX_STORM,
    ("Port info", "E"): _NO_GID_INDEX,
    ("RoCE v2 GID index", "B"): _NO_GID_INDEX,
    ("RDMA packets sent and received", "A"): _RXE_ONLY,
    ("RDMA packets sent and received", "B"): _RXE_ONLY,
    ("Links down, by node (top 10)", "A"): "every link of the node is up",
    ("Lossless discards, by node (top 10)", "A"):
        "the lossless priority discards nothing (PFC holds the traffic back)",
    ("Drifts, corrections and applies", "B"):
        "drift_policy report: roced corrects nothing, so no correction series exists",
    ("Optic: module temperature", "C"): "every simulated module's memory reads and decodes",
    ("NIC firmware: devlink health errors and recoveries", "C"):
        "no firmware error is played: every reporter is healthy",
    ("FEC: codewords corrected and uncorrectable per second", "C"):
        "mlx5 counts per lane only in FireCode mode; the simulated links run RS-FEC",
    ("FEC: codewords corrected and uncorrectable per second", "D"):
        "mlx5 counts per lane only in FireCode mode; the simulated links run RS-FEC",
}

# The storm panels' "more than 99 % of the time" over this test's [5s] windows: a scrape serves
# the watchdog's last reading, up to a poll (more on a loaded host) older than the scrape's
# timestamp, so a port paused all the time can read 97 % over 5 s. (Grafana's $__rate_interval
# is at least four scrape intervals, a minute at 15 s, where the same skew is well under 1 %.)
# Empty at 99 %, such a query must show the storm at 95 %, which no congestion here reaches.
STORM_LINE = "> 0.99"
STORM_LINE_SKEWED = "> 0.95"


class Run:
    def __init__(self, stack, api, numbers, storm, binaries, dashboard_path, injection):
        self.stack, self.api, self.n, self.storm_n, self.bin = stack, api, numbers, storm, binaries
        self.dashboard_path = dashboard_path
        self.injection = injection  # the document `roce-sim inject` plays
        # Unix times, once injected: when the test asked, when the storm and the episode began.
        self.injected_at = self.storm_begin = self.episode_begin = None
        self.t_in_episode = None  # where the episode's rates were shown

    def sel(self, metric, **labels):
        labels = {"job": "roced", "instance": self.stack.target, **labels}
        return metric + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}"

    def expect(self, what, value, expected, tolerance):
        shown = "nothing" if value is None else f"{value:.6g}"
        if not within(value, expected, tolerance):
            raise Failure(f"{what}: {shown}, expected {expected:.6g} ± {tolerance:.1%}")
        print(f"  ok  {what}: {shown} (expected {expected:.6g} ± {tolerance:.1%})")

    def expect_equal(self, what, value, expected):
        if value != expected:
            raise Failure(f"{what}: {value}, expected {expected}")
        print(f"  ok  {what}: {value}")

    def read_by(self, at=None):
        """{scrape timestamp: when roced had answered it at the latest}: Prometheus stamps a
        sample with the time its scrape began, and roced reads the counters before the scrape
        ends, scrape_duration_seconds later."""
        durations = self.api.samples(self.sel("scrape_duration_seconds"), LOOKBACK, at=at)
        return {t: t + d for t, d in durations}

    # --- ready: roced configured every port before anything is judged.
    def ready(self):
        up = self.sel("up")
        wait_for(f"{up} == 1", lambda: True if self.api.scalar(up) == 1 else None)
        in_sync = self.sel("roce_config_in_sync")

        def configured():
            values = self.api.values(in_sync)
            ports = {dict(k)["netdev"] for k in values}
            if ports != set(PORTS):
                raise Failure(f"roce_config_in_sync covers {sorted(ports)}")
            bad = sorted((dict(k)["netdev"], dict(k)["setting"]) for k, v in values.items()
                         if v != 1)
            if bad:
                raise Failure(f"not in sync: {bad}")
            return values

        values = wait_for("roce_config_in_sync == 1 for every setting of every port", configured)
        print(f"  ok  every port in sync ({len(values)} series of roce_config_in_sync)")
        for port in PORTS:
            self.expect_equal(f"roce_config_port_state{{{port},in-sync}}",
                              self.api.scalar(self.sel("roce_config_port_state", netdev=port,
                                                       state="in-sync")), 1.0)
        collectors = self.api.values(self.sel("roced_scrape_collector_success"))
        names = sorted(dict(k)["collector"] for k in collectors)
        self.expect_equal("collectors", names, ["ethtool", "gid", "link", "rdma"])
        failing = sorted(dict(k)["collector"] for k, v in collectors.items() if v != 1)
        self.expect_equal("failing collectors", failing, [])

    # --- (c) drift through an unmodified `dcb`, reported (not corrected), then put right.
    def drift(self):
        in_sync = self.sel("roce_config_in_sync", netdev=DRIFT_PORT, setting="pfc.priorities")
        self.expect_equal(f"{in_sync} before", self.api.scalar(in_sync), 1.0)
        self.stack.sim_exec("dcb", "pfc", "set", "dev", DRIFT_PORT, "prio-pfc", "3:off")
        wait_for(f"{in_sync} == 0", lambda: True if self.api.scalar(in_sync) == 0 else None)
        print(f"  ok  {in_sync} went to 0")
        drifted = self.sel("roce_config_port_state", netdev=DRIFT_PORT, state="drifted")
        wait_for(f"{drifted} == 1", lambda: True if self.api.scalar(drifted) == 1 else None)
        print(f"  ok  {drifted} == 1")
        drifts = self.sel("roce_config_drifts_total", netdev=DRIFT_PORT, setting="pfc.priorities")
        wait_for(f"{drifts} >= 1", lambda: True if (self.api.scalar(drifts) or 0) >= 1 else None)
        print(f"  ok  {drifts} >= 1")
        # Only the setting changed drifted; the others of the port stayed in sync.
        others = self.api.values(
            self.sel("roce_config_in_sync", netdev=DRIFT_PORT) +
            ' unless on(setting) roce_config_in_sync{setting="pfc.priorities"}')
        off = sorted(dict(k)["setting"] for k, v in others.items() if v != 1)
        if not others or off:
            raise Failure(f"other settings of {DRIFT_PORT}: {len(others)} series, not in sync: "
                          f"{off}")
        print(f"  ok  the other {len(others)} settings of {DRIFT_PORT} stayed in sync")
        # drift_policy report: roced said so and left the port alone.
        shown = self.stack.sim_exec("dcb", "pfc", "show", "dev", DRIFT_PORT).stdout
        if "3:off" not in shown.replace(" ", ""):
            raise Failure(f"under drift_policy report roced must not correct; dcb shows:\n{shown}")
        corrections = self.api.values(self.sel("roce_config_corrections_total",
                                               netdev=DRIFT_PORT))
        if any(v != 0 for v in corrections.values()):
            raise Failure(f"roce_config_corrections_total under report: {corrections}")
        print("  ok  not corrected (dcb still shows 3:off, no corrections counted)")

        run([self.bin.rocectl, "--sim", self.stack.node_dir, "apply", "--config",
             self.stack.config, "--direct", "--port", DRIFT_PORT])
        wait_for(f"{in_sync} == 1", lambda: True if self.api.scalar(in_sync) == 1 else None)
        print(f"  ok  {in_sync} back to 1 after rocectl apply --direct")
        back = self.sel("roce_config_port_state", netdev=DRIFT_PORT, state="in-sync")
        wait_for(f"{back} == 1", lambda: True if self.api.scalar(back) == 1 else None)
        print(f"  ok  {back} == 1")

    # --- each optic's diagnostics as roced decoded them from ethtool netlink, against what
    # `ethtool -m` decodes from the same module through the legacy ioctls.
    def optic(self):
        port = DRIFT_PORT
        rx = self.sel("roce_transceiver_rx_power_watts", netdev=port)
        wait_for(f"{rx} for 4 lanes",
                 lambda: True if len(self.api.values(rx)) == 4 else None)
        shown = self.stack.sim_exec("ethtool", "-m", port).stdout
        by_ethtool = {}
        for lane, mw in re.findall(r"Rcvr signal avg optical power\s*\(Channel (\d)\)\s*:\s*"
                                   r"([\d.]+) mW", shown):
            by_ethtool[lane] = float(mw) / 1000
        by_roced = {dict(k)["lane"]: v for k, v in self.api.values(rx).items()}
        self.expect_equal(f"{port} lanes (roced, ethtool -m)", sorted(by_roced),
                          sorted(by_ethtool))
        for lane, watts in sorted(by_ethtool.items()):
            # ethtool prints mW to four decimals: the module's own step of 0.1 uW, exactly.
            self.expect(f"{port} lane {lane} rx power (roced vs ethtool -m)", by_roced.get(lane),
                        watts, 1e-6)
        temperature = re.search(r"Module temperature\s*:\s*([-\d.]+) degrees C", shown)
        if not temperature:
            raise Failure(f"ethtool -m {port} shows no module temperature:\n{shown}")
        self.expect(f"{port} temperature (roced vs ethtool -m, which rounds to 0.01 C)",
                    self.api.scalar(self.sel("roce_transceiver_temperature_celsius", netdev=port)),
                    float(temperature.group(1)), 1e-3)
        beyond = self.api.values(self.sel("roce_transceiver_readings_beyond_threshold"))
        self.expect_equal("readings beyond a module's threshold on a healthy node",
                          sorted(v for v in beyond.values() if v != 0), [])

    # --- the storm and the episode, once Prometheus has seen roced at rest.
    def inject(self):
        up, in_sync = self.sel("up"), self.sel("roce_config_in_sync")

        def at_rest():
            scrapes = self.api.scalar(f"sum_over_time({up}[{LOOKBACK}])") or 0
            if scrapes < 2:
                raise Failure(f"{scrapes:g} successful scrapes so far")
            values = self.api.values(in_sync)
            ports = {dict(k)["netdev"] for k in values}
            bad = sorted((dict(k)["netdev"], dict(k)["setting"]) for k, v in values.items()
                         if v != 1)
            if ports != set(PORTS) or bad:
                raise Failure(f"roce_config_in_sync covers {sorted(ports)}, not in sync: {bad}")
            return scrapes

        scrapes = wait_for("two scrapes and every port in sync in Prometheus", at_rest)
        self.injected_at = time.time()
        run([self.bin.roce_sim, "inject", self.stack.node_dir, self.injection])
        # The injection's scenario time, which its events count from, as roce-sim logged it.
        with open(self.stack.sim.log) as f:
            found = re.findall(r"^t=([0-9.]+)s injected " + re.escape(self.injection) + ":",
                               f.read(), re.M)
        if len(found) != 1:
            raise Failure(f"roce-sim logged {len(found)} injections of {self.injection}:\n" +
                          self.stack.sim.tail())
        t = float(found[0])
        self.storm_begin = self.stack.sim_time_to_unix(t + self.storm_n.start_s)
        self.episode_begin = self.stack.sim_time_to_unix(t + EPISODE_AFTER_STORM_S)
        print(f"  ok  injected at scenario time {t:.3f} s, after {scrapes:g} scrapes: the storm "
              f"at once, the episode {EPISODE_AFTER_STORM_S:g} s later")

    # --- (a) and (b): the episode's counters, and nothing before it.
    def episode(self):
        n = self.n
        on = dict(netdev=n.port, priority=n.priority)
        pause = self.sel("roce_pfc_pause_duration_seconds_total", **on, direction="rx")
        ahead = 7.0  # samples wanted past the first paused one: a [5s] window wholly inside

        def started():
            samples = self.api.samples(pause, "5m")
            first = next((i for i, (_, v) in enumerate(samples) if v > 0), None)
            if first is None or samples[-1][0] < samples[first][0] + ahead:
                return None
            return samples, first

        samples, first = wait_for("the congestion episode in the pause counter", started,
                                  deadline=DEADLINE + EPISODE_AFTER_STORM_S + ahead)
        if first == 0:
            raise Failure(f"{pause}: no scrape saw it at 0 before the episode")
        t_zero, t_first = samples[first - 1][0], samples[first][0]
        # A zero only means "not begun yet" if PFC was already on: pauses count only then.
        pfc_on = self.api.scalar(self.sel("roce_config_in_sync", netdev=n.port,
                                          setting="pfc.priorities"), at=t_zero)
        if pfc_on != 1:
            raise Failure(f"roced had not configured PFC on {n.port} when the episode began "
                          f"(roce_config_in_sync {pfc_on} at the last unpaused scrape)")

        # Two scrapes whose counters were both read during the episode: the first paused one
        # (read after it began) and the last one followed by a scrape with more pause (read
        # before it ended) that shows more pause itself. Between two reads inside the episode,
        # counters of one ethtool dump grow in the scenario's proportions, however late either
        # read came.
        t_a, v_a = samples[first]
        inside = [(t, v) for i, (t, v) in enumerate(samples[first + 1:-1], first + 1)
                  if v > v_a and samples[i + 1][1] > v]
        if not inside:
            raise Failure(f"{pause}: no scrape after {t_a:.3f} both grew and was followed by "
                          f"more pause: {samples[first:]}")
        t_b = inside[-1][0]
        print(f"  episode first seen at {t_first:.3f}; counters compared between the scrapes "
              f"at {t_a:.3f} and {t_b:.3f}")

        def growth(metric, **labels):
            got = dict(self.api.samples(self.sel(metric, **labels), LOOKBACK, at=t_b))
            if t_a not in got or t_b not in got:
                raise Failure(f"{metric} {labels}: no sample at {t_a:.3f} or {t_b:.3f}")
            return got[t_b] - got[t_a]

        paused = growth("roce_pfc_pause_duration_seconds_total", **on, direction="rx")
        frames = growth("roce_pfc_pause_frames_total", **on, direction="rx")
        self.expect("pause frames per paused second (one ethtool read)", frames / paused,
                    2 / PAUSE_EPISODE_S, SAME_READ_TOLERANCE)
        self.expect("pause transitions per pause frame",
                    growth("roce_pfc_pause_transitions_total", **on, direction="rx") / frames,
                    0.5, SAME_READ_TOLERANCE)
        self.expect("link pause frames per pause frame of the priority",
                    growth("roce_link_pause_frames_total", netdev=n.port, direction="rx") / frames,
                    1.0, SAME_READ_TOLERANCE)
        self.expect("bytes tx per paused second: sent while not paused",
                    growth("roce_priority_bytes_total", **on, direction="tx") / paused,
                    n.tx_bps / 8 * (1 - n.pause_ratio) / n.pause_ratio, SAME_READ_TOLERANCE)
        rx_pps = n.rx_bps / 8 / n.packet_size
        packets = growth("roce_priority_packets_total", **on, direction="rx")
        self.expect("packets rx per paused second: offered, not paused", packets / paused,
                    rx_pps / n.pause_ratio, SAME_READ_TOLERANCE)
        self.expect("per-priority ECN marked per packet rx = ecn_mark_ratio",
                    growth("roce_priority_ecn_marked_packets_total", **on, direction="rx") /
                    packets, n.ecn_mark_ratio, SAME_READ_TOLERANCE)

        # The rates Prometheus computes over [5s], for the record: each end of the window is
        # read some time after its timestamp, so they are near the scenario's, not exactly it.
        at = t_first + 1.5 + WINDOW
        self.t_in_episode = at

        def rate(metric, **labels):
            return self.api.scalar(f"rate({self.sel(metric, **labels)}[{WINDOW:g}s])", at=at)

        for what, value, scenario in [
                ("pause duration rx", rate("roce_pfc_pause_duration_seconds_total", **on,
                                           direction="rx"), n.pause_ratio),
                ("pause frames rx", rate("roce_pfc_pause_frames_total", **on, direction="rx"),
                 2 * n.pause_ratio / PAUSE_EPISODE_S),
                ("bytes tx", rate("roce_priority_bytes_total", **on, direction="tx"),
                 n.tx_bps / 8 * (1 - n.pause_ratio)),
                ("packets rx", rate("roce_priority_packets_total", **on, direction="rx"), rx_pps),
                ("ECN marked", rate("roce_ecn_marked_packets_total", netdev=n.port),
                 n.ecn_mark_ratio * rx_pps),
                ("CNPs handled", rate("roce_cnp_handled_total", netdev=n.port), n.cnp_rate),
                ("CNPs sent", rate("roce_cnp_sent_total", netdev=n.port), n.cnp_rate)]:
            shown = "nothing" if value is None else f"{value:.6g}"
            print(f"  --  rate({what})[{WINDOW:g}s] at {at:.3f}: {shown} (scenario: "
                  f"{scenario:.6g}; not checked, the totals are)")
        self.expect_equal("rate(CNPs ignored) (DCQCN reaction point on)",
                          rate("roce_cnp_ignored_total", netdev=n.port), 0.0)

        # (b) ECN marks: zero on every scrape answered before the episode began (two at least:
        # Prometheus had scraped twice before the injection), never falling in it.
        ecn = self.api.samples(self.sel("roce_ecn_marked_packets_total", netdev=n.port), "5m",
                               at=t_b)
        read_by = self.read_by(at=t_b)
        before = [v for t, v in ecn if read_by.get(t, t + SCRAPE_INTERVAL_S) < self.episode_begin]
        if len(before) < 2 or any(v != 0 for v in before):
            raise Failure(f"ECN marks before the episode: {before} (want >= 2 scrapes, all 0)")
        print(f"  ok  ECN marked 0 on all {len(before)} scrapes before the episode")
        during = [v for t, v in ecn if t >= t_first]
        if not during or during != sorted(during) or during[-1] == 0:
            raise Failure(f"ECN marks during the episode do not rise: {during}")
        print(f"  ok  ECN marked rises through the episode ({len(during)} scrapes, never falling)")

    # --- (d) the dashboard's queries.
    def dashboard(self):
        board = dashboard.load(self.dashboard_path)
        at = self.t_in_episode or time.time()
        # What a user looking at this node would pick: the congested port, the drifted one and
        # the stormed one (a multi-value variable, which Grafana writes as a regex alternation),
        # priority 3.
        chosen = {"job": ["roced"],
                  "instance": [self.stack.target],
                  "netdev": [DRIFT_PORT, self.n.port, self.storm_n.port],
                  "priority": [self.n.priority]}
        values = {name: picks[0] if len(picks) == 1 else "(" + "|".join(picks) + ")"
                  for name, picks in chosen.items()}
        values.update({"__rate_interval": f"{WINDOW:g}s", "__interval": "1s",
                       "__interval_ms": "1000", "__range": "1m", "__range_s": "60"})
        for name, kind, query in dashboard.variables(board):
            if kind == "datasource":
                continue
            if name not in values:
                raise Failure(f"dashboard variable ${name} ({kind}) has no test value")
            if kind != "query":
                continue
            promql, label = dashboard.variable_promql(query)
            if promql is None:
                raise Failure(f"variable ${name}: cannot read query {query!r}")
            result = self.api.query(dashboard.substitute(promql, values), at=at)
            offered = {r["metric"].get(label) for r in result} if label else {"(result)"}
            offered.discard(None)
            if not offered or (label and not set(chosen[name]) <= offered):
                raise Failure(f"variable ${name} ({query!r}) offers {sorted(offered)}, "
                              f"not {chosen[name]}")
            print(f"  ok  variable ${name} offers {sorted(offered)}")

        # Range queries as Grafana runs them, over the 30 s up to the middle of the episode.
        problems, empty, checked = [], set(), 0
        for title, ref, expr in dashboard.queries(board):
            promql = dashboard.substitute(expr, values)
            checked += 1
            try:
                result = self.api.query_range(promql, at - 30, at)
            except Failure as e:
                problems.append(f"{title!r} {ref}: {e}")
                continue
            skewed = None
            if not result and STORM_LINE in promql and (title, ref) not in DASHBOARD_MAY_BE_EMPTY:
                skewed = self.api.query_range(promql.replace(STORM_LINE, STORM_LINE_SKEWED),
                                              at - 30, at)
            if result:
                print(f"  ok  {title!r} {ref}: {len(result)} series")
            elif skewed:
                print(f"  ok  {title!r} {ref}: {len(skewed)} series at {STORM_LINE_SKEWED}, "
                      f"none at {STORM_LINE} (the [{WINDOW:g}s] window and the readings' age)")
            elif (title, ref) in DASHBOARD_MAY_BE_EMPTY:
                empty.add((title, ref))
                print(f"  --  {title!r} {ref}: empty, allowed: "
                      f"{DASHBOARD_MAY_BE_EMPTY[(title, ref)]}")
            else:
                problems.append(f"{title!r} {ref}: no data: {promql}")
        if checked == 0:
            problems.append(f"{self.dashboard_path}: no Prometheus queries found")
        for title, ref in sorted(set(DASHBOARD_MAY_BE_EMPTY) - empty):
            print(f"  note: {title!r} {ref} is allowed to be empty but had data (or is gone)")
        if problems:
            raise Failure(f"{len(problems)} of {checked} dashboard queries:\n    " +
                          "\n    ".join(problems))
        print(f"  ok  {checked - len(empty)} of {checked} queries returned data, "
              f"{len(empty)} allowed empty")

    # --- after the episode: back to zero, exact totals, and nothing on the other ports.
    def totals(self):
        n = self.n
        on = dict(netdev=n.port, priority=n.priority)
        pause = self.sel("roce_pfc_pause_duration_seconds_total", **on, direction="rx")

        # Everything the episode drives stops with it. (Polled, not checked once: the RDMA
        # counter files follow the sim's model at 10 Hz, so the ECN and CNP counters may settle
        # one scrape after the pause counters.)
        stopping = {"pause duration": pause,
                    "pause frames": self.sel("roce_pfc_pause_frames_total", **on, direction="rx"),
                    "ECN marked": self.sel("roce_ecn_marked_packets_total", netdev=n.port),
                    "CNPs handled": self.sel("roce_cnp_handled_total", netdev=n.port),
                    "CNPs sent": self.sel("roce_cnp_sent_total", netdev=n.port)}

        def ended():
            samples = self.api.samples(pause, f"{2 * WINDOW:g}s")
            last, paused = samples[-1]
            if paused == 0:
                raise Failure("no pause at all yet")
            rates = {what: self.api.scalar(f"rate({promql}[{WINDOW:g}s])", at=last)
                     for what, promql in stopping.items()}
            if any(r != 0 for r in rates.values()):
                raise Failure(f"rates over [{WINDOW:g}s] at {last:.3f}: {rates}")
            return last

        ended_at = wait_for("every rate of the episode back to 0", ended,
                            deadline=DEADLINE + n.duration_s)
        print(f"  ok  after the episode, rate() 0 at {ended_at:.3f} for {', '.join(stopping)}")

        def value(metric, **labels):
            return self.api.scalar(self.sel(metric, **labels), at=ended_at)

        paused_s = n.pause_ratio * n.duration_s
        self.expect("pause duration total = pause_ratio x episode",
                    value("roce_pfc_pause_duration_seconds_total", **on, direction="rx"),
                    paused_s, TOTAL_TOLERANCE)
        self.expect("pause frames total", value("roce_pfc_pause_frames_total", **on,
                                                direction="rx"),
                    2 * paused_s / PAUSE_EPISODE_S, TOTAL_TOLERANCE)
        self.expect("pause transitions total", value("roce_pfc_pause_transitions_total", **on,
                                                     direction="rx"),
                    paused_s / PAUSE_EPISODE_S, TOTAL_TOLERANCE)
        marked = n.ecn_mark_ratio * n.rx_bps / 8 / n.packet_size * n.duration_s
        self.expect("ECN marked total", value("roce_ecn_marked_packets_total", netdev=n.port),
                    marked, TOTAL_TOLERANCE)
        cnps = n.cnp_rate * n.duration_s
        self.expect("CNPs handled total", value("roce_cnp_handled_total", netdev=n.port), cnps,
                    TOTAL_TOLERANCE)
        self.expect("CNPs sent total", value("roce_cnp_sent_total", netdev=n.port), cnps,
                    TOTAL_TOLERANCE)
        # The storm (alert only, PFC on all along) paused its priority for exactly its length.
        storm = self.storm_n
        storm_pause = self.sel("roce_pfc_pause_duration_seconds_total", netdev=storm.port,
                               priority=storm.priority, direction=storm.direction)
        self.expect(f"storm's pause duration total ({storm.port} {storm.direction} "
                    f"{storm.priority}) = its duration", self.api.scalar(storm_pause, at=ended_at),
                    storm.duration_s, TOTAL_TOLERANCE)

        # Nowhere else: every other pause series and every other port's marks stayed 0 all along.
        for what, promql in [
            ("pause duration, other ports/priorities/directions",
             f"max_over_time({self.sel('roce_pfc_pause_duration_seconds_total')}[5m]) unless "
             f"on(netdev, priority, direction) ({pause} or {storm_pause})"),
            ("ECN marked, other ports",
             f"max_over_time({self.sel('roce_ecn_marked_packets_total')}[5m]) unless "
             f'on(netdev) roce_ecn_marked_packets_total{{netdev="{n.port}"}}')]:
            got = self.api.values(promql, at=ended_at)
            nonzero = {tuple(sorted(dict(k).items())): v for k, v in got.items() if v != 0}
            if not got or nonzero:
                raise Failure(f"{what}: {len(got)} series, non-zero: {nonzero}")
            print(f"  ok  {what}: all {len(got)} series stayed 0")

    # --- roced's storm watchdog on the scenario's storm, and nothing anywhere else.
    def storm(self):
        s = self.storm_n
        on = dict(netdev=s.port, priority=s.priority, direction=s.direction)
        where = f"{s.port} priority {s.priority} {s.direction}"
        begin = self.storm_begin
        end = begin + s.duration_s
        # When roced acts, at the earliest: detection_time after the onset, restoration_time
        # after the last pause, each at a poll (later on a loaded host, by however much).
        earliest_detection = begin + WATCHDOG_DETECTION_S - STORM_SLACK
        earliest_restoration = end + WATCHDOG_RESTORATION_S - STORM_SLACK

        def after_restoration():
            active = self.api.samples(self.sel("roce_pfc_storm_active", **on), LOOKBACK)
            restored = self.api.scalar(self.sel("roce_pfc_storm_restorations_total", **on))
            rise = next((i for i, (_, v) in enumerate(active) if v != 0), None)
            fallen = rise is not None and any(v == 0 for _, v in active[rise:])
            return True if fallen and restored else None

        wait_for(f"a scrape after the storm on {where} was restored", after_restoration,
                 deadline=DEADLINE + s.duration_s)
        now = time.time()
        read_by = self.read_by(at=now)

        def answered(t):  # when roced had answered the scrape stamped t, at the latest
            return read_by.get(t, t + SCRAPE_INTERVAL_S)  # Prometheus gives up at the timeout

        def samples(metric, **labels):
            got = self.api.samples(self.sel(metric, **on, **labels), LOOKBACK, at=now)
            if not got:
                raise Failure(f"{metric} {where}: no samples")
            return got

        def went_to_one(metric, earliest):
            """A counter (or the gauge's rise): 0 on every scrape answered before the storm was
            injected (two at least: Prometheus had them then), non-zero from a scrape on that
            roced answered no earlier than `earliest`. Returns the samples and that scrape's
            time."""
            got = samples(metric)
            before = [v for t, v in got if answered(t) < self.injected_at]
            if len(before) < 2 or any(v != 0 for v in before):
                raise Failure(f"{metric} {where} before the storm: {before} (want >= 2 scrapes, "
                              f"all 0)")
            first = next((t for t, v in got if v != 0), None)
            if first is None:
                raise Failure(f"{metric} {where}: never left 0: {got[-3:]}")
            if answered(first) < earliest:
                raise Failure(f"{metric} {where}: non-zero in the scrape at "
                              f"{first - begin:+.3f} s from the storm's start, answered by "
                              f"{answered(first) - begin:+.3f} s, before roced may act "
                              f"({earliest - begin:+.3f} s)")
            return got, first

        firsts = {}
        for metric, earliest in (("roce_pfc_storm_detections_total", earliest_detection),
                                 ("roce_pfc_storm_restorations_total", earliest_restoration)):
            got, first = went_to_one(metric, earliest)
            values = [v for _, v in got]
            if values[-1] != 1 or values != sorted(values) or set(values) != {0, 1}:
                raise Failure(f"{metric} {where}: want 0 ... 1 and 1 at the end, got {values}")
            firsts[metric] = first
            print(f"  ok  {metric} {where}: 0 on {values.count(0)} scrapes, then 1 from "
                  f"{first - begin:+.2f} s after the storm began (it lasted {s.duration_s:g} s)")
        if firsts["roce_pfc_storm_restorations_total"] <= \
                firsts["roce_pfc_storm_detections_total"]:
            raise Failure(f"{where}: restored in a scrape no later than the detection's: {firsts}")

        # The gauge: 0 before, then a single run of 1 from detection to restoration (through the
        # storm's end), then 0.
        active, rise = went_to_one("roce_pfc_storm_active", earliest_detection)
        runs = [v for i, (_, v) in enumerate(active) if i == 0 or v != active[i - 1][1]]
        fall = next((t for t, v in active if t > rise and v == 0), None)
        if runs != [0, 1, 0] or answered(fall) < earliest_restoration:
            raise Failure(f"roce_pfc_storm_active {where}: want 0, 1 from detection through the "
                          f"storm's end, 0 from restoration (answered no earlier than "
                          f"{earliest_restoration - begin:+.2f} s from its start): runs {runs}, "
                          f"back to 0 at {None if fall is None else round(fall - begin, 2)}")
        print(f"  ok  roce_pfc_storm_active {where}: 0 on every scrape before, 1 on all "
              f"{sum(v for _, v in active):g} from {rise - begin:+.2f} s (detection) through the "
              f"storm's end to {fall - begin:+.2f} s (restoration), 0 on all "
              f"{sum(1 for t, _ in active if t >= fall)} after")

        # Detection latency: one observation, never less than detection_time (how much more
        # depends on how late the polls ran; watchdog.StormDetector* bound it on simulated time).
        latency = "roce_pfc_storm_detection_latency_seconds"
        count = self.api.scalar(self.sel(f"{latency}_count", **on), at=now)
        self.expect_equal(f"{latency}_count {where}", count, 1.0)
        total = self.api.scalar(self.sel(f"{latency}_sum", **on), at=now)
        if total is None or total < WATCHDOG_DETECTION_S:
            raise Failure(f"{latency}_sum {where}: {total}, expected at least "
                          f"{WATCHDOG_DETECTION_S:g} s (detection_time)")
        print(f"  ok  {latency}_sum {where}: {total:.4f} s (at least {WATCHDOG_DETECTION_S:g})")
        buckets = self.api.values(self.sel(f"{latency}_bucket", **on), at=now)
        wrong = {dict(k)["le"]: v for k, v in buckets.items()
                 if v != (1 if float(dict(k)["le"]) >= total else 0)}
        if len(buckets) < 2 or wrong:
            raise Failure(f"{latency}_bucket {where}: {len(buckets)} buckets, not 1 for every le "
                          f">= {total:.4f} and 0 below: {wrong}")
        print(f"  ok  {latency}_bucket {where}: 0 below {total:.4f} s, 1 from there "
              f"({len(buckets)} buckets)")

        # Alert only: no action, no remediation, no hold, no escalation, anywhere, ever; and no
        # detection on any other port or direction (lan3's congestion episode is no storm).
        storm_series = self.sel("roce_pfc_storm_active", **on)
        for metric, others_only in (("roce_pfc_storm_detections_total", True),
                                    ("roce_pfc_storm_active", True),
                                    (f"{latency}_count", True),
                                    ("roce_pfc_storm_remediation_active", False),
                                    ("roce_pfc_storm_held", False),
                                    ("roce_pfc_storm_actions_total", False),
                                    ("roce_pfc_storm_escalations_total", False)):
            promql = f"max_over_time({self.sel(metric)}[{LOOKBACK}])"
            if others_only:
                promql += f" unless on(netdev, priority, direction) {storm_series}"
            got = self.api.values(promql, at=now)
            nonzero = {tuple(sorted(dict(k).items())): v for k, v in got.items() if v != 0}
            if not got or nonzero:
                raise Failure(f"{metric}{', other ports/directions' if others_only else ''}: "
                              f"{len(got)} series, non-zero: {nonzero}")
            print(f"  ok  {metric}{' elsewhere' if others_only else ''}: all {len(got)} series "
                  f"stayed 0")

        # The watchdog's own cadence.
        interval = self.api.scalar(self.sel("roced_watchdog_poll_interval_seconds"), at=now)
        self.expect_equal("roced_watchdog_poll_interval_seconds", interval, WATCHDOG_POLL_S)
        # The poll budget never polls faster than configured; it may poll slower when a busy
        # machine makes a round cost more.
        effective = self.api.scalar(
            self.sel("roced_watchdog_effective_poll_interval_seconds"), at=now)
        if effective is None or effective < WATCHDOG_POLL_S:
            raise Failure(f"roced_watchdog_effective_poll_interval_seconds: {effective}, expected "
                          f"at least {WATCHDOG_POLL_S:g}")
        print(f"  ok  roced_watchdog_effective_poll_interval_seconds: {effective:g} (at least "
              f"{WATCHDOG_POLL_S:g})")
        cpu = self.api.scalar(f"rate({self.sel('roced_watchdog_read_cpu_seconds_total')}[{LOOKBACK}])",
                              at=now)
        if cpu is None or not 0 < cpu < 0.05:
            raise Failure(f"roced_watchdog_read_cpu_seconds_total: {cpu} of a core, not within "
                          f"the 5 % budget")
        print(f"  ok  watchdog reads: {cpu:.2%} of a core")
        # Rounds begin at least an interval apart, one after another: between the read of the
        # first scrape (after its timestamp) and that of the last (before it was answered) there
        # is room for no more than one round per interval, plus the ones under way at each end.
        # How few there are depends on the machine.
        polls = self.api.samples(self.sel("roced_watchdog_polls_total"), LOOKBACK, at=now)
        (t0, p0), (t1, p1) = polls[0], polls[-1]
        most = (answered(t1) - t0) / WATCHDOG_POLL_S + 2
        late = self.api.scalar(self.sel("roced_watchdog_late_polls_total"), at=now)
        if not p0 < p1 <= p0 + most or late is None or late > p1:
            raise Failure(f"watchdog rounds: {p1 - p0:g} over {t1 - t0:.0f} s, expected more "
                          f"than 0 and at most {most:.0f}; {late} late")
        print(f"  ok  watchdog rounds: {p1 - p0:g} over {t1 - t0:.0f} s, "
              f"{(p1 - p0) / (t1 - t0) * WATCHDOG_POLL_S:.1%} of 1 / poll_interval "
              f"({late:g} late in all)")

        # The alert rules on roced's real series. RocePfcStormPersistent (for: 5m) was pending
        # through the storm, for exactly its labels, and never fired; no other storm alert of
        # roced's watchdog was even pending.
        alerts = self.api.all_samples(
            'ALERTS{alertname=~"' + "|".join(STORM_ALERTS) + '"}', LOOKBACK, at=now)
        expected = {"__name__": "ALERTS", "alertname": "RocePfcStormPersistent",
                    "alertstate": "pending", "severity": "warning", "job": "roced",
                    "instance": self.stack.target, **on}
        if [dict(k) for k in alerts] != [expected]:
            raise Failure(f"storm alerts: want only {expected}, got "
                          f"{[dict(k) for k in alerts]}")
        # An evaluation at time e sees only samples stamped e or earlier, so it was pending
        # from the gauge's rise on, never before. (When the last pending evaluation came depends
        # on when Prometheus had the fall's scrape, which a busy machine delays.)
        pending = next(iter(alerts.values()))
        first, last = pending[0][0], pending[-1][0]
        if first < rise:
            raise Failure(f"RocePfcStormPersistent pending {first - begin:+.2f} s to "
                          f"{last - begin:+.2f} s from the storm's start, before the gauge's "
                          f"rise at {rise - begin:+.2f} s")
        print(f"  ok  RocePfcStormPersistent pending (never firing) {first - begin:+.2f} s to "
              f"{last - begin:+.2f} s from the storm's start; no other storm alert")
        rules = [rule for group in self.api.rules() for rule in group["rules"]]
        bad = [(rule["name"], rule.get("lastError", "")) for rule in rules
               if rule.get("health") != "ok"]
        if not rules or bad:
            raise Failure(f"{len(rules)} alert rules, not healthy: {bad}")
        print(f"  ok  all {len(rules)} alert rules evaluate without error on roced's series")
        # Each alert's runbook_url, as Prometheus loaded it, with this target for the instance:
        # the roced that raised the alert serves the alert's own section there. (Recording rules
        # have none.)
        rules = [rule for rule in rules if rule.get("type") == "alerting"]
        linked = 0
        for rule in rules:
            url = rule.get("annotations", {}).get("runbook_url")
            if url is None:
                continue
            # No roced_runbook_base external label here: the template's else branch, the node's.
            url = re.sub(r"\{\{ with \$externalLabels\.roced_runbook_base \}\}\{\{ \. \}\}"
                         r"\{\{ else \}\}(.*?)\{\{ end \}\}", r"\1", url)
            url = url.replace("{{ $labels.instance }}", self.stack.target)
            status, body = http_get(url)
            if status != 200 or not body.startswith(f"## {rule['name']}\n"):
                raise Failure(f"{rule['name']}: runbook_url {url} answered {status}: {body[:80]!r}")
            linked += 1
        if linked < len(rules) - 1:
            raise Failure(f"only {linked} of {len(rules)} alert rules link a runbook section")
        print(f"  ok  {linked} alert rules link their runbook section on the alerting roced")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("roce-sim", "roced", "rocectl", "prometheus", "scenario", "dashboard", "rules"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    binaries = argparse.Namespace(roce_sim=args.roce_sim, roced=args.roced, rocectl=args.rocectl,
                                  prometheus=args.prometheus)
    failures = []
    with Stack(binaries) as stack:
        try:
            played = os.path.join(stack.root, "telemetry-traffic.yaml")
            injection = os.path.join(stack.root, "telemetry-events.yaml")
            scenario_numbers.for_injection(args.scenario, played, injection, STORM_EVENT,
                                           EPISODE_AFTER_STORM_S)
            numbers, storm = scenario_numbers.read(args.scenario), scenario_numbers.storm(injection)
            stack.start_sim(played)
            stack.write_config(CONFIG)
            stack.apply_with_rocectl()
            stack.start_roced()
            stack.start_prometheus(rule_files=[args.rules])
        except Failure as e:
            stack.print_logs()
            print(f"FAIL start-up: {e}", file=sys.stderr)
            return 1
        test = Run(stack, PrometheusApi(stack.prometheus_port), numbers, storm, binaries,
                   args.dashboard, injection)
        parts = [("ready", test.ready), ("drift", test.drift), ("optic", test.optic),
                 ("inject", test.inject),
                 ("episode", test.episode), ("dashboard", test.dashboard),
                 ("totals", test.totals), ("storm", test.storm)]
        for name, part in parts:
            print(f"[{name}]", flush=True)
            try:
                part()
            except Failure as e:
                failures.append(name)
                print(f"FAIL {name}: {e}", file=sys.stderr, flush=True)
                if name in ("ready", "inject"):
                    break  # nothing else can be judged
            sys.stdout.flush()
        if failures:
            stack.print_logs()
    print(f"{'FAILED: ' + ', '.join(failures) if failures else 'all parts passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
