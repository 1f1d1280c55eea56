#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# unit_sandbox_checks.sh NODE OUT PORT — a oneshot unit of the system unit_sandbox_test.sh boots.
# Every check prints "ok ..." or "FAIL ..." to OUT/log; OUT/status says "passed" only when all held.
NODE=$1 OUT=$2 PORT=$3
mkdir -p "$OUT"
exec >"$OUT/log" 2>&1
failed=0
ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
check() {  # check WHAT EXPECTED ACTUAL
  if [[ $2 == "$3" ]]; then ok "$1: $3"; else fail "$1: expected '$2', got '$3'"; fi
}
finish() {
  journalctl --no-pager -o short-monotonic -u roced -u roce-sim -u roced-probe \
    -u roced-probe-unconfined >"$OUT/journal" 2>&1 || true
  echo "$failed failed"
  if ((failed == 0)); then echo passed >"$OUT/status"; else echo failed >"$OUT/status"; fi
}
trap finish EXIT
ROCE_SIM=$(systemctl show -p ExecStart --value roce-sim | sed -n 's/.*path=\([^ ;]*\).*/\1/p')
sim() { "$ROCE_SIM" exec "$NODE" -- "$@"; }

# 1. roced started under the unit (Type=notify: active means it sent READY=1) and did its work.
check "roced active (READY=1 received)" active "$(systemctl is-active roced)"
PID=$(systemctl show -p MainPID --value roced)
# The first reconcile may still be running. A minute only stops a hang: a busy machine is slow.
in_sync_by=$((SECONDS + 60))
until [[ $(busctl --system call io.roced.Daemon1 /io/roced/Daemon1 io.roced.Daemon1 GetStatus \
  2>/dev/null | grep -o in-sync | wc -l) == 4 ]] || ((SECONDS >= in_sync_by)); do
  sleep 0.1
done
check "PFC on lan2 through the simulated node (dcb pfc show)" "3:on" \
  "$(sim dcb pfc show dev lan2 prio-pfc | grep -o '3:on')"
check "MTU of lan3 (ip link)" 9000 "$(sim ip -o link show lan3 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')"
status=$(busctl --system call io.roced.Daemon1 /io/roced/Daemon1 io.roced.Daemon1 GetStatus 2>&1)
check "GetStatus on the system bus: ports in sync" 4 "$(grep -o 'in-sync' <<<"$status" | wc -l)"
check "metrics endpoint answers" 200 \
  "$(curl -s -o /dev/null -w '%{http_code}' --max-time 60 http://127.0.0.1:$PORT/metrics)"
refused=$(setpriv --reuid=nobody --regid=nogroup --clear-groups rocectl --sim "$NODE" apply 2>&1
  echo "exit $?")
if grep -q "AccessDenied\|not allowed\|denied" <<<"$refused" && ! grep -q "exit 0" <<<"$refused"; then
  ok "nobody's rocectl apply refused on the system bus"
else
  fail "nobody's rocectl apply: $refused"
fi

# 2. The sandbox is in force on the running roced.
field() { sed -n "s/^$1:[[:space:]]*//p" "/proc/$PID/status"; }
check "CapBnd (CAP_NET_ADMIN and CAP_NET_RAW only)" 0000000000003000 "$(field CapBnd)"
check "CapEff" 0000000000003000 "$(field CapEff)"
check "NoNewPrivs" 1 "$(field NoNewPrivs)"
check "Seccomp (filter mode)" 2 "$(field Seccomp)"
root_opts=$(awk '$5 == "/" {print $6}' "/proc/$PID/mountinfo" | head -1)
check "/ read-only for roced" ro "${root_opts%%,*}"
usr_writable=$(nsenter -t "$PID" -m -r -w sh -c 'touch /usr/.roced-probe 2>/dev/null && echo yes || echo no')
check "/usr writable in roced's mount namespace" no "$usr_writable"
node_writable=$(nsenter -t "$PID" -m -r -w sh -c "touch $NODE/.roced-probe 2>/dev/null && echo yes || echo no")
check "the node's directory writable (ReadWritePaths)" yes "$node_writable"
check "/home in roced's namespace is empty" "" "$(nsenter -t "$PID" -m -r -w ls -A /home 2>/dev/null)"
[[ $(stat -L -c %i /proc/1/root/tmp) != $(nsenter -t "$PID" -m -r -w stat -c %i /tmp) ]] &&
  ok "roced's /tmp is private" || fail "roced's /tmp is the system's"

# 3. What a compromised roced could try, under the same sandbox and unconfined (the control: the
# probe must see each escape where nothing stops it).
systemctl start roced-probe.service roced-probe-unconfined.service
for unit in roced-probe roced-probe-unconfined; do
  log=$(journalctl --no-pager -o cat -u "$unit" | grep -E '^(allowed|denied) ')
  echo "--- $unit:"
  sed 's/^/     /' <<<"$log"
  escapes=$(grep -c ' escape: ' <<<"$log")
  check "$unit: escapes tried" "$([[ $unit == roced-probe ]] && echo 9 || echo 6)" "$escapes"
  if [[ $unit == roced-probe ]]; then
    check "$unit: escapes allowed under the unit's sandbox" 0 "$(grep -c '^allowed escape' <<<"$log")"
    check "$unit: roced's own needs allowed" 3 "$(grep -c '^allowed need' <<<"$log")"
  else
    check "$unit: escapes allowed with no sandbox" 6 "$(grep -c '^allowed escape' <<<"$log")"
  fi
done

# 4. systemctl reload runs the unit's ExecReload (rocectl reload over D-Bus, inside the sandbox):
# a good file reloads; a broken one fails the reload, roced keeps running and says why.
check "systemctl reload, good file" 0 "$(systemctl reload roced >/dev/null 2>&1; echo $?)"
cp /etc/roced/roced.yaml /etc/roced/roced.yaml.good
printf 'profile:\n  mtu: lots\n' >>/etc/roced/roced.yaml
check "systemctl reload, broken file: fails" 1 "$(systemctl reload roced >/dev/null 2>&1; echo $?)"
check "roced still active after it" active "$(systemctl is-active roced)"
status_text=$(systemctl show -p StatusText --value roced)
if grep -q "reload failed, running the previous configuration" <<<"$status_text"; then
  ok "STATUS= says the reload failed"
else
  fail "STATUS= after the failed reload: $status_text"
fi
check "roced_config_last_reload_successful" "roced_config_last_reload_successful 0" \
  "$(curl -s --max-time 60 http://127.0.0.1:$PORT/metrics | grep '^roced_config_last_reload_successful ')"
mv /etc/roced/roced.yaml.good /etc/roced/roced.yaml
check "systemctl reload, fixed file" 0 "$(systemctl reload roced >/dev/null 2>&1; echo $?)"
