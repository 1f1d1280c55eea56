#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The monitoring checks must be able to fail: each case breaks the shipped dashboard or rules in
one way (in memory) and asserts the checker reports exactly that problem. Needs ROCED_SOURCE_DIR."""

import copy
import json
import os
import unittest

import check_alert_rules
import check_dashboard
import promql_names

SOURCE = os.environ["ROCED_SOURCE_DIR"]
DOC = os.path.join(SOURCE, "docs/metrics.md")
DASHBOARD = os.path.join(SOURCE, "packaging/grafana/roced.json")
RULES = os.path.join(SOURCE, "packaging/prometheus/roced-alerts.yml")
TESTS = os.path.join(SOURCE, "packaging/prometheus/roced-alerts.test.yml")
RUNBOOK = os.path.join(SOURCE, "packaging/prometheus/runbook.md")


def known_metrics():
    return promql_names.known_series(DOC)


class MetricNamesTest(unittest.TestCase):
    def test_doc_lists_metric_column_only(self):
        names = promql_names.documented_metrics(DOC)
        for name in ("roce_pfc_pause_duration_seconds_total", "roce_config_in_sync",
                     "roce_rdma_slow_restarts_total", "roced_build_info"):
            self.assertIn(name, names)
        # Driver counter names in the "from" column are not metrics.
        for name in ("roce_adp_retrans", "roce_slow_restart", "roce_adp_retrans_to"):
            self.assertNotIn(name, names)

    def test_histogram_series(self):
        known = known_metrics()
        latency = "roce_pfc_storm_detection_latency_seconds"
        self.assertEqual(promql_names.documented_types(DOC)[latency], "histogram")
        for suffix in ("_bucket", "_sum", "_count"):
            self.assertEqual(known[latency + suffix], latency)
        # The family name selects nothing in Prometheus.
        self.assertNotIn(latency, known)
        self.assertEqual(known["roce_pfc_storm_detections_total"],
                         "roce_pfc_storm_detections_total")
        self.assertEqual(known["up"], "up")

    def test_expression_names(self):
        cases = {
            'sum by (instance) (rate(a_total{x="y", z=~"$v"}[$__rate_interval]))': {"a_total"},
            "(rate(a[1m]) > 0.99) and ignoring (direction) (rate(b[1m]) == 0)": {"a", "b"},
            'label_replace(increase(c[5m]) > 0, "counter", "discards", "", "")': {"c"},
            "count(d) or vector(0)": {"d"},
            "time() - e offset 5m": {"e"},
            'absent(up{job=~".*roced.*"})': {"up"},
            "sum(rate(f[5m])) by (le) > bool 1e3": {"f"},
            "g * on (netdev) group_left (driver) h": {"g", "h"},
        }
        for expr, expected in cases.items():
            self.assertEqual(promql_names.metric_names(expr), expected, expr)


class DashboardCheckTest(unittest.TestCase):
    def setUp(self):
        with open(DASHBOARD, encoding="utf-8") as source:
            self.dashboard = json.load(source)
        self.known = known_metrics()

    def errors(self, dashboard):
        return check_dashboard.check_dashboard(dashboard, self.known)

    def first_target(self, dashboard, metric):
        for panel in check_dashboard.all_panels(dashboard["panels"]):
            for target in panel.get("targets", []):
                if metric in target["expr"]:
                    return panel, target
        self.fail(f"no target reads {metric}")

    def assertOneError(self, dashboard, fragment):
        errors = self.errors(dashboard)
        self.assertTrue(errors, "the broken dashboard passed")
        self.assertTrue(any(fragment in e for e in errors), f"{fragment!r} not in {errors}")

    def test_shipped_dashboard_passes(self):
        self.assertEqual(self.errors(self.dashboard), [])

    def test_unknown_metric(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_cnp_ignored_total")
        target["expr"] = target["expr"].replace("roce_cnp_ignored_total", "roce_cnp_dropped_total")
        self.assertOneError(broken, "metric roce_cnp_dropped_total is not in docs/metrics.md")

    def test_selector_without_job(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_port_discards_total")
        target["expr"] = target["expr"].replace('job=~"$job", ', "")
        self.assertOneError(broken, "filters on $instance but not $job")

    def test_lossless_discards_count_every_counter(self):
        broken = copy.deepcopy(self.dashboard)
        panel = next(p for p in check_dashboard.all_panels(broken["panels"])
                     if p.get("title") == "Discards on lossless priorities (range)")
        target = panel["targets"][0]
        self.assertIn("roce_priority_congestion_discards_total", target["expr"])
        target["expr"] = ('sum(increase(roce_priority_discards_total{job=~"$job", '
                          'instance=~"$instance"}[$__range]) and on (job, instance, netdev, '
                          'priority) roce_config_lossless_priority == 1)')
        self.assertOneError(broken, "without roce_priority_buffer_discards_total")

    def test_panel_without_target(self):
        broken = copy.deepcopy(self.dashboard)
        panel, _ = self.first_target(broken, "roce_link_mtu_bytes")
        panel["targets"] = []
        self.assertOneError(broken, f'panel "{panel["title"]}": no target')

    def test_rate_over_fixed_range(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_pfc_pause_frames_total")
        target["expr"] = target["expr"].replace("[$__rate_interval]", "[5m]")
        self.assertOneError(broken, "rate() over [5m], use [$__rate_interval]")

    def test_unknown_variable(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_port_discards_total")
        target["expr"] = target["expr"].replace("$netdev", "$port")
        self.assertOneError(broken, "unknown variable $port")

    def test_name_matcher(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_port_discards_total")
        target["expr"] = 'rate({__name__=~"roce_.*", instance=~"$instance"}[$__rate_interval])'
        self.assertOneError(broken, "selects by __name__")

    def test_documented_metric_without_panel(self):
        broken = copy.deepcopy(self.dashboard)
        broken["panels"] = [p for p in broken["panels"]
                            if "roce_global_pause_duration_seconds_total" not in json.dumps(p)]
        self.assertOneError(broken, "metric roce_global_pause_duration_seconds_total from "
                                    "docs/metrics.md is on no panel")

    def test_bare_histogram_name(self):
        broken = copy.deepcopy(self.dashboard)
        _, target = self.first_target(broken, "roce_pfc_storm_detection_latency_seconds_bucket")
        target["expr"] = target["expr"].replace("roce_pfc_storm_detection_latency_seconds_bucket",
                                                "roce_pfc_storm_detection_latency_seconds")
        self.assertOneError(broken, "metric roce_pfc_storm_detection_latency_seconds is a "
                                    "histogram: query its _bucket, _sum or _count series")

    def test_histogram_without_panel(self):
        broken = copy.deepcopy(self.dashboard)
        broken["panels"] = [p for p in broken["panels"]
                            if "roce_pfc_storm_detection_latency_seconds" not in json.dumps(p)]
        self.assertOneError(broken, "metric roce_pfc_storm_detection_latency_seconds from "
                                    "docs/metrics.md is on no panel")

    def test_variables(self):
        def by_name(dashboard, name):
            return next(v for v in dashboard["templating"]["list"] if v["name"] == name)
        broken = copy.deepcopy(self.dashboard)
        broken["templating"]["list"].remove(by_name(broken, "priority"))
        self.assertOneError(broken,
                            "template variables are ['datasource', 'job', 'instance', 'netdev']")
        broken = copy.deepcopy(self.dashboard)
        by_name(broken, "priority")["current"] = {"text": ["0"], "value": ["0"]}
        self.assertOneError(broken, "variable priority: default is ['0'], expected 3")
        broken = copy.deepcopy(self.dashboard)
        by_name(broken, "netdev")["multi"] = False
        self.assertOneError(broken, "variable netdev: must be multi-value with All")
        broken = copy.deepcopy(self.dashboard)
        by_name(broken, "instance")["query"] = "label_values(node_uname_info, instance)"
        self.assertOneError(broken, "variable instance: must be a query variable on")
        broken = copy.deepcopy(self.dashboard)
        by_name(broken, "job")["query"] = "label_values(up, job)"
        self.assertOneError(broken, "variable job: must be a query variable on")

    def test_panel_datasource(self):
        broken = copy.deepcopy(self.dashboard)
        panel, _ = self.first_target(broken, "roce_link_up")
        panel["datasource"] = {"type": "prometheus", "uid": "prod-prometheus"}
        self.assertOneError(broken, "datasource is not ${datasource}")


class AlertRulesCheckTest(unittest.TestCase):
    def setUp(self):
        with open(RULES, encoding="utf-8") as rules, open(TESTS, encoding="utf-8") as tests, \
                open(RUNBOOK, encoding="utf-8") as runbook:
            self.rules, self.tests, self.runbook = rules.read(), tests.read(), runbook.read()
        self.known = known_metrics()

    def errors(self, rules, tests, runbook=None):
        errors, _ = check_alert_rules.check("rules", rules.splitlines(), "tests",
                                            tests.splitlines(), self.known, "runbook",
                                            (runbook or self.runbook).splitlines())
        return errors

    def assertError(self, rules, tests, fragment, runbook=None):
        errors = self.errors(rules, tests, runbook)
        self.assertTrue(any(fragment in e for e in errors), f"{fragment!r} not in {errors}")

    def test_shipped_rules_pass(self):
        errors, count = check_alert_rules.check("rules", self.rules.splitlines(), "tests",
                                                self.tests.splitlines(), self.known, "runbook",
                                                self.runbook.splitlines())
        self.assertEqual(errors, [])
        self.assertGreaterEqual(count, 7)

    def test_runbook_url_missing_or_elsewhere(self):
        line = ("  runbook_url: '{{ with $externalLabels.roced_runbook_base }}{{ . }}{{ else }}"
                "http://{{ $labels.instance }}/runbook{{ end }}/RoceCnpIgnored'\n")
        self.assertIn(line, self.rules)
        self.assertError(self.rules.replace(line, ""), self.tests,
                         "RoceCnpIgnored: runbook_url is None, expected")
        moved = self.rules.replace("{{ end }}/RoceCnpIgnored", "{{ end }}/RoceCnp")
        self.assertError(moved, self.tests, "RoceCnpIgnored: runbook_url is '{{ with")
        # The node's own address only, with no external label to point elsewhere: refused.
        fixed = self.rules.replace(
            line, '  runbook_url: "http://{{ $labels.instance }}/runbook/RoceCnpIgnored"\n')
        self.assertError(fixed, self.tests, "RoceCnpIgnored: runbook_url is 'http://")

    def test_runbook_sections(self):
        self.assertIn("## RoceCnpIgnored\n", self.runbook)
        self.assertError(self.rules, self.tests,
                         "RoceCnpIgnored: runbook has no section '## RoceCnpIgnored'",
                         self.runbook.replace("## RoceCnpIgnored\n", "## RoceCnpIgnore\n"))
        self.assertError(self.rules, self.tests, "section for RoceCnpIgnore, which rules",
                         self.runbook.replace("## RoceCnpIgnored\n", "## RoceCnpIgnore\n"))

    def test_unknown_metric(self):
        broken = self.rules.replace("rate(roce_cnp_ignored_total[5m])",
                                    "rate(roce_cnp_ignore_total[5m])")
        self.assertNotEqual(broken, self.rules)
        self.assertError(broken, self.tests, "RoceCnpIgnored: metric roce_cnp_ignore_total is not")

    def test_unknown_metric_in_block_expr(self):
        broken = self.rules.replace("roce_priority_congestion_discards_total[",
                                    "roce_priority_cong_discards_total[")
        self.assertNotEqual(broken, self.rules)
        self.assertError(broken, self.tests, "metric roce_priority_cong_discards_total is not")

    def test_missing_severity(self):
        lines = self.rules.splitlines()
        start = next(i for i, l in enumerate(lines) if "alert: RoceGidIndexMoved" in l)
        severity = next(i for i in range(start, len(lines)) if "severity:" in lines[i])
        del lines[severity]
        self.assertError("\n".join(lines), self.tests, "RoceGidIndexMoved: severity None")

    def test_bad_name(self):
        broken = self.rules.replace("alert: RoceCnpIgnored", "alert: cnp_ignored")
        self.assertError(broken, self.tests.replace("RoceCnpIgnored", "cnp_ignored"),
                         "cnp_ignored: name is not CamelCase")

    def test_alert_without_silent_case(self):
        lines = self.tests.splitlines()
        kept = []
        index = 0
        # Drop every `exp_alerts: []` case of RoceCnpIgnored (eval_time, alertname, exp_alerts).
        while index < len(lines):
            if lines[index].strip() == "alertname: RoceCnpIgnored" and \
                    lines[index + 1].strip() == "exp_alerts: []":
                kept.pop()
                index += 2
                continue
            kept.append(lines[index])
            index += 1
        self.assertError(self.rules, "\n".join(kept),
                         "RoceCnpIgnored: no test case where it silent")

    def test_alert_without_firing_case(self):
        broken = self.tests.replace("alertname: RocedCollectorFailing\n        exp_alerts:\n"
                                    "          - exp_labels:",
                                    "alertname: RocedCollectorFailing\n        exp_alerts: []\n"
                                    "          - exp_labels:")
        self.assertNotEqual(broken, self.tests)
        self.assertError(self.rules, broken, "RocedCollectorFailing: no test case where it fires")


if __name__ == "__main__":
    unittest.main(verbosity=2)
