#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""demo_test.py's checks must be able to fail: a summary as scripts/demo.sh prints it passes, and
each case breaks one value of it and asserts the checker reports that problem."""

import unittest

import demo_test

PORT = 19879
GOOD = """\
[8/8] Metrics, D-Bus, and a clean stop
roced exited 0

SUMMARY (measured in this run)
  ports configured     4 of 4 (lan2 lan3 lan4 lan5), 40 write requests, ready in 22 ms
  second apply         0 write requests
  VFs left alone       2 (lan2v0 lan2v1), 0 write requests
  drift corrected      lan4 PFC put back 53 ms after 'dcb pfc set' returned (read back: 3:on)
  storm detected       lan3 prio 3 RX: 55 ms after onset (D-Bus: 55.99 ms; node clock: +57 ms)
  remediation          disable-pfc (read back: 3:off), verified: the storm stopped within 3 polls
  storm's switch port  leaf1 swp3
  restored             507 ms after the storm ended (read back: 3:on)
  switch mismatch      lan3's switch PFC on 4 named 3 ms after it changed (2 mismatches in rocectl status)
  NIC health           lan4's PCIe link at x8 of x16 named 4021 ms after it retrained (1 finding in rocectl status)
  optic errors         lan5's 50 symbol errors a second named 3980 ms after they began (2 findings in rocectl status)
  optic fading         lan2's lane 2 at -14 dBm named 1990 ms after it dimmed (1 finding in rocectl status)
  metrics              700 series at http://127.0.0.1:19879/metrics
  roced                SIGTERM, exit 0
  demo time            6.6 s
  machine              2 cores, load average 0.52 (other work slows what roced measures)
"""


def broken(old, new):
    assert old in GOOD, old
    return GOOD.replace(old, new)


class CheckerTest(unittest.TestCase):
    def assertFlags(self, output, fragment):
        problems = demo_test.check(output, PORT)
        self.assertTrue(any(fragment in p for p in problems),
                        "expected a problem about %r, got %r" % (fragment, problems))

    def test_good_summary_passes(self):
        self.assertEqual(demo_test.check(GOOD, PORT), [])

    def test_no_summary(self):
        self.assertFlags(GOOD.split("SUMMARY")[0], "no SUMMARY")

    def test_escape_codes(self):
        self.assertFlags("\x1b[1m" + GOOD, "escape")

    def test_a_port_not_configured(self):
        self.assertFlags(broken("4 of 4 (lan2", "3 of 4 (lan2"), "3 of 4 ports configured")

    def test_a_vf_written(self):
        self.assertFlags(broken("lan2v1), 0 write", "lan2v1), 3 write"), "VFs received 3")

    def test_no_vf_shown(self):
        self.assertFlags(broken("2 (lan2v0 lan2v1)", "0 ()"), "shows 0 VFs")

    def test_second_apply_wrote(self):
        self.assertFlags(broken("  0 write requests", "  2 write requests"), "sent 2 write")

    def test_drift_not_put_back(self):
        self.assertFlags(broken("returned (read back: 3:on)", "returned (read back: 3:off)"),
                         "lan4 reads 3:off")

    def test_latency_not_a_number(self):
        self.assertFlags(broken("RX: 55 ms", "RX: ? ms"), "not numbers")

    def test_latency_below_detection_time(self):
        self.assertFlags(broken("RX: 55 ms", "RX: 5 ms"), "not within")

    def test_latency_disagrees_with_dbus(self):
        self.assertFlags(broken("D-Bus: 55.99 ms", "D-Bus: 80.00 ms"), "D-Bus 80.00 ms")

    def test_detection_logged_before_onset(self):
        self.assertFlags(broken("node clock: +57 ms", "node clock: +12 ms"), "node's clock")

    def test_a_mismatch_rocectl_status_did_not_show_fails(self):
        self.assertFlags(broken("(2 mismatches in rocectl status)", "(1 mismatches in rocectl status)"),
                         "not 2")

    def test_a_pcie_finding_rocectl_status_did_not_show_fails(self):
        self.assertFlags(broken("(1 finding in rocectl status)", "(0 finding in rocectl status)"),
                         "not 1")

    def test_symbol_error_findings_rocectl_status_did_not_show_fail(self):
        self.assertFlags(broken("(2 findings in rocectl status)", "(1 findings in rocectl status)"),
                         "not 2")

    def test_a_missing_optic_line_fails(self):
        self.assertFlags(broken("  optic errors", "  optic errorz"), "optic errors")

    def test_an_optic_alarm_rocectl_status_did_not_show_fails(self):
        self.assertFlags(broken("(1 finding in rocectl status)\n  metrics",
                                "(0 finding in rocectl status)\n  metrics"), "not 1")

    def test_storm_over_before_the_read_passes(self):
        self.assertEqual(demo_test.check(broken("(read back: 3:off)", "(read back: over)"), PORT),
                         [])

    def test_slow_machine_figures_pass(self):
        slow = broken("back 53 ms after", "back 25000 ms after")
        slow = slow.replace("node clock: +57 ms", "node clock: +4200 ms")
        slow = slow.replace("507 ms after the storm", "31000 ms after the storm")
        self.assertEqual(demo_test.check(slow, PORT), [])

    def test_pfc_not_off_during_storm(self):
        self.assertFlags(broken("(read back: 3:off)", "(read back: 3:on)"), "not 3:off")

    def test_restored_too_early(self):
        self.assertFlags(broken("507 ms after the storm", "120 ms after the storm"), "restored 120")

    def test_not_restored(self):
        self.assertFlags(broken("ended (read back: 3:on)", "ended (read back: 3:off)"),
                         "after the storm lan3 reads 3:off")

    def test_metrics_elsewhere(self):
        self.assertFlags(broken("127.0.0.1:19879", "127.0.0.1:9879"), "'metrics'")

    def test_unclean_stop(self):
        self.assertFlags(broken("SIGTERM, exit 0", "SIGTERM, exit 1"), "'roced'")

    def test_no_demo_time(self):
        self.assertFlags(broken("6.6 s", "a while"), "'demo time'")


if __name__ == "__main__":
    unittest.main()
