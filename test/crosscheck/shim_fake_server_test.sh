#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The shim against fake_sim_server.py (no roce-sim needed): socket emulation call by call
# (shim_probe), then ip and ethtool through it, and the kernel's own interfaces left alone.
# Usage: shim_fake_server_test.sh SHIM PROBE
SHIM=$1
PROBE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"

start_sim python3 "$HERE/fake_sim_server.py"

sim "$PROBE" || fail "shim_probe"

out=$(sim ip -j link show) || fail "ip -j link show"
assert_eq "ip link: names" "lan2" "$(jq -r '.[].ifname' <<<"$out")"
assert_eq "ip link: lan2 mtu" "1500" "$(jq -r '.[] | select(.ifname=="lan2") | .mtu' <<<"$out")"
out=$(sim ip -j link show dev lan2) || fail "ip -j link show dev lan2"
assert_eq "ip link dev lan2: ifindex" "7" "$(jq -r '.[0].ifindex' <<<"$out")"

# dcb goes through libmnl (bind with port 0, getsockname, sendto, recvmsg): the fake server
# answers EOPNOTSUPP, which dcb only reports if the reply's port id and sequence matched.
out=$(sim dcb pfc show dev lan2 2>&1) && fail "dcb pfc show succeeded against the fake server"
assert_eq "dcb through libmnl" "Attribute read: Operation not supported" "$out"

out=$(sim ethtool -i lan2) || fail "ethtool -i"
assert_contains "ethtool -i" "driver: mlx5_core" "$out"
assert_contains "ethtool -i" "bus-info: 0000:17:00.0" "$out"
out=$(sim ethtool -S lan2) || fail "ethtool -S"
assert_contains "ethtool -S" "rx_prio3_pause: 42" "$out"

sim ethtool --set-tunable lan2 pfc-prevention-tout 100 || fail "set-tunable 100"
assert_eq "tunable after 100" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"
sim ethtool --set-tunable lan2 pfc-prevention-tout 50 2>/dev/null && fail "set-tunable 50 accepted"
assert_eq "tunable after 50" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"

# Not a sim port, not NETLINK_ROUTE: the real kernel answers, exactly as without the shim.
assert_eq "ethtool -k lo (genetlink) unchanged" "$(ethtool -k lo 2>&1)" "$(sim ethtool -k lo 2>&1)"
assert_eq "ethtool -i lo (ioctl) unchanged" "$(ethtool -i lo 2>&1)" "$(sim ethtool -i lo 2>&1)"
# Without ROCE_SIM_DIR the shim is inert: ip sees the host's lo.
out=$(LD_PRELOAD="$SHIM" ip -j link show dev lo) || fail "ip without ROCE_SIM_DIR"
assert_eq "inert shim: lo" "lo" "$(jq -r '.[0].ifname' <<<"$out")"
echo "PASS"
