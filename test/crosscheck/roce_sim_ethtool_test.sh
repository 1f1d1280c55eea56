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

# 802.3x global pause (mlx5e_ethtool_get/set_pauseparam). ethtool 6.1 asks its genetlink family
# first; naming a simulated port it gets no genetlink socket from the shim and takes the ioctl.
pause() { printf 'Pause parameters for %s:\nAutonegotiate:\toff\nRX:\t\t%s\nTX:\t\t%s' "$1" "$2" "$3"; }
assert_eq "ethtool -a on a fresh port" "$(pause lan3 on on)" "$(sim ethtool -a lan3)"
sim ethtool -A lan3 rx off tx off || fail "ethtool -A lan3 rx off tx off"
assert_eq "ethtool -a after rx off tx off" "$(pause lan3 off off)" "$(sim ethtool -a lan3)"
sim ethtool -A lan3 rx on tx on || fail "ethtool -A lan3 rx on tx on"
assert_eq "ethtool -a after rx on tx on" "$(pause lan3 on on)" "$(sim ethtool -a lan3)"
assert_contains "ethtool -S with global pause" "rx_global_pause:" "$(sim ethtool -S lan3)"
sim ethtool -A lan3 autoneg on 2>/dev/null && fail "ethtool -A autoneg on accepted"
sim dcb pfc set dev lan3 prio-pfc 3:on
assert_eq "ethtool -a after a PFC change" "$(pause lan3 off off)" "$(sim ethtool -a lan3)"
assert_not_contains "ethtool -S after a PFC change" "rx_global_pause:" "$(sim ethtool -S lan3)"

# PFC storm prevention (mlx5e_set_pfc_prevention_tout: 0, 80..8000 ms or 0xffff=auto).
sim ethtool --get-tunable lan2 pfc-prevention-tout >/dev/null || fail "get-tunable"
sim ethtool --set-tunable lan2 pfc-prevention-tout 100 || fail "set-tunable 100"
assert_eq "tunable after 100" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"
sim ethtool --set-tunable lan2 pfc-prevention-tout 50 2>/dev/null && fail "set-tunable 50 accepted"
assert_eq "tunable after refused 50" "pfc-prevention-tout: 100" "$(sim ethtool --get-tunable lan2 pfc-prevention-tout)"
# The module's memory (SFF-8636) through the legacy ioctls ethtool 6.1 uses here
# (ETHTOOL_GMODULEINFO, ETHTOOL_GMODULEEEPROM: mlx5e_get_module_info, mlx5e_get_module_eeprom):
# ethtool's own decoder reads the pages roced decodes from ethtool netlink.
out=$(sim ethtool -m lan3) || fail "ethtool -m lan3"
assert_contains "ethtool -m identifier" "Identifier                                : 0x11 (QSFP28)" "$out"
assert_contains "ethtool -m vendor" "Vendor PN                                 : MMA1B00-C100D" "$out"
assert_contains "ethtool -m temperature" "Module temperature                        : 38.50 degrees C" "$out"
assert_contains "ethtool -m lane 2 rx power" "Rcvr signal avg optical power(Channel 2)  : 0.7800 mW / -1.08 dBm" "$out"
assert_contains "ethtool -m rx low alarm threshold" "Laser rx power low alarm threshold        : 0.0468 mW / -13.30 dBm" "$out"
assert_not_contains "ethtool -m healthy flags" ": On" "$out"
printf 'name: optic\nevents:\n  - {at: 0s, kind: optic_degrade, port: lan3, duration: 600s, lane: 2, rx_power_dbm: -14}\n' \
  >"$SIM_DIR.optic.yaml"
"$ROCE_SIM" inject "$SIM_DIR" "$SIM_DIR.optic.yaml" || fail "roce-sim inject optic_degrade"
rm -f "$SIM_DIR.optic.yaml"
out=$(sim ethtool -m lan3) || fail "ethtool -m lan3 degraded"
assert_contains "ethtool -m degraded lane" "Rcvr signal avg optical power(Channel 2)  : 0.0398 mW / -14.00 dBm" "$out"
assert_contains "ethtool -m low alarm flag" "Laser rx power low alarm    (Channel 2)   : On" "$out"
assert_not_contains "ethtool -m other lanes" "(Channel 1)   : On" "$out"
assert_not_contains "ethtool -m another port" ": On" "$(sim ethtool -m lan2)"
echo PASS
