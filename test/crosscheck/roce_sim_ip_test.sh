#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ip` (iproute2 6.1, rtnetlink) against roce-sim's default node through the shim.
# Usage: roce_sim_ip_test.sh ROCE_SIM SHIM
ROCE_SIM=$1
SHIM=$2
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
start_sim "$ROCE_SIM" run --dir

out=$(sim ip link show) || fail "ip link show"
for port in lan2 lan3 lan4 lan5; do
  assert_contains "ip link show" "$port: " "$out"
done
assert_eq "ip -j link show: lan2..lan5 mtu" '[["lan2",1500],["lan3",1500],["lan4",1500],["lan5",1500]]' \
  "$(json "link dump" '[.[] | select(.ifname | test("^lan")) | [.ifname, .mtu]] | sort' ip -j link show)"
assert_eq "lan3 mtu at start" 1500 "$(json "lan3" '.[0].mtu' ip -j link show dev lan3)"

sim ip link set dev lan3 mtu 9000 || fail "ip link set dev lan3 mtu 9000"
assert_eq "lan3 mtu after set 9000" 9000 "$(json "lan3" '.[0].mtu' ip -j link show dev lan3)"
assert_eq "lan2 untouched" 1500 "$(json "lan2" '.[0].mtu' ip -j link show dev lan2)"

# Above max_mtu: refused (dev_validate_mtu). Check by reading back, and the exit code.
sim ip link set dev lan3 mtu 20000 2>/dev/null && fail "mtu 20000 accepted"
assert_eq "lan3 mtu after refused 20000" 9000 "$(json "lan3" '.[0].mtu' ip -j link show dev lan3)"

# The sysfs tree follows the model.
assert_eq "sys/class/net/lan3/mtu" 9000 "$(cat "$SIM_DIR/sys/class/net/lan3/mtu")"
echo PASS
