#!/usr/bin/env bash
# The main job at this stage: start a simulated node (four ConnectX-7 ports) and show what
# `rocectl status` reads from it through netlink, the ethtool ioctl and sysfs/configfs/debugfs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
BIN="${ROCED_BUILD_DIR:-$ROOT/build}/bin"

SIM_DIR="$(mktemp -d /tmp/roce-sim.XXXXXX)"
cleanup() {
  [[ -n "${SIM_PID:-}" ]] && kill "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
  rm -rf "$SIM_DIR"
}
trap cleanup EXIT

"$BIN/roce-sim" run --dir "$SIM_DIR" --quiet &
SIM_PID=$!
for _ in $(seq 1 100); do [[ -e "$SIM_DIR/roce-sim.pid" ]] && break; sleep 0.1; done
[[ -e "$SIM_DIR/roce-sim.pid" ]] || { echo "demo: roce-sim did not start" >&2; exit 1; }

echo "== simulated node at $SIM_DIR (roce-sim pid $SIM_PID)"
echo
echo "== rocectl status --sim $SIM_DIR"
"$BIN/rocectl" status --sim "$SIM_DIR"
echo
echo "== another tool changes lan3 behind our back: dcb pfc set dev lan3 prio-pfc 3:on"
"$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc set dev lan3 prio-pfc 3:on
"$BIN/rocectl" status --sim "$SIM_DIR" --port lan3
