#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unit_sandbox_test.sh BUILD_DIR
# roced under its own unit, started by a real systemd: systemd runs as PID 1 in a throwaway copy of
# this machine (test/packaging/in-scratch-root.sh), with roced, rocectl and the unit, D-Bus policy
# and a configuration installed from BUILD_DIR, and a roce-sim node as a unit of its own. The one
# change to the shipped unit is a drop-in pointing roced at the simulated node (--sim, and the node's
# directory writable as /sys/devices, /sys/kernel/config and debugfs are on a real machine).
# unit_sandbox_checks.sh (a unit of the booted system) checks that roced works inside the sandbox
# and that the sandbox is in force on it, and runs sandbox_probe.sh under the same sandbox
# (roced-probe.service: the shipped unit's lines with the probe as ExecStart) and unconfined, to
# show what a compromised roced could not do and that the probe would see it if it could.
set -euo pipefail
BUILD=$(realpath "$1")
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
SCRATCH=$(mktemp -d /dev/shm/roced-sandbox.XXXXXX)
trap 'umount -R "$SCRATCH/root" 2>/dev/null || true; rm -rf "$SCRATCH"' EXIT

# The booted system shares this machine's network: the endpoint takes a port free now.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Bounded: a systemd that never powers off is killed with its namespace (--kill-child).
status=0
timeout -s KILL 300 env ROCED_BUILD_DIR="$BUILD" "$REPO/test/packaging/in-scratch-root.sh" \
  "$SCRATCH" -- /usr/bin/env container=roced-test "$HERE/unit_sandbox_boot.sh" "$BUILD" "$PORT" \
  >"$SCRATCH/console.log" 2>&1 || status=$?
RESULT=$SCRATCH/upper/sandbox-result
if [[ ! -f $RESULT/log ]]; then
  echo "FAIL: the booted system left no result (systemd exit $status); console:" >&2
  tail -50 "$SCRATCH/console.log" >&2
  exit 1
fi
cat "$RESULT/log"
if [[ $(cat "$RESULT/status" 2>/dev/null) != passed ]]; then
  echo "FAIL: $(grep -c '^FAIL' "$RESULT/log") checks failed (status: $(cat "$RESULT/status" 2>/dev/null || echo none))" >&2
  echo "--- journal of roced and the checks:" >&2
  cat "$RESULT/journal" >&2 2>/dev/null || true
  exit 1
fi
