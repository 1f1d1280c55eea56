#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `ethtool` 6.1 (ioctl SIOCETHTOOL) against roce-sim's default node through the shim.
# Usage: roce_sim_ethtool_test.sh ROCE_SIM SHIM
ROCE_SIM=$1
SHIM=$2
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
start_sim "$ROCE_SIM" run --dir

out=$(sim ethtool -i lan2) || fail "ethtool -i lan2"
assert_contains "ethtool -i lan2" "driver: mlx5_core" "$out"
assert_contains "ethtool -i lan2" "firmware-version: 28.39.1002" "$out"
assert_contains "ethtool -i lan2" "bus-info: 0000:17:00.0" "$out"
assert_contains "ethtool -i lan5" "bus-info: 0000:d3:00.0" "$(sim ethtool -i lan5)"

# Per-priority pause counters appear for PFC-enabled priorities only (mlx5e_grp_per_prio_pfc).
out=$(sim ethtool -S lan2) || fail "ethtool -S lan2"
assert_not_contains "ethtool -S before PFC" "rx_prio3_pause:" "$out"
sim dcb pfc set dev lan2 prio-pfc 3:on
out=$(sim ethtool -S lan2) || fail "ethtool -S lan2"
assert_contains "ethtool -S after PFC on 3" "rx_prio3_pause:" "$out"
assert_not_contains "ethtool -S after PFC on 3" "rx_prio4_pause:" "$out"

# PFC storm prevention (mlx5e_set_pfc_prevention_tout: 0, 80..8000 ms or 0xffff=auto).
sim ethtool --get-tunable lan2 pfc-prevention-tout >/dev/null || fail "get-tunable"
sim ethtool --set-tunable lan2 pfc-prevention-tout 100 || fail "set-tunable 100"
assert_eq "tunable after 100" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"
sim ethtool --set-tunable lan2 pfc-prevention-tout 50 2>/dev/null && fail "set-tunable 50 accepted"
assert_eq "tunable after refused 50" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"
echo PASS
