#!/usr/bin/env bash
# The main job: a simulated node of four ConnectX-7 ports, and roced over it — first the one-shot
# path (validate, plan, apply, read back with iproute2/ethtool, a re-apply that writes nothing,
# a drift and the plan that sees it), then the daemon: roced keeping the ports right by itself
# when another tool changes one, handling a PFC storm, answering on D-Bus (a private bus, as a
# real one needs a system).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BIN="${ROCED_BUILD_DIR:-$ROOT/build}/bin"
CONFIG="$ROOT/packaging/roced.yaml"

SIM_DIR="$(mktemp -d /tmp/roce-sim.XXXXXX)"
cleanup() {
  for pid in ${ROCED_PID:-} ${BUS_PID:-} ${SIM_PID:-}; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  rm -rf "$SIM_DIR"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# Runs a command that may exit non-zero on purpose (2 = changes pending) and shows its status.
show_exit() {
  local rc=0
  "$@" || rc=$?
  echo "(exit $rc)"
}
writes() { sed -n 's/^total //p' "$SIM_DIR/roce-sim.writes"; }

# Steady RoCE traffic on priority 3 of every port, so the counters in the metrics move.
"$BIN/roce-sim" run --dir "$SIM_DIR" --quiet --scenario "$ROOT/sim/scenarios/steady.yaml" &
SIM_PID=$!
for _ in $(seq 1 100); do [[ -e "$SIM_DIR/roce-sim.pid" ]] && break; sleep 0.1; done
[[ -e "$SIM_DIR/roce-sim.pid" ]] || { echo "demo: roce-sim did not start" >&2; exit 1; }
echo "simulated node at $SIM_DIR (roce-sim pid $SIM_PID)"

step "rocectl status --port lan3: a port as the driver left it"
"$BIN/rocectl" --sim "$SIM_DIR" status --port lan3

step "rocectl validate $CONFIG: the shipped configuration (the common recipe)"
show_exit "$BIN/rocectl" validate "$CONFIG"

step "rocectl validate on a broken copy: file, line, column, field — and nothing is touched"
BAD="$SIM_DIR/broken.yaml"
sed -e 's/^\(\s*\)tos: 106/\1tos: 184/' -e 's/^\(\s*\)cable_length:/\1cable_lenght:/' \
  "$CONFIG" >"$BAD"
show_exit "$BIN/rocectl" validate "$BAD"

step "rocectl plan: what apply would change, per port (exit 2 = changes pending)"
show_exit "$BIN/rocectl" --sim "$SIM_DIR" plan --config "$CONFIG" --port lan3

step "rocectl apply: every port, in the safe order, each step read back"
before=$(writes)
show_exit "$BIN/rocectl" --sim "$SIM_DIR" apply --config "$CONFIG"
echo "write requests the node received: $(($(writes) - before))"

step "read back with the tools an engineer would use (unmodified, through roce-sim exec)"
for cmd in "dcb dcbx show dev lan3" "dcb pfc show dev lan3" "dcb ets show dev lan3" \
  "dcb app show dev lan3" "ip link show lan3" "ethtool --get-tunable lan3 pfc-prevention-tout"; do
  echo "\$ $cmd"
  # shellcheck disable=SC2086
  "$BIN/roce-sim" exec "$SIM_DIR" -- $cmd
done

step "apply again: the node already matches, so nothing is written (no link flap)"
before=$(writes)
show_exit "$BIN/rocectl" --sim "$SIM_DIR" apply --config "$CONFIG" --port lan3
echo "write requests the node received: $(($(writes) - before))"

step "another tool drifts lan3: dcb pfc set dev lan3 prio-pfc 3:off 4:on"
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc set dev lan3 prio-pfc 3:off 4:on
show_exit "$BIN/rocectl" --sim "$SIM_DIR" plan --config "$CONFIG" --port lan3

step "apply puts it back"
show_exit "$BIN/rocectl" --sim "$SIM_DIR" apply --config "$CONFIG" --port lan3

step "rocectl nccl-env: what a job on this node should export"
show_exit "$BIN/rocectl" --sim "$SIM_DIR" nccl-env --config "$CONFIG"

step "the daemon: roced --sim $SIM_DIR, with its D-Bus API on a private bus"
# A private bus with the shipped policy (a real node uses the system bus).
cat >"$SIM_DIR/bus.conf" <<BUS
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$SIM_DIR/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><deny own="*"/><deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/><allow receive_type="method_return"/>
    <allow receive_type="error"/><allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
  </policy>
  <include>$ROOT/packaging/dbus/io.roced.Daemon1.conf</include>
</busconfig>
BUS
dbus-daemon --config-file="$SIM_DIR/bus.conf" --nofork 2>/dev/null &
BUS_PID=$!
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$SIM_DIR/bus.sock"
for _ in $(seq 1 50); do [[ -S "$SIM_DIR/bus.sock" ]] && break; sleep 0.1; done
METRICS="127.0.0.1:${ROCED_DEMO_METRICS_PORT:-9879}"
# The shipped configuration with the PFC storm watchdog on (it is off by default): a 10 ms poll,
# RX storms remediated by turning PFC off on the priority, TX storms by tighter stall prevention.
DEMO_CONFIG="$SIM_DIR/roced.yaml"
cat "$CONFIG" - >"$DEMO_CONFIG" <<'WATCHDOG'
watchdog:
  enabled: true
  poll_interval: 10ms
  detection_time: 50ms
  restoration_time: 500ms
  action: {rx: disable-pfc, tx: stall-prevention}
WATCHDOG
"$BIN/roced" --sim "$SIM_DIR" --config "$DEMO_CONFIG" --log-target console --metrics-listen "$METRICS" \
  >"$SIM_DIR/roced.log" 2>&1 &
ROCED_PID=$!
for _ in $(seq 1 100); do grep -q "D-Bus API" "$SIM_DIR/roced.log" && break; sleep 0.1; done
cat "$SIM_DIR/roced.log"

step "rocectl status asks the running daemon over D-Bus"
"$BIN/rocectl" --sim "$SIM_DIR" status --port lan4

step "another tool turns PFC off on lan4 (dcb pfc set dev lan4 prio-pfc 3:off); roced puts it back"
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc set dev lan4 prio-pfc 3:off
sleep 0.5
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc show dev lan4
echo "roced's log since:"
tail -n +"$(($(wc -l <"$SIM_DIR/roced.log") - 2))" "$SIM_DIR/roced.log"

step "a PFC storm: the switch pauses lan3 on priority 3 without end, for 2 s (roce-sim inject)"
cat >"$SIM_DIR/storm.yaml" <<'STORM'
events:
  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 2s}
STORM
log_lines=$(wc -l <"$SIM_DIR/roced.log")
"$BIN/roce-sim" inject "$SIM_DIR" "$SIM_DIR/storm.yaml"
sleep 0.5
echo "roced's log (detected, PFC off on the priority, verified):"
tail -n +"$((log_lines + 1))" "$SIM_DIR/roced.log"
echo "while the storm lasts, lan3 ignores the pauses and sends again:"
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc show dev lan3
"$BIN/rocectl" --sim "$SIM_DIR" plan --port lan3 | grep -E "held|in sync" || true
for _ in $(seq 1 100); do grep -q "ended: it lasted" "$SIM_DIR/roced.log" && break; sleep 0.1; done
sleep 0.2  # the release's apply
echo "roced's log since (the storm ended; PFC is put back):"
tail -n +"$((log_lines + 4))" "$SIM_DIR/roced.log"
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc show dev lan3

step "Prometheus metrics at http://$METRICS/metrics (docs/metrics.md): a few of its series"
sleep 1
curl -s "http://$METRICS/metrics" >"$SIM_DIR/metrics.txt"
echo "$(grep -vc '^#' "$SIM_DIR/metrics.txt") series; among them:"
grep -E '^(roce_config_in_sync\{netdev="lan4",setting="pfc.priorities"|roce_config_(drifts|corrections)_total\{netdev="lan4"|roce_config_applies_total\{netdev="lan4"|roce_priority_bytes_total\{netdev="lan2".*direction="tx",priority="3"|roce_pfc_pause_duration_seconds_total\{netdev="lan2".*direction="rx"|roce_rocev2_gid_index\{netdev="lan2"|roce_pfc_storm_(detections|restorations|actions)_total\{netdev="lan3",priority="3",direction="rx"|roce_pfc_storm_detection_latency_seconds_(sum|count)\{netdev="lan3"|roced_scrape_collector_success)' \
  "$SIM_DIR/metrics.txt"

step "busctl call io.roced.Daemon1 ... GetStatus (JSON, lan4)"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --json=short call io.roced.Daemon1 /io/roced/Daemon1 \
  io.roced.Daemon1 GetStatus | python3 -c \
  'import json,sys; d=json.loads(json.loads(sys.stdin.read())["data"][0]); p=[p for p in d["ports"] if p["netdev"]=="lan4"][0]; print(json.dumps({k: p[k] for k in ("netdev","condition","last_apply") if k in p}, indent=2))'

step "busctl call io.roced.Daemon1 ... GetStorms (JSON, lan3 priority 3 rx)"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --json=short call io.roced.Daemon1 /io/roced/Daemon1 \
  io.roced.Daemon1 GetStorms | python3 -c \
  'import json,sys; d=json.loads(json.loads(sys.stdin.read())["data"][0]); s=[s for s in d["storms"] if s["netdev"]=="lan3" and s["direction"]=="rx"][0]; print(json.dumps(s, indent=2))'

step "SIGTERM: roced stops cleanly"
kill -TERM "$ROCED_PID"
wait "$ROCED_PID" && echo "roced exited 0"
ROCED_PID=
