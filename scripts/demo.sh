#!/usr/bin/env bash
# The main job: a simulated node of four ConnectX-7 ports, and roced's one-shot path over it —
# validate the configuration, plan, apply, read back with iproute2/ethtool, a second apply that
# writes nothing, another tool drifting a port, and the plan that sees it. (The long-running
# daemon that keeps ports right by itself comes with issue 4.)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BIN="${ROCED_BUILD_DIR:-$ROOT/build}/bin"
CONFIG="$ROOT/packaging/roced.yaml"

SIM_DIR="$(mktemp -d /tmp/roce-sim.XXXXXX)"
cleanup() {
  [[ -n "${SIM_PID:-}" ]] && kill "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
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

"$BIN/roce-sim" run --dir "$SIM_DIR" --quiet &
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
sed -e 's/^\(\s*\)tos: 106/\1tos: 184/' -e 's/^\(\s*\)priorities: \[3\]/\1priorities: [3, 9]/' \
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
