#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""scripts/demo.sh end to end: runs `demo.sh --no-build` against the built binaries (its metrics
on a free port), and checks that it exits 0 by itself, that its piped output carries no terminal
escapes, and that its closing SUMMARY reports what the tour claims, value by value: every port
configured, a second apply of 0 writes, the drift corrected, the storm detected with a latency
that is a number consistent with the detection time, the D-Bus figure and the node's clock, the
remediation verified, PFC restored after the restoration time, the metrics URL. Only what holds
however slow the machine is checked: lower bounds, never how soon something happened.

  demo_test.py --demo scripts/demo.sh --build-dir build     run the demo and check it
  demo_test.py --output FILE [--port N]                     check a saved output only
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import time

# What the demo configures roced with (scripts/demo.sh: watchdog, storm length).
DETECTION_TIME_MS = 50
RESTORATION_TIME_MS = 500
STORM_MS = 3000
# The demo's duration ("about a minute") is measured and reported, not asserted: a test never
# fails because the machine is slow (its time is in the README, from `time ./scripts/demo.sh`).
# Nor are how soon roced corrected the drift, logged the detection or restored PFC: the demo
# waits for each (a minute at most, against a hang) and the summary only reports it.
# The remediation's read-back when the demo, on a busy machine, read PFC only after the storm
# and the restoration time were over (demo.sh judges that by the node's clock): no evidence.
STORM_OVER = "over"


def summary_fields(output):
    """The SUMMARY block's lines as {label: value}; labels and values are split on 2+ spaces."""
    lines = output.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("SUMMARY")), None)
    if start is None:
        return None
    fields = {}
    for line in lines[start + 1:]:
        match = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if not match:
            break
        fields[match.group(1)] = match.group(2)
    return fields


def number(text):
    return float(text) if re.fullmatch(r"\d+(\.\d+)?", text) else None


def check(output, port):
    """Every problem found in the demo's output (empty: it says what it should)."""
    problems = []
    if "\x1b" in output:
        problems.append("terminal escape codes in piped output")
    fields = summary_fields(output)
    if fields is None:
        return problems + ["no SUMMARY block"]

    def field(label, pattern):
        value = fields.get(label)
        if value is None:
            problems.append("SUMMARY has no '%s' line" % label)
            return None
        match = re.fullmatch(pattern, value)
        if not match:
            problems.append("SUMMARY '%s' reads %r, not /%s/" % (label, value, pattern))
        return match

    m = field("ports configured",
              r"(\d+) of (\d+) \(([^)]*)\), (\d+) write requests, ready in (\d+) ms")
    if m:
        configured, ports, names, writes = int(m[1]), int(m[2]), m[3].split(), int(m[4])
        if ports == 0 or configured != ports:
            problems.append("%d of %d ports configured" % (configured, ports))
        if len(names) != ports:
            problems.append("%d port names for %d ports" % (len(names), ports))
        if writes < configured:
            problems.append("%d write requests for %d ports configured" % (writes, configured))

    m = field("VFs left alone", r"(\d+) \(([^)]*)\), (\d+) write requests")
    if m:
        if int(m[1]) == 0 or len(m[2].split()) != int(m[1]):
            problems.append("the demo shows %s VFs named %r" % (m[1], m[2]))
        if int(m[3]) != 0:
            problems.append("the VFs received %s write requests, not 0" % m[3])

    m = field("second apply", r"(\d+) write requests")
    if m and int(m[1]) != 0:
        problems.append("the second apply sent %s write requests, not 0" % m[1])

    m = field("drift corrected",
              r"lan4 PFC put back (-?\d+) ms after 'dcb pfc set' returned \(read back: (\S+)\)")
    if m:
        # Reported only: roced may correct (and log it) before `roce-sim exec` has returned.
        if m[2] != "3:on":
            problems.append("after the drift lan4 reads %s, not 3:on" % m[2])

    m = field("storm detected",
              r"lan3 prio 3 RX: (\S+) ms after onset \(D-Bus: (\S+) ms; node clock: \+(-?\d+) ms\)")
    if m:
        latency, dbus, logged = number(m[1]), number(m[2]), int(m[3])
        if latency is None or dbus is None:
            problems.append("storm detection latency %r / D-Bus %r: not numbers" % (m[1], m[2]))
        else:
            if not DETECTION_TIME_MS <= latency < STORM_MS:
                problems.append("storm detected %s ms after onset: not within [%d, %d)"
                                % (m[1], DETECTION_TIME_MS, STORM_MS))
            # The log prints whole milliseconds of the same observation GetStorms averages.
            if abs(latency - dbus) > 1.5:
                problems.append("log says %s ms, D-Bus %s ms" % (m[1], m[2]))
            # The detection is logged after it happened, by the node's own clock.
            if logged < latency - 10:
                problems.append("detection logged at +%d ms by the node's clock, latency %s ms"
                                % (logged, m[1]))

    field("storm's switch port", r"leaf1 swp3")

    m = field("remediation",
              r"disable-pfc \(read back: (\S+)\), verified: the storm stopped within (\d+) polls")
    if m:
        if m[1] not in ("3:off", STORM_OVER):
            problems.append("during the storm lan3 reads %s, not 3:off" % m[1])
        if int(m[2]) < 1:
            problems.append("verified over %s polls" % m[2])

    m = field("restored", r"(-?\d+) ms after the storm ended \(read back: (\S+)\)")
    if m:
        if int(m[1]) < RESTORATION_TIME_MS - 10:
            problems.append("restored %s ms after the storm ended (restoration time %d ms)"
                            % (m[1], RESTORATION_TIME_MS))
        if m[2] != "3:on":
            problems.append("after the storm lan3 reads %s, not 3:on" % m[2])

    m = field("switch mismatch",
              r"lan3's switch PFC on 4 named (-?\d+) ms after it changed \((\d+) mismatches in "
              r"rocectl status\)")
    if m and int(m[2]) != 2:
        problems.append("rocectl status shows %s mismatches for lan3, not 2 (PFC, DSCP)" % m[2])

    m = field("NIC health",
              r"lan4's PCIe link at x8 of x16 named (-?\d+) ms after it retrained \((\d+) finding in "
              r"rocectl status\)")
    if m and int(m[2]) != 1:
        problems.append("rocectl status shows %s PCIe findings for lan4, not 1" % m[2])

    # 50 a second over a 2 s reading: above both the rate and, by the second reading, the hour.
    m = field("optic errors",
              r"lan5's 50 symbol errors a second named (-?\d+) ms after they began \((\d+) findings "
              r"in rocectl status\)")
    if m and int(m[2]) != 2:
        problems.append("rocectl status shows %s symbol error findings for lan5, not 2" % m[2])

    # Below the module's -13.3 dBm low alarm: one critical finding, within a reading or two.
    m = field("optic fading",
              r"lan2's lane 2 at -14 dBm named (-?\d+) ms after it dimmed \((\d+) finding in "
              r"rocectl status\)")
    if m and int(m[2]) != 1:
        problems.append("rocectl status shows %s transceiver findings for lan2, not 1" % m[2])

    url = (re.escape("http://127.0.0.1:%d/metrics" % port) if port
           else r"http://127\.0\.0\.1:\d+/metrics")
    m = field("metrics", r"(\d+) series at " + url)
    if m and int(m[1]) == 0:
        problems.append("0 metric series")

    field("roced", r"SIGTERM, exit 0")

    field("demo time", r"(\d+\.\d) s")
    return problems


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--demo")
    parser.add_argument("--build-dir")
    parser.add_argument("--output", help="check this saved output instead of running the demo")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()

    if args.output:
        with open(args.output, encoding="utf-8") as f:
            output = f.read()
        port, rc = args.port, 0
    else:
        port = free_port()
        env = dict(os.environ, ROCED_BUILD_DIR=args.build_dir,
                   ROCED_DEMO_METRICS_PORT=str(port))
        env.pop("NO_COLOR", None)
        began = time.monotonic()
        run = subprocess.run(["bash", args.demo, "--no-build"], env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=240,
                             check=False)
        output = run.stdout.decode("utf-8", "replace")
        rc = run.returncode
        print(output)
        print("demo.sh exited %d after %.1f s" % (rc, time.monotonic() - began))

    problems = ([] if rc == 0 else ["demo.sh exited %d" % rc]) + check(output, port)
    for problem in problems:
        print("FAIL: " + problem)
    if not problems:
        print("OK: the demo's summary holds")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
