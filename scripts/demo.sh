#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job, in well under a minute: a simulated node of four ConnectX-7 ports (roce-sim) and roced,
# the daemon, in the foreground over it. It shows the plan for the untouched node, roced applying
# it, the result read back by unmodified dcb/ip/ethtool, a re-apply that writes nothing, a drift
# made by another tool and corrected, a PFC storm detected, remediated and restored, the metrics
# endpoint and D-Bus, a clean SIGTERM, and ends with a summary of what this run measured.
# Everything shown is the programs' own output: roced's log lines shortened to time, level and
# message, long lines wrapped, the node's directory written $SIM; the summary's numbers come from
# this run (roced's log, the node's write counter and clock, dcb, D-Bus, the metrics).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
  cat <<'USAGE'
usage: scripts/demo.sh [--run-on] [--no-build] [--help]

Starts a simulated node of four mlx5 ports (roce-sim), runs roced against it in the foreground and
shows what roced does: the plan applied, a drift corrected, a PFC storm detected and remediated,
the metrics. Ends by itself with a summary of the values measured in this run.

  --run-on    after the tour, keep roced and the node running (roced's log follows) until Ctrl-C,
              with commands to try from another terminal
  --no-build  skip scripts/setup.sh --demo and scripts/build.sh --demo (the binaries must already
              be built, in build-demo/ or build/)
  -h, --help  show this help

environment:
  ROCED_BUILD_DIR           the build directory (default: build-demo/ in the repository; with
                            --no-build, build-demo/ if it holds roced, else build/)
  ROCED_DEMO_METRICS_PORT   the metrics endpoint's port on 127.0.0.1 (default 9879)
USAGE
}

RUN_ON=0
BUILD=1
for arg in "$@"; do
  case "$arg" in
    --run-on) RUN_ON=1 ;;
    --no-build) BUILD=0 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "demo: unknown option '$arg'" >&2; usage >&2; exit 1 ;;
  esac
done

T_START=$(date +%s%3N)
if ((BUILD)); then
  # Only what the demo runs: the test suite's packages and targets are scripts/test.sh's.
  "$ROOT/scripts/setup.sh" --demo
  "$ROOT/scripts/build.sh" --demo
fi
T_TOUR=$(date +%s%3N)

if [[ -n ${ROCED_BUILD_DIR:-} ]]; then
  BUILD_DIR="$ROCED_BUILD_DIR"
elif ((BUILD)) || [[ -x $ROOT/build-demo/bin/roced ]]; then
  BUILD_DIR="$ROOT/build-demo"
else
  BUILD_DIR="$ROOT/build"
fi
BIN="$BUILD_DIR/bin"
CONFIG="$ROOT/packaging/roced.yaml"
METRICS="127.0.0.1:${ROCED_DEMO_METRICS_PORT:-9879}"
METRICS_URL="http://$METRICS/metrics"
for exe in roced rocectl roce-sim; do
  [[ -x "$BIN/$exe" ]] || { echo "demo: $BIN/$exe is missing (run without --no-build)" >&2; exit 1; }
done
# How the binaries are named in the commands shown: relative to the repository when inside it.
SHOWN_BIN="${BIN#"$ROOT"/}"

# --- presentation -------------------------------------------------------------------------------
if [[ -t 1 && -z "${NO_COLOR:-}" ]]; then
  BOLD=$'\033[1m' DIM=$'\033[2m' RESET=$'\033[0m'
else
  BOLD='' DIM='' RESET=''
fi
WIDTH=100
if [[ -t 1 ]]; then
  cols=$(tput cols 2>/dev/null || echo 0)
  ((cols >= 60)) && WIDTH=$((cols < 120 ? cols : 120))
fi
STEP=0
STEPS=10
STORM_S=3  # the storm's length: long enough to be shown while it lasts on a busy machine
RESTORATION_MS=500  # the watchdog's restoration_time (roced.yaml below)
# How long the demo waits for anything before it gives up: only a hang takes that long, however
# slow or busy the machine (start-up alone trains four links for seconds each).
PATIENCE_S=60
step() {
  STEP=$((STEP + 1))
  printf '\n%s[%d/%d] %s%s\n' "$BOLD" "$STEP" "$STEPS" "$*" "$RESET"
}
# One or two lines on why the step matters, wrapped to the terminal.
say() { fold -s -w "$WIDTH" <<<"$*" | sed 's/ *$//'; }
# The command about to run, as a user would type it ($SIM is the simulated node's directory).
cmd() { printf '%s$ %s%s\n' "$DIM" "$*" "$RESET"; }
fail() { echo "demo: $*" >&2; exit 1; }

# roced's log lines as "  HH:MM:SS.mmm level   message", the message wrapped under itself and a
# storm's counter evidence ("; last poll: ...") on a line of its own.
show_log() {
  awk -v width="$WIDTH" -v dir="$SIM_DIR" '
    function emit(prefix, text,    room, line, n, i, words) {
      room = width - length(prefix)
      if (room < 30) room = 30
      n = split(text, words, " ")
      line = ""
      for (i = 1; i <= n; i++) {
        if (line != "" && length(line) + 1 + length(words[i]) > room) {
          print prefix line
          prefix = sprintf("%" length(prefix) "s", "")
          line = words[i]
        } else {
          line = line == "" ? words[i] : line " " words[i]
        }
      }
      print prefix line
    }
    $1 ~ /^[0-9]+-[0-9]+-[0-9]+$/ && $2 ~ /^[0-9:.]+$/ {
      msg = $0
      sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", msg)
      while ((at = index(msg, dir)) > 0) msg = substr(msg, 1, at - 1) "$SIM" substr(msg, at + length(dir))
      prefix = sprintf("  %s %-7s ", $2, $3)
      at = index(msg, "; last poll: ")
      if (at > 0) {
        emit(prefix, substr(msg, 1, at - 1))
        emit(sprintf("%" length(prefix) "s", ""), substr(msg, at + 2))
      } else {
        emit(prefix, msg)
      }
      next
    }
    { print "  " $0 }'
}
# A command's output with the node's directory shown as $SIM and lines longer than the terminal
# wrapped at spaces, the continuation under the value column ("  name    value") or indented.
show_out() {
  awk -v width="$WIDTH" -v dir="$SIM_DIR" '
    {
      while ((at = index($0, dir)) > 0) $0 = substr($0, 1, at - 1) "$SIM" substr($0, at + length(dir))
      if (length($0) <= width) { print; next }
      if (match($0, /^ +[^ ]+  +/)) indent = RLENGTH
      else { match($0, /^ */); indent = RLENGTH + 4 }
      pad = sprintf("%" indent "s", "")
      rest = $0
      while (length(rest) > width) {
        cut = 0
        for (i = width + 1; i > indent + 10; i--) if (substr(rest, i, 1) == " ") { cut = i; break }
        if (!cut) break
        print substr(rest, 1, cut - 1)
        rest = substr(rest, cut + 1)
        sub(/^ +/, "", rest)
        rest = pad rest
      }
      print rest
    }'
}
log_lines() { wc -l <"$LOG"; }
log_since() { tail -n +"$(($1 + 1))" "$LOG"; }
# The first line of roced's log after line $1 matching the ERE $2 (status 1: none).
log_find() {
  awk -v from="$1" -v re="$2" 'NR > from && $0 ~ re { print; found = 1; exit } END { exit !found }' "$LOG"
}
# Waits (polling, up to $3 seconds) for a line matching the ERE $1 in roced's log after line $2.
wait_log() {
  local deadline=$(($(date +%s%3N) + $3 * 1000))
  until log_find "$2" "$1" >/dev/null; do
    (($(date +%s%3N) < deadline)) || return 1
    kill -0 "$ROCED_PID" 2>/dev/null || fail "roced exited; its log: $LOG"
    sleep 0.05
  done
}
# Polls COMMAND... until it succeeds, up to PATIENCE_S seconds (status 1: it never did).
wait_until() {
  local deadline=$(($(date +%s) + PATIENCE_S))
  until "$@"; do
    (($(date +%s) < deadline)) || return 1
    sleep 0.1
  done
}
# The epoch milliseconds of a roced log line (its first two fields: local date and time).
line_ms() { date -d "$(cut -d' ' -f1,2 <<<"$1")" +%s%3N; }
# The wall-clock epoch milliseconds of the node's scenario time $1 (seconds, as its log's "t=").
sim_time_ms() {
  python3 - "$SIM_DIR/roce-sim.clock" "$1" <<'PY'
import sys, time
clock = dict(line.split() for line in open(sys.argv[1]) if line.strip())
wall_minus_mono = time.time() - time.clock_gettime(time.CLOCK_MONOTONIC)
mono = int(clock["epoch_monotonic_ns"]) / 1e9 + float(sys.argv[2]) / float(clock["speed"])
print(round((wall_minus_mono + mono) * 1000))
PY
}
# The first line of the node's log after line $1 matching the ERE $2.
sim_log_find() {
  awk -v from="$1" -v re="$2" 'NR > from && $0 ~ re { print; found = 1; exit } END { exit !found }' \
    "$SIM_DIR/roce-sim.log"
}
# The node's count of write requests; a netlink request first settles it (docs/sim-formats.md).
writes() {
  "$BIN/roce-sim" exec "$SIM_DIR" -- ip link show "${PORTS%% *}" >/dev/null
  sed -n 's/^total //p' "$SIM_DIR/roce-sim.writes"
}
tool() {
  cmd "$*"
  local err status=0
  { err=$("$BIN/roce-sim" exec "$SIM_DIR" -- "$@" 2>&1 >&3) || status=$?; } 3>&1
  [[ -z $err ]] || printf '%s\n' "$err" >&2
  # Bookworm's dcb (iproute2 6.1) reads its get's ACK as the set's answer and reports EPROTO when
  # the two fall in different seconds; the set was applied (test/support/sim_exec.hpp).
  if [[ $1 == dcb && $status == 1 && $err == "Attribute write: Protocol error" ]]; then
    echo "(iproute2 6.1's known stale-ACK error, fixed in 6.2: the set was applied)"
    return 0
  fi
  return "$status"
}
# Runs a command whose exit status is part of the story: its output (the node's directory shown as
# $SIM), then RC set to its status.
capture() {
  RC=0
  "$@" >"$SIM_DIR/out.txt" 2>&1 || RC=$?
  show_out <"$SIM_DIR/out.txt"
}
pfc_prio3() { "$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc show dev "$1" prio-pfc | grep -o '3:o[nf]*'; }

# --- the node -----------------------------------------------------------------------------------
SIM_DIR="$(mktemp -d /tmp/roce-sim.XXXXXX)"
LOG="$SIM_DIR/roced.log"
ROCED_PID='' BUS_PID='' SIM_PID='' TAIL_PID=''
# shellcheck disable=SC2317  # called by the traps
cleanup() {
  for pid in $TAIL_PID $ROCED_PID $BUS_PID $SIM_PID; do
    { kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; } || true
  done
  rm -rf "$SIM_DIR"
}
trap cleanup EXIT

printf '%sroced demo: lossless RoCE v2 on simulated ConnectX-7 ports, made and kept so%s\n' \
  "$BOLD" "$RESET"
echo "(about ten seconds, then a summary; --run-on keeps it running, --help for more)"
# The node, its bus and roced run in sessions of their own (setsid), so that a Ctrl-C in the
# terminal reaches only this script, which then stops roced first and the node after it.
# Steady RoCE traffic on priority 3 of every port, so the counters in the metrics move. The node
# is roce-sim's default one with SR-IOV on lan2 (two VFs, as a Kubernetes node has them), to show
# that roced leaves functions it was not told to manage alone.
# Each port's cable ends at a switch port (leaf1 swpN) whose LLDP agrees with the profile; it
# sends every 5 s rather than 30 so the tour need not wait for it.
sed -e '/netdev: lan2$/,/addresses:/ s/^\(\s*\)addresses: .*$/&\n\1vfs: 2/' \
  -e 's/^\(\s*\)addresses: \[192\.168\.\([0-9]\)\.10\/24\]$/&\n\1switch: {system_name: leaf1, port_id: swp\2, pfc: [3], dscp: {26: 3, 48: 6}, max_frame_size: 9216, interval: 5s}/' \
  "$ROOT/sim/nodes/default.yaml" >"$SIM_DIR/node.yaml"
grep -q 'vfs: 2' "$SIM_DIR/node.yaml" || fail "could not give lan2 VFs in sim/nodes/default.yaml"
grep -q 'port_id: swp3' "$SIM_DIR/node.yaml" || fail "could not give lan3 a switch in sim/nodes/default.yaml"
setsid "$BIN/roce-sim" run --dir "$SIM_DIR" --node "$SIM_DIR/node.yaml" \
  --scenario "$ROOT/sim/scenarios/steady.yaml" >"$SIM_DIR/roce-sim.log" 2>&1 &
SIM_PID=$!
wait_until test -e "$SIM_DIR/roce-sim.pid" ||
  fail "roce-sim did not start: $(cat "$SIM_DIR/roce-sim.log")"
# The node's netdevs, as its write counter lists them: a VF is one whose device has a physfn
# link to its PF (what the kernel's sysfs shows, drivers/pci/iov.c), the others are its ports.
PORTS='' VFS=''
while read -r netdev _; do
  [[ $netdev == total ]] && continue
  if [[ -e $SIM_DIR/sys/class/net/$netdev/device/physfn ]]; then
    VFS+="${VFS:+ }$netdev"
  else
    PORTS+="${PORTS:+ }$netdev"
  fi
done <"$SIM_DIR/roce-sim.writes"
[[ -n $PORTS && -n $VFS ]] || fail "the node lists ports '$PORTS' and VFs '$VFS'"
NPORTS=$(wc -w <<<"$PORTS")
say "SIM=$SIM_DIR: the node's directory (roce-sim's default node: ports ${PORTS// /, }, with 80G of RoCE each way on priority 3, and lan2's VFs ${VFS// /, }). rocectl, roced and roce-sim are in $SHOWN_BIN/; dcb, ip and ethtool are Debian's own, reaching the node through 'roce-sim exec \$SIM --'."

step "The node as the firmware left it: lossy"
say "Firmware DCBX, PCP trust, no PFC, MTU 1500: RoCE drops packets under congestion and NCCL jobs stall on retransmits. The plan is what it takes, port by port; the shipped file selects every mlx5 port, and lan2's VFs, functions of a port, are left alone:"
cmd "rocectl --sim \$SIM plan --config packaging/roced.yaml"
rc=0
"$BIN/rocectl" --sim "$SIM_DIR" plan --config "$CONFIG" >"$SIM_DIR/plan.txt" 2>&1 || rc=$?
((rc == 2)) || { cat "$SIM_DIR/plan.txt"; fail "rocectl plan exited $rc, not 2 (changes pending)"; }
awk '/^[^ ]/ { full = ($1 ~ /^lan2/ || $1 == "not" || $1 == "disruptive:"); print; next } full' \
  "$SIM_DIR/plan.txt" | show_out
grep -q "^  lan2: 2 VFs" "$SIM_DIR/plan.txt" || fail "the plan does not list lan2's VFs as not managed"
echo "(exit 2: changes pending)"

step "A broken configuration is refused before it touches a port"
say "A typo, or a ToS that puts RoCE on a priority without PFC, would leave the fabric silently lossy. Two such mistakes in a copy of the shipped file:"
BAD="$SIM_DIR/broken.yaml"
sed -e 's/^\(\s*\)tos: 106/\1tos: 184/' -e 's/^\(\s*\)cable_length:/\1cable_lenght:/' \
  "$CONFIG" >"$BAD"
cmd "rocectl validate \$SIM/broken.yaml"
capture "$BIN/rocectl" validate "$BAD"
echo "(exit $RC)"
((RC == 1)) || fail "rocectl validate exited $RC on a broken file, not 1"

step "roced starts and applies the plan"
say "roced runs as its systemd unit would, here in the foreground: log on the console, D-Bus API on a private bus, metrics on $METRICS, PFC storm watchdog polling every 10 ms."
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
setsid dbus-daemon --config-file="$SIM_DIR/bus.conf" --nofork 2>/dev/null &
BUS_PID=$!
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$SIM_DIR/bus.sock"
wait_until test -S "$SIM_DIR/bus.sock" || fail "dbus-daemon did not start"
# The shipped configuration with the PFC storm watchdog acting (it only alerts by default): a 10 ms poll,
# RX storms remediated by turning PFC off on the priority, TX storms by tighter stall prevention; the
# NIC's health read every 2 s instead of 10 s and each optic every 2 s instead of a minute, so that
# its step takes seconds.
DEMO_CONFIG="$SIM_DIR/roced.yaml"
cat "$CONFIG" - >"$DEMO_CONFIG" <<'WATCHDOG'
watchdog:
  enabled: true
  poll_interval: 10ms
  detection_time: 50ms
  restoration_time: 500ms
  action: {rx: disable-pfc, tx: stall-prevention}
health:
  interval: 2s
  optics_interval: 2s
WATCHDOG
say "\$SIM/roced.yaml is packaging/roced.yaml with the storm watchdog (alerting only by default) set to act, and the NIC's health read every 2 s (10 s by default; each optic once a minute by default):"
sed -n '/^watchdog:/,$p' "$DEMO_CONFIG" | sed 's/^/    /'
cmd "roced --sim \$SIM --config \$SIM/roced.yaml --log-target console --metrics-listen $METRICS &"
writes_before=$(writes)
setsid "$BIN/roced" --sim "$SIM_DIR" --config "$DEMO_CONFIG" --log-target console \
  --metrics-listen "$METRICS" >"$LOG" 2>&1 &
ROCED_PID=$!
wait_log ' ready: ' 0 "$PATIENCE_S" || fail "roced did not get ready; its log: $(cat "$LOG")"
show_log <"$LOG"
APPLY_WRITES=$(($(writes) - writes_before))
CONFIGURED=$(grep -cE ' lan[0-9a-z]*: configured: ' "$LOG" || true)
APPLY_MS=$(($(line_ms "$(grep -m1 ' ready: ' "$LOG")") - $(line_ms "$(head -n1 "$LOG")")))
say "$CONFIGURED of $NPORTS ports configured, each step read back, from start to ready in $APPLY_MS ms; the node counted $APPLY_WRITES write requests."
((CONFIGURED == NPORTS)) || fail "roced configured $CONFIGURED of $NPORTS ports"

step "The result, as the standard tools read it"
say "dcb, ip and ethtool are the tools you already trust; they reach the simulated ports with the same netlink and ioctl bytes as a kernel's:"
tool dcb pfc show dev lan3 prio-pfc
tool dcb ets show dev lan3 prio-tc tc-bw tc-tsa
cmd "ip link show lan3     # its first line"
"$BIN/roce-sim" exec "$SIM_DIR" -- ip link show lan3 | sed -n 1p | show_out
tool ethtool --get-tunable lan3 pfc-prevention-tout

step "Apply again: nothing to write"
say "Ansible or cron may apply again at any time, and a PFC write flaps an mlx5 link: on a node in sync, apply must write nothing."
cmd "rocectl --sim \$SIM apply     # answered by the running roced, over D-Bus"
writes_before=$(writes)
capture "$BIN/rocectl" --sim "$SIM_DIR" apply
SECOND_WRITES=$(($(writes) - writes_before))
echo "(exit $RC) write requests the node received: $SECOND_WRITES"
((RC == 0)) || fail "the second apply exited $RC"

step "Drift: another tool turns PFC off on lan4"
say "A vendor script or a willing DCBX peer changing PFC leaves one GPU's traffic lossy: a job slows down and nobody knows why. roced hears the netlink event and puts it back:"
from=$(log_lines)
tool dcb pfc set dev lan4 prio-pfc 3:off
DRIFT_SET_MS=$(date +%s%3N)
wait_log 'lan4: corrected: ' "$from" "$PATIENCE_S" ||
  fail "roced did not correct lan4 within $PATIENCE_S s"
log_since "$from" | show_log
DRIFT_MS=$(($(line_ms "$(log_find "$from" 'lan4: corrected: ')") - DRIFT_SET_MS))
DRIFT_PFC=$(pfc_prio3 lan4)
tool dcb pfc show dev lan4 prio-pfc
say "PFC on priority 3 back on lan4 $DRIFT_MS ms after 'dcb pfc set' returned."

step "A PFC storm on lan3: detected, remediated, restored"
say "A NIC or switch stuck sending pauses freezes priority 3 and the pause spreads through the fabric, hanging every job behind it. The node plays a ${STORM_S} s RX storm (the switch pauses lan3 without end):"
cat >"$SIM_DIR/storm.yaml" <<STORM
name: storm-now
events:
  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: ${STORM_S}s}
STORM
say "\$SIM/storm.yaml:"
sed 's/^/    /' "$SIM_DIR/storm.yaml"
# roced's PFC write at its start flapped lan3 (mlx5_toggle_port_link) and a 400G link trains for
# seconds: a storm played into a link that is down would pause nothing until it is back.
# shellcheck disable=SC2317  # called through wait_until
carrier_up() { [[ $(cat "$SIM_DIR/sys/class/net/lan3/carrier" 2>/dev/null) == 1 ]]; }
wait_until carrier_up || fail "lan3 has no carrier after $PATIENCE_S s"
# The storm's log line names the switch port once roced has heard lan3's switch (every 5 s).
wait_log 'lan3: LLDP: switch leaf1 port swp3' 0 "$PATIENCE_S" ||
  fail "roced did not hear lan3's switch within $PATIENCE_S s"
cmd "roce-sim inject \$SIM \$SIM/storm.yaml"
from=$(log_lines)
sim_from=$(wc -l <"$SIM_DIR/roce-sim.log")
"$BIN/roce-sim" inject "$SIM_DIR" "$SIM_DIR/storm.yaml"
wait_log 'lan3: PFC storm .* (stopped it|did not stop it|not remediated)' "$from" "$PATIENCE_S" ||
  fail "roced did not act on the storm within $PATIENCE_S s; its log: $(log_since "$from")"
# Read at once, while the storm lasts.
storm_read=$("$BIN/roce-sim" exec "$SIM_DIR" -- dcb pfc show dev lan3 prio-pfc)
read_done_ms=$(date +%s%3N)
STORM_PFC=$(grep -o '3:o[nf]*' <<<"$storm_read")
shown=$(log_lines)
storm_begins=$(sim_log_find "$sim_from" 'lan3: PFC storm \(rx\) on priority 3 begins') ||
  fail "the node did not log the storm's start"
onset_ms=$(sim_time_ms "$(sed -n 's/^t=\([0-9.]*\)s .*/\1/p' <<<"$storm_begins")")
# By the node's clock, not by which log line came first (roced may write PFC back before it logs
# the storm's end): a read answered before the restoration time had passed since the storm's end
# must find PFC off; a later one may find it back on, which says nothing, so it is not shown.
if [[ $STORM_PFC != "3:off" ]] && ((read_done_ms >= onset_ms + STORM_S * 1000 + RESTORATION_MS)); then
  STORM_PFC="over"
fi
say "The node's log: $storm_begins. roced's:"
head -n "$shown" "$LOG" | tail -n +"$((from + 1))" | show_log
detected_line=$(log_find "$from" 'lan3: PFC storm on priority 3 RX.*detected [0-9.]+ ms after it began') ||
  fail "no detection line in roced's log"
STORM_LATENCY=$(sed -n 's/.*detected \([0-9.]*\) ms after it began.*/\1/p' <<<"$detected_line")
# LLDP names the switch port at the cable's other end: where to look next.
STORM_SWITCH=$(sed -n 's/.*(switch \([^)]*\))$/\1/p' <<<"$detected_line")
STORM_SWITCH=${STORM_SWITCH:-not named}
VERIFY_POLLS=$(log_find "$from" 'lan3: PFC storm on priority 3 RX.*: disable-pfc stopped it' |
  sed -n 's/.*disable-pfc stopped it (checked over \([0-9]*\) polls).*/\1/p')
[[ -n "$VERIFY_POLLS" ]] || fail "the remediation was not verified; roced's log: $(log_since "$from")"
if [[ "$STORM_PFC" == "over" ]]; then
  say "(this machine is slow right now: the storm was over before it could be shown)"
else
  say "While it lasts lan3 has PFC off on priority 3 (it ignores the pauses and sends again), and the reconciler holds that state instead of \"correcting\" it:"
  cmd "dcb pfc show dev lan3 prio-pfc     # run as soon as the action was verified"
  echo "$storm_read"
  cmd "rocectl --sim \$SIM plan --port lan3"
  capture "$BIN/rocectl" --sim "$SIM_DIR" plan --port lan3
  say "... the storm goes on for ${STORM_S} s; roced restores PFC once no pause frame came for $RESTORATION_MS ms:"
fi
wait_log 'lan3: PFC storm on priority 3 RX.* ended: it lasted' "$from" "$PATIENCE_S" ||
  fail "roced did not see the storm end within $PATIENCE_S s"
# shellcheck disable=SC2317  # called through wait_until
pfc_back() { [[ "$(pfc_prio3 lan3)" == "3:on" ]]; }
wait_until pfc_back || fail "PFC on lan3 priority 3 was not put back"
storm_ends=$(sim_log_find "$sim_from" 'lan3: PFC storm \(rx\) on priority 3 ends') ||
  fail "the node did not log the storm's end"
say "The node's log: $storm_ends. roced's:"
log_since "$shown" | show_log
RESTORED_PFC=$(pfc_prio3 lan3)
tool dcb pfc show dev lan3 prio-pfc
ended_line=$(log_find "$from" 'ended: it lasted')
# On the node's clock (its log's t=, DIR/roce-sim.clock): when the storm ended.
end_ms=$(sim_time_ms "$(sed -n 's/^t=\([0-9.]*\)s .*/\1/p' <<<"$storm_ends")")
DETECT_LOGGED_MS=$(($(line_ms "$detected_line") - onset_ms))
RESTORE_MS=$(($(line_ms "$ended_line") - end_ms))
say "roced put the configuration back $RESTORE_MS ms after the storm ended (by the node's clock)."

step "The switch's side: a switch port that disagrees"
say "Each cable ends at a switch port. If the switch runs PFC on another priority, or maps RoCE's DSCP elsewhere, RoCE is lossy though the host is right, and neither side shows it alone. roced listens to the LLDP each switch port sends (it sends nothing). The node's switches agree with the profile (\$SIM/node.yaml gives each port one); roced heard them once it had set DCBX host mode:"
grep -E ': LLDP: switch ' "$LOG" | show_log
grep -q 'lan3: LLDP: switch leaf1 port swp3' "$LOG" || fail "roced did not hear lan3's switch"
say "Then someone changes the QoS policy on lan3's switch port to PFC and DSCP 26 on priority 4:"
cat >"$SIM_DIR/switch-lan3.yaml" <<'SWITCH'
name: switch-lan3
events:
  - {at: 0s, kind: switch, port: lan3, pfc: [4], dscp: {26: 4, 48: 6}}
SWITCH
sed 's/^/    /' "$SIM_DIR/switch-lan3.yaml"
cmd "roce-sim inject \$SIM \$SIM/switch-lan3.yaml"
from=$(log_lines)
SWITCH_SET_MS=$(date +%s%3N)
"$BIN/roce-sim" inject "$SIM_DIR" "$SIM_DIR/switch-lan3.yaml"
wait_log 'lan3: switch leaf1 swp3: PFC priorities differ: host 3, switch 4' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan3's PFC mismatch within $PATIENCE_S s; its log: $(log_since "$from")"
wait_log 'lan3: switch leaf1 swp3: DSCP map differs' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan3's DSCP mismatch within $PATIENCE_S s"
log_since "$from" | show_log
MISMATCH_MS=$(($(line_ms "$(log_find "$from" 'PFC priorities differ: host 3, switch 4')") - SWITCH_SET_MS))
cmd "rocectl status --port lan3"
capture "$BIN/rocectl" --sim "$SIM_DIR" status --port lan3
MISMATCH_STATUS=$(grep -c '^  critical: switch_' "$SIM_DIR/out.txt" || true)
((RC == 0)) || fail "rocectl status exited $RC"
say "Named $MISMATCH_MS ms after the switch changed; roced changed nothing on lan3 because of it (the alert RocePeerMismatch and the dashboard's switch row show it too)."

step "The NIC's own health: a PCIe link that trained down, an optic that errs, one that dims"
say "A NIC whose PCIe link trained at x8 instead of x16 carries half its line rate, and no error counter moves; an optic going bad loses frames that RoCE quietly retransmits. A lane of an optic whose light fades (a dirty fibre, a dying laser at the far end) still carries frames until it suddenly does not. Every RoCE metric above reads healthy in all three cases. roced reads each managed port's PCIe link from sysfs and its PHY counters from the watchdog's latest reading every health.interval, and its optic's memory (SFF-8636, through ethtool netlink) every health.optics_interval, never on a scrape, and judges them by NVSentinel's thresholds (above 10 uncorrectable symbol errors a second, above 120 an hour) and the optic's own alarm thresholds. Now lan4's link retrains at x8, lan5's optic starts to err and lane 2 of lan2's optic receives -14 dBm:"
cat >"$SIM_DIR/health.yaml" <<'HEALTH'
name: nic-health
events:
  - {at: 0s, kind: pcie_retrain, port: lan4, width: 8}
  - {at: 0s, kind: phy_errors, port: lan5, duration: 10m, symbol_error_rate: 50, corrected_bit_rate: 1e7}
  - {at: 0s, kind: optic_degrade, port: lan2, duration: 10m, lane: 2, rx_power_dbm: -14}
HEALTH
sed 's/^/    /' "$SIM_DIR/health.yaml"
cmd "roce-sim inject \$SIM \$SIM/health.yaml"
from=$(log_lines)
HEALTH_SET_MS=$(date +%s%3N)
"$BIN/roce-sim" inject "$SIM_DIR" "$SIM_DIR/health.yaml"
wait_log 'lan4: pcie_link_degraded: PCIe link trained at 32.0 GT/s x8' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan4's PCIe link within $PATIENCE_S s; its log: $(log_since "$from")"
wait_log 'lan5: phy_symbol_error_rate: ' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan5's symbol errors within $PATIENCE_S s; its log: $(log_since "$from")"
wait_log 'lan5: phy_symbol_errors_per_hour: ' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan5's hour of symbol errors within $PATIENCE_S s; its log: $(log_since "$from")"
wait_log 'lan2: transceiver_alarm: ' "$from" "$PATIENCE_S" ||
  fail "roced did not name lan2's optic within $PATIENCE_S s; its log: $(log_since "$from")"
log_since "$from" | show_log
PCIE_MS=$(($(line_ms "$(log_find "$from" 'pcie_link_degraded')") - HEALTH_SET_MS))
PHY_MS=$(($(line_ms "$(log_find "$from" 'phy_symbol_error_rate')") - HEALTH_SET_MS))
OPTIC_MS=$(($(line_ms "$(log_find "$from" 'transceiver_alarm')") - HEALTH_SET_MS))
cmd "rocectl status --port lan4"
capture "$BIN/rocectl" --sim "$SIM_DIR" status --port lan4
PCIE_STATUS=$(grep -c '^  warning: pcie_link_degraded' "$SIM_DIR/out.txt" || true)
((RC == 0)) || fail "rocectl status exited $RC"
cmd "rocectl status --port lan5"
capture "$BIN/rocectl" --sim "$SIM_DIR" status --port lan5
PHY_STATUS=$(grep -cE '^  (warning|critical): phy_symbol_error' "$SIM_DIR/out.txt" || true)
((RC == 0)) || fail "rocectl status exited $RC"
cmd "rocectl status --port lan2"
capture "$BIN/rocectl" --sim "$SIM_DIR" status --port lan2
OPTIC_STATUS=$(grep -c '^  critical: transceiver_alarm' "$SIM_DIR/out.txt" || true)
((RC == 0)) || fail "rocectl status exited $RC"
say "Each named within two readings of its start, lan5 first for its rate and a reading later for the hour's count above 120, lan2's optic with the lane, its power and the module's serial (the alerts RocePcieLinkDegraded, RocePhySymbolErrorRate, RocePhySymbolErrorsPerHour and RoceTransceiverAlarm and the dashboard's health row show them too); lan3 is as built. The hour's count is kept in \$STATE_DIRECTORY/health.json across a restart."

step "Metrics, D-Bus, and a clean stop"
say "All of it is in Prometheus (docs/metrics.md; Grafana dashboard and alert rules in packaging/) and on D-Bus (docs/dbus.md). A scrape asks the NICs' firmware nothing: it serves the storm watchdog's latest reading of each port (at most metrics.max_sample_age old) and the RDMA counters roced reads every metrics.rdma_interval:"
cmd "curl -s $METRICS_URL"
curl -sf "$METRICS_URL" >"$SIM_DIR/metrics.txt" || fail "no answer from $METRICS_URL"
SERIES=$(grep -vc '^#' "$SIM_DIR/metrics.txt")
echo "$SERIES series; among them:"
grep -E '^(roced_finding\{netdev="lan3",id="switch_pfc_priorities"|roced_finding\{netdev="lan4",id="pcie_link_degraded"|roced_finding\{netdev="lan5",id="phy_symbol_error_rate"|roce_phy_symbol_errors_total\{netdev="lan5"|roce_pcie_link_width\{netdev="lan4"|roced_lldp_peer_info\{netdev="lan3"|roce_config_in_sync\{netdev="lan4",setting="pfc.priorities"|roce_config_corrections_total\{netdev="lan4",setting="pfc.priorities"|roce_priority_bytes_total\{netdev="lan2".*direction="tx",priority="3"|roce_pfc_storm_(detections|restorations)_total\{netdev="lan3",priority="3",direction="rx"|roce_pfc_storm_actions_total\{netdev="lan3",priority="3",direction="rx",action="disable-pfc",result="ok"|roce_pfc_storm_detection_latency_seconds_(sum|count)\{netdev="lan3",priority="3",direction="rx")' \
  "$SIM_DIR/metrics.txt" | sed 's/^/  /'
cmd "busctl call io.roced.Daemon1 /io/roced/Daemon1 io.roced.Daemon1 GetStorms"
busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" --json=short call io.roced.Daemon1 /io/roced/Daemon1 \
  io.roced.Daemon1 GetStorms >"$SIM_DIR/storms.json" || fail "GetStorms failed"
python3 - "$SIM_DIR/storms.json" >"$SIM_DIR/storms.txt" <<'PY'
import json, sys
doc = json.loads(json.loads(open(sys.argv[1]).read())["data"][0])
s = next(s for s in doc["storms"] if s["netdev"] == "lan3" and s["priority"] == 3 and s["direction"] == "rx")
actions = ", ".join("%s ok %d failed %d" % (a, n["ok"], n["failed"]) for a, n in s["actions"].items())
print("  %s priority %d %s: active %s, detections %d, restorations %d" % (
    s["netdev"], s["priority"], s["direction"], str(s["active"]).lower(), s["detections"],
    s["restorations"]))
print("  actions: %s" % actions)
print("  mean_detection_latency_ms: %.2f" % s["mean_detection_latency_ms"])
PY
cat "$SIM_DIR/storms.txt"
DBUS_LATENCY=$(sed -n 's/.*mean_detection_latency_ms: //p' "$SIM_DIR/storms.txt")

stop_roced() {
  local from rc=0
  from=$(log_lines)
  cmd "kill -TERM \$(pidof roced)"
  kill -TERM "$ROCED_PID" 2>/dev/null || true
  wait "$ROCED_PID" || rc=$?
  ROCED_PID=''
  log_since "$from" | show_log
  echo "roced exited $rc"
  STOP="SIGTERM, exit $rc"
  return "$rc"
}

# The write requests the node counted for its VFs (none, if roced left them alone).
vf_writes() {
  local vf total=0
  writes >/dev/null  # settles the counter
  for vf in $VFS; do
    total=$((total + $(sed -n "s/^$vf //p" "$SIM_DIR/roce-sim.writes")))
  done
  echo "$total"
}
fmt_s() { printf '%d.%d s' $(($1 / 1000)) $(($1 % 1000 / 100)); }
summary() {
  local now
  now=$(date +%s%3N)
  printf '\n%sSUMMARY%s (measured in this run)\n' "$BOLD" "$RESET"
  printf '  %-20s %s\n' \
    "ports configured" "$CONFIGURED of $NPORTS ($PORTS), $APPLY_WRITES write requests, ready in $APPLY_MS ms" \
    "second apply" "$SECOND_WRITES write requests" \
    "VFs left alone" "$(wc -w <<<"$VFS") ($VFS), $(vf_writes) write requests" \
    "drift corrected" "lan4 PFC put back $DRIFT_MS ms after 'dcb pfc set' returned (read back: $DRIFT_PFC)" \
    "storm detected" "lan3 prio 3 RX: $STORM_LATENCY ms after onset (D-Bus: $DBUS_LATENCY ms; node clock: +$DETECT_LOGGED_MS ms)" \
    "storm's switch port" "$STORM_SWITCH" \
    "remediation" "disable-pfc (read back: $STORM_PFC), verified: the storm stopped within $VERIFY_POLLS polls" \
    "restored" "$RESTORE_MS ms after the storm ended (read back: $RESTORED_PFC)" \
    "switch mismatch" "lan3's switch PFC on 4 named $MISMATCH_MS ms after it changed ($MISMATCH_STATUS mismatches in rocectl status)" \
    "NIC health" "lan4's PCIe link at x8 of x16 named $PCIE_MS ms after it retrained ($PCIE_STATUS finding in rocectl status)" \
    "optic errors" "lan5's 50 symbol errors a second named $PHY_MS ms after they began ($PHY_STATUS findings in rocectl status)" \
    "optic fading" "lan2's lane 2 at -14 dBm named $OPTIC_MS ms after it dimmed ($OPTIC_STATUS finding in rocectl status)" \
    "metrics" "$SERIES series at $METRICS_URL" \
    "roced" "$STOP" \
    "demo time" "$(fmt_s $((now - T_TOUR)))$( ((BUILD)) && echo " (setup and build before it: $(fmt_s $((T_TOUR - T_START))))")" \
    "machine" "$(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) (other work slows what roced measures)" |
    summary_lines
}
# On a terminal, a summary value too long for it goes on under itself; in a pipe (a log, a test)
# every item stays on one line.
summary_lines() {
  if [[ ! -t 1 ]]; then
    cat
    return
  fi
  awk -v width="$WIDTH" '
    {
      pad = sprintf("%23s", "")
      line = substr($0, 1, 23)
      n = split(substr($0, 24), words, " ")
      room = width - 23
      text = ""
      for (i = 1; i <= n; i++) {
        if (text != "" && length(text) + 1 + length(words[i]) > room) {
          print line text
          line = pad
          text = words[i]
        } else {
          text = text == "" ? words[i] : text " " words[i]
        }
      }
      print line text
    }'
}

if ((!RUN_ON)); then
  stop_roced || fail "roced did not stop cleanly"
  summary
  exit 0
fi

STOP="still running (--run-on)"
summary
printf '\n%sroced keeps running (--run-on); Ctrl-C stops it%s\n' "$BOLD" "$RESET"
printf '  %-8s %s\n' "metrics" "$METRICS_URL" "D-Bus" "$DBUS_SYSTEM_BUS_ADDRESS (io.roced.Daemon1)"
echo "Try from another terminal, in $ROOT:"
# Unexpanded on purpose: $SIM is for the other terminal's shell, set on the first line.
# shellcheck disable=SC2016
printf '  %-70s %s\n' \
  "SIM=$SIM_DIR" "" \
  "$SHOWN_BIN/rocectl --sim \$SIM status" "" \
  "$SHOWN_BIN/roce-sim exec \$SIM -- dcb pfc set dev lan2 prio-pfc 3:off" "# a drift" \
  "$SHOWN_BIN/roce-sim inject \$SIM \$SIM/storm.yaml" "# another storm on lan3" \
  "curl -s $METRICS_URL | grep '^roce_pfc_storm'" "" | sed 's/ *$//'
echo "  busctl --address=unix:path=\$SIM/bus.sock call io.roced.Daemon1 /io/roced/Daemon1 io.roced.Daemon1 GetStorms"
echo "roced's log from here on:"
# One awk per line: mawk would hold a pipe's lines back in its buffers. tail ends with roced.
tail -n 0 -f --pid="$ROCED_PID" "$LOG" | while IFS= read -r line; do show_log <<<"$line"; done &
TAIL_PID=$!
STOPPING=0
# shellcheck disable=SC2317  # called by the trap
on_interrupt() {
  ((STOPPING)) && return
  STOPPING=1
  echo
  echo "stopping roced with SIGTERM, as systemctl stop would"
  local rc=0
  kill -TERM "$ROCED_PID" 2>/dev/null || true
  wait "$ROCED_PID" || rc=$?
  ROCED_PID=''
  wait "$TAIL_PID" 2>/dev/null || true
  TAIL_PID=''
  echo "roced exited $rc"
  exit $((rc != 0))
}
trap on_interrupt INT TERM
# wait returns early when a trapped signal arrives; roced ending by itself is an error.
while [[ -n "$ROCED_PID" ]] && kill -0 "$ROCED_PID" 2>/dev/null; do
  wait "$ROCED_PID" 2>/dev/null || true
done
fail "roced stopped on its own; its log: $LOG"
