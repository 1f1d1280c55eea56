#!/usr/bin/env python3
"""roced's exporter scraped by a real Prometheus, end to end.

roce-sim plays sim/scenarios/telemetry.yaml (steady traffic, then one congestion episode on lan3
priority 3 with known pause_ratio, ecn_mark_ratio and cnp_rate), `rocectl apply --direct` sets
the lossless profile (under drift_policy report roced itself writes nothing, not even the first
configuration), roced watches the node and serves /metrics, and Prometheus scrapes it every
second. The test then asks Prometheus what the scenario implies:

  ready     every port configured and in sync, every collector succeeding
  drift     `dcb pfc set dev lan2 prio-pfc 3:off` makes roce_config_in_sync{lan2,pfc.priorities}
            go 1 -> 0 (roced only reports it), `rocectl apply --direct` brings it back to 1
  episode   rate(...[5s]) inside the episode matches the scenario within RATE_TOLERANCE, counters
            read in one ethtool dump agree within SAME_READ_TOLERANCE, ECN marks are flat before
  dashboard every query of packaging/grafana/roced.json returns data (named exceptions only)
  totals    after the episode: rates back to 0, totals exact (they are simulated time, not
            scrape timing), nothing anywhere else

Rates are compared within RATE_TOLERANCE (10 %) because Prometheus stamps a sample with the
time the scrape started while roced reads the counters a little later; a 5 s window spans about
4 s between its first and last sample, so 10 % allows 0.4 s of difference in that delay between
two scrapes (a loaded 2-core VM), plus the sim's 100 ms refresh of the RDMA counter files
(2.5 % per end). Totals and ratios of counters from one read do not depend on timing.
"""
import argparse
import sys
import time

import dashboard
import scenario_numbers
from harness import DEADLINE, Failure, Stack, run, wait_for
from prom_api import PrometheusApi, within

RATE_TOLERANCE = 0.10
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
"""

# Dashboard queries (panel title, refId) that legitimately return nothing on this healthy
# node, with why. Any other empty query fails the test.
_GLOBAL_PAUSE = "mlx5 has global (802.3x) pause counters only while PFC is off; PFC is on"
_NO_STORM = "no storm here: the episode pauses 50 % of the time and traffic still moves"
_NO_GID_INDEX = "roce_rocev2_gid_index_expected exists only when roce.gid_index is configured"
DASHBOARD_MAY_BE_EMPTY = {
    ("Pause transitions", "B"): _GLOBAL_PAUSE,
    ("Link-level and 802.3x global pause", "B"): _GLOBAL_PAUSE,
    ("802.3x global paused-time ratio", "A"): _GLOBAL_PAUSE,
    ("Storm condition: paused > 99 % and nothing moving", "A"): _NO_STORM,
    ("Storm condition: paused > 99 % and nothing moving", "B"): _NO_STORM,
    ("Paused more than 99 % of the time", "A"): _NO_STORM,
    ("Port info", "E"): _NO_GID_INDEX,
    ("RoCE v2 GID index", "B"): _NO_GID_INDEX,
    ("Drifts, corrections and applies", "B"):
        "drift_policy report: roced corrects nothing, so no correction series exists",
}


class Run:
    def __init__(self, stack, api, numbers, binaries, dashboard_path):
        self.stack, self.api, self.n, self.bin = stack, api, numbers, binaries
        self.dashboard_path = dashboard_path
        self.t_in_episode = None  # where the episode's rates were checked

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
        self.expect_equal("collectors", names, ["config", "ethtool", "gid", "link", "rdma"])
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

    # --- (a) and (b): the episode's rates, and nothing before it.
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
                                  deadline=DEADLINE + n.start_s + ahead)
        if first == 0:
            raise Failure(f"{pause}: no scrape saw it at 0 before the episode")
        t_zero, t_first = samples[first - 1][0], samples[first][0]
        # A zero only means "not begun yet" if PFC was already on: pauses count only then.
        pfc_on = self.api.scalar(self.sel("roce_config_in_sync", netdev=n.port,
                                          setting="pfc.priorities"), at=t_zero)
        if pfc_on != 1:
            raise Failure(f"roced had not configured PFC on {n.port} when the episode began "
                          f"(roce_config_in_sync {pfc_on} at the last unpaused scrape)")

        # A [5s] window that starts after the first paused scrape holds only paused time.
        at = t_first + 1.5 + WINDOW
        window = [v for t, v in samples if at - WINDOW < t <= at]
        after = [v for t, v in samples if t > at]
        if len(window) < 2 or not after or not all(b > a for a, b in zip(window, window[1:] +
                                                                           after[:1])):
            raise Failure(f"{pause}: the episode is not in progress through the window ending "
                          f"{at:.3f}: window {window}, next {after[:1]}")
        self.t_in_episode = at
        print(f"  episode first seen at {t_first:.3f}; rates at {at:.3f} over [{WINDOW:g}s] "
              f"({len(window)} samples)")

        def rate(metric, **labels):
            return self.api.scalar(f"rate({self.sel(metric, **labels)}[{WINDOW:g}s])", at=at)

        r_pause = rate("roce_pfc_pause_duration_seconds_total", **on, direction="rx")
        self.expect("rate(pause duration rx) = pause_ratio", r_pause, n.pause_ratio,
                    RATE_TOLERANCE)
        frames_per_s = 2 * n.pause_ratio / PAUSE_EPISODE_S
        r_frames = rate("roce_pfc_pause_frames_total", **on, direction="rx")
        self.expect("rate(pause frames rx) = 2 per 20 us episode", r_frames, frames_per_s,
                    RATE_TOLERANCE)
        self.expect("pause frames per paused second (one ethtool read)", r_frames / r_pause,
                    2 / PAUSE_EPISODE_S, SAME_READ_TOLERANCE)
        self.expect("rate(pause transitions rx) = frames / 2",
                    rate("roce_pfc_pause_transitions_total", **on, direction="rx"), r_frames / 2,
                    SAME_READ_TOLERANCE)
        self.expect("rate(link pause frames rx) = the priority's",
                    rate("roce_link_pause_frames_total", netdev=n.port, direction="rx"), r_frames,
                    SAME_READ_TOLERANCE)
        self.expect("rate(bytes tx) = (1 - pause_ratio) of offered",
                    rate("roce_priority_bytes_total", **on, direction="tx"),
                    n.tx_bps / 8 * (1 - n.pause_ratio), RATE_TOLERANCE)
        rx_pps = n.rx_bps / 8 / n.packet_size
        self.expect("rate(packets rx) = offered", rate("roce_priority_packets_total", **on,
                                                       direction="rx"), rx_pps, RATE_TOLERANCE)
        self.expect("rate(ECN marked) = ecn_mark_ratio of rx packets",
                    rate("roce_ecn_marked_packets_total", netdev=n.port),
                    n.ecn_mark_ratio * rx_pps, RATE_TOLERANCE)
        self.expect("rate(per-priority ECN marked rx)",
                    rate("roce_priority_ecn_marked_packets_total", **on, direction="rx"),
                    n.ecn_mark_ratio * rx_pps, RATE_TOLERANCE)
        self.expect("rate(CNPs handled) = cnp_rate", rate("roce_cnp_handled_total",
                                                          netdev=n.port), n.cnp_rate,
                    RATE_TOLERANCE)
        self.expect("rate(CNPs sent) = cnp_rate", rate("roce_cnp_sent_total", netdev=n.port),
                    n.cnp_rate, RATE_TOLERANCE)
        self.expect_equal("rate(CNPs ignored) (DCQCN reaction point on)",
                          rate("roce_cnp_ignored_total", netdev=n.port), 0.0)

        # (b) ECN marks: flat at zero on every scrape before the episode, rising in it.
        ecn = self.api.samples(self.sel("roce_ecn_marked_packets_total", netdev=n.port), "5m",
                               at=at)
        before = [v for t, v in ecn if t < t_zero]  # t_zero's scrape may straddle the start
        if len(before) < 3 or any(v != 0 for v in before):
            raise Failure(f"ECN marks before the episode: {before} (want >= 3 scrapes, all 0)")
        print(f"  ok  ECN marked 0 on all {len(before)} scrapes before the episode")
        during = [v for t, v in ecn if t >= t_first]
        if not during or not all(b > a for a, b in zip(during, during[1:])):
            raise Failure(f"ECN marks during the episode do not rise on every scrape: {during}")
        print(f"  ok  ECN marked rises on every scrape of the episode ({len(during)})")

    # --- (d) the dashboard's queries.
    def dashboard(self):
        board = dashboard.load(self.dashboard_path)
        at = self.t_in_episode or time.time()
        # What a user looking at this node would pick: the congested port and the drifted one
        # (a multi-value variable, which Grafana writes as a regex alternation), priority 3.
        chosen = {"instance": [self.stack.target], "netdev": [DRIFT_PORT, self.n.port],
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
            if result:
                print(f"  ok  {title!r} {ref}: {len(result)} series")
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

        # Nowhere else: every other pause series and every other port's marks stayed 0 all along.
        for what, promql in [
            ("pause duration, other ports/priorities/directions",
             f"max_over_time({self.sel('roce_pfc_pause_duration_seconds_total')}[5m]) unless "
             f"on(netdev, priority, direction) {pause}"),
            ("ECN marked, other ports",
             f"max_over_time({self.sel('roce_ecn_marked_packets_total')}[5m]) unless "
             f'on(netdev) roce_ecn_marked_packets_total{{netdev="{n.port}"}}')]:
            got = self.api.values(promql, at=ended_at)
            nonzero = {tuple(sorted(dict(k).items())): v for k, v in got.items() if v != 0}
            if not got or nonzero:
                raise Failure(f"{what}: {len(got)} series, non-zero: {nonzero}")
            print(f"  ok  {what}: all {len(got)} series stayed 0")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("roce-sim", "roced", "rocectl", "prometheus", "scenario", "dashboard"):
        parser.add_argument(f"--{name}", required=True)
    args = parser.parse_args()
    binaries = argparse.Namespace(roce_sim=args.roce_sim, roced=args.roced, rocectl=args.rocectl,
                                  prometheus=args.prometheus)
    numbers = scenario_numbers.read(args.scenario)
    failures = []
    with Stack(binaries) as stack:
        try:
            stack.start_sim(args.scenario)
            stack.write_config(CONFIG)
            stack.apply_with_rocectl()
            stack.start_roced()
            stack.start_prometheus()
        except Failure as e:
            stack.print_logs()
            print(f"FAIL start-up: {e}", file=sys.stderr)
            return 1
        test = Run(stack, PrometheusApi(stack.prometheus_port), numbers, binaries,
                   args.dashboard)
        parts = [("ready", test.ready), ("drift", test.drift), ("episode", test.episode),
                 ("dashboard", test.dashboard), ("totals", test.totals)]
        for name, part in parts:
            print(f"[{name}]", flush=True)
            try:
                part()
            except Failure as e:
                failures.append(name)
                print(f"FAIL {name}: {e}", file=sys.stderr, flush=True)
                if name == "ready":
                    break  # nothing else can be judged
            sys.stdout.flush()
        if failures:
            stack.print_logs()
    print(f"{'FAILED: ' + ', '.join(failures) if failures else 'all parts passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
