#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs as PID 1 of the scratch root (unit_sandbox_test.sh): installs what the test needs, then
# becomes systemd, booting into roced-sandbox-test.target.
set -euo pipefail
BUILD=$1 PORT=$2
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
NODE=/run/roce-sim/node

install -m 0755 "$BUILD/bin/roced" /usr/sbin/roced
install -m 0755 "$BUILD/bin/rocectl" /usr/bin/rocectl
# --sim loads the simulated node's transports from beside the binaries, as the roce-sim package
# installs them.
install -D -m 0644 "$BUILD/lib/roced/roce-sim-system.so" /usr/lib/roced/roce-sim-system.so
install -m 0644 "$REPO/systemd/roced.service" /lib/systemd/system/roced.service
install -m 0644 "$REPO/packaging/dbus/io.roced.Daemon1.conf" /usr/share/dbus-1/system.d/
install -d /etc/roced
cat >/etc/roced/roced.yaml <<YAML
metrics: {listen: "127.0.0.1:$PORT"}
watchdog: {enabled: true}
ports: {netdevs: ["*"]}
YAML

# The simulated node, a unit outside roced's sandbox.
cat >/etc/systemd/system/roce-sim.service <<UNIT
[Service]
Type=simple
ExecStartPre=/bin/mkdir -p $NODE
ExecStart=$BUILD/bin/roce-sim run --dir $NODE --scenario $REPO/sim/scenarios/steady.yaml --quiet
ExecStartPost=/bin/sh -c 'until [ -e $NODE/roce-sim.pid ]; do sleep 0.1; done'
UNIT
install -d /etc/systemd/system/roced.service.d
cat >/etc/systemd/system/roced.service.d/simulated-node.conf <<UNIT
# The test's only change to the shipped unit: the simulated node instead of the kernel.
[Unit]
Requires=roce-sim.service
After=roce-sim.service
[Service]
ExecStart=
ExecStart=/usr/sbin/roced --config /etc/roced/roced.yaml --sim $NODE
ReadWritePaths=$NODE
# A sanitizer build only (no effect otherwise): LeakSanitizer stops the world with ptrace, which
# the unit's sandbox forbids, so ExecReload's rocectl would fail at exit for that alone.
Environment=ASAN_OPTIONS=detect_leaks=0
UNIT

# roced-probe.service: the shipped unit's [Service] sandbox with the probe in roced's place. The
# probe is installed outside the tree, which may be under /tmp, hidden by the unit's PrivateTmp.
install -D -m 0755 "$HERE/sandbox_probe.sh" /usr/local/lib/roced-test/sandbox_probe.sh
PROBE=/usr/local/lib/roced-test/sandbox_probe.sh
{
  echo "[Service]"
  echo "Type=oneshot"
  echo "ExecStart=$PROBE confined $NODE"
  echo "ReadWritePaths=$NODE"
  sed -n '/^\[Service\]/,/^\[Install\]/p' /lib/systemd/system/roced.service |
    grep -Ev '^\[|^(Type|NotifyAccess|ExecStart|ExecReload|WatchdogSec|Restart|RestartSec|TimeoutStopSec)='
} >/etc/systemd/system/roced-probe.service
cat >/etc/systemd/system/roced-probe-unconfined.service <<UNIT
[Service]
Type=oneshot
ExecStart=$PROBE unconfined $NODE
UNIT

cat >/etc/systemd/system/roced-sandbox-checks.service <<UNIT
[Unit]
After=roced.service dbus.service
Wants=roced.service dbus.service
[Service]
Type=oneshot
ExecStart=$HERE/unit_sandbox_checks.sh $NODE /sandbox-result $PORT
ExecStopPost=/bin/systemctl poweroff --no-block
UNIT
cat >/etc/systemd/system/roced-sandbox-test.target <<UNIT
[Unit]
Requires=basic.target roced-sandbox-checks.service
After=basic.target roced-sandbox-checks.service
UNIT
exec /lib/systemd/systemd --system --unit=roced-sandbox-test.target --show-status=0
