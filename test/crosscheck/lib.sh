# SPDX-License-Identifier: Apache-2.0
# Helpers shared by the cross-check scripts: start a simulated node, run tools through the
# shim, assert values. Sourced; the caller sets SHIM (path to libroce_sim_shim.so).
set -u

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
  [[ "$2" == "$3" ]] || fail "$1: expected '$2', got '$3'"
  local first_line=${3%%$'\n'*}
  [[ "$first_line" == "$3" ]] || first_line+=" ... ($(wc -l <<<"$3") lines)"
  echo "ok: $1 = '$first_line'"
}

# assert_contains WHAT NEEDLE HAYSTACK
assert_contains() {
  [[ "$3" == *"$2"* ]] || fail "$1: '$2' not found in: $3"
  echo "ok: $1 contains '$2'"
}

assert_not_contains() {
  [[ "$3" != *"$2"* ]] || fail "$1: '$2' unexpectedly found in: $3"
  echo "ok: $1 lacks '$2'"
}

SIM_DIR=""
SIM_PID=""

cleanup_sim() {
  local status=$?
  if [[ -n "$SIM_PID" ]]; then
    kill "$SIM_PID" 2>/dev/null
    wait "$SIM_PID" 2>/dev/null
  fi
  if [[ -n "$SIM_DIR" ]]; then
    if [[ $status -ne 0 && -f "$SIM_DIR.log" ]]; then
      echo "--- simulator log:" >&2
      cat "$SIM_DIR.log" >&2
    fi
    rm -rf "$SIM_DIR" "$SIM_DIR.log"
  fi
}
trap cleanup_sim EXIT
trap 'exit 143' TERM INT

# start_sim CMD...: runs CMD with "$SIM_DIR" appended, waits (generous deadline) for the
# readiness marker DIR/roce-sim.pid.
start_sim() {
  SIM_DIR=$(mktemp -d /tmp/roce-crosscheck.XXXXXX)
  "$@" "$SIM_DIR" >"$SIM_DIR.log" 2>&1 &
  SIM_PID=$!
  for _ in $(seq 1 600); do
    [[ -s "$SIM_DIR/roce-sim.pid" && -S "$SIM_DIR/rtnl.sock" && -S "$SIM_DIR/ethtool.sock" ]] && return 0
    kill -0 "$SIM_PID" 2>/dev/null || { cat "$SIM_DIR.log" >&2; fail "simulator exited early"; }
    sleep 0.1
  done
  cat "$SIM_DIR.log" >&2
  fail "simulator not ready after 60 s"
}

# sim CMD...: run a tool against the simulated node through the shim; with ROCE_SIM set, the
# way users do it (`roce-sim exec DIR -- CMD`), else by setting the environment directly.
sim() {
  if [[ $1 == dcb ]]; then
    sim_dcb "$@"
  elif [[ -n "${ROCE_SIM:-}" ]]; then
    "$ROCE_SIM" exec "$SIM_DIR" -- "$@"
  else
    ROCE_SIM_DIR="$SIM_DIR" LD_PRELOAD="$SHIM" "$@"
  fi
}

# iproute2 6.1's dcb reads the ACK its get left in the socket as the set's answer, and fails with
# EPROTO when the two fell in different seconds, although the set was applied
# (test/support/sim_exec.hpp has the sources). Only that failure is forgiven.
sim_dcb() {
  local err status=0
  {
    if [[ -n "${ROCE_SIM:-}" ]]; then
      err=$("$ROCE_SIM" exec "$SIM_DIR" -- "$@" 2>&1 >&3) || status=$?
    else
      err=$(ROCE_SIM_DIR="$SIM_DIR" LD_PRELOAD="$SHIM" "$@" 2>&1 >&3) || status=$?
    fi
  } 3>&1
  [[ $status == 1 && $err == "Attribute write: Protocol error" ]] && return 0
  [[ -z $err ]] || printf '%s\n' "$err" >&2
  return "$status"
}

# json WHAT JQ_FILTER CMD...: run CMD through the shim, apply a jq filter to its JSON output.
json() {
  local what=$1 filter=$2 out
  shift 2
  out=$(sim "$@") || fail "$what: '$*' exited $?"
  jq -c "$filter" <<<"$out" || fail "$what: cannot parse: $out"
}
