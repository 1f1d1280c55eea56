#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dcb` (iproute2 6.1, dcbnl over rtnetlink) against roce-sim's default node through the shim.
# dcb 6.1 can leave an ACK unread and read it as the answer to its next request (see
# roce_sim_dcb_stale_ack_test.sh), so every set is checked by reading the state back.
# Usage: roce_sim_dcb_test.sh ROCE_SIM SHIM
ROCE_SIM=$1
SHIM=$2
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
start_sim "$ROCE_SIM" run --dir

pfc_enabled='[.prio_pfc | to_entries[] | select(.value == true or .value == "on") | .key]'

# ---- PFC (mlx5e_dcbnl_ieee_getpfc / setpfc)
assert_eq "pfc_cap" 8 "$(json pfc '.pfc_cap' dcb -j pfc show dev lan2)"
assert_eq "pfc enabled at start" '[]' "$(json pfc "$pfc_enabled" dcb -j pfc show dev lan2)"
sim dcb pfc set dev lan2 prio-pfc 3:on
assert_eq "pfc enabled after 3:on" '[3]' "$(json pfc "$pfc_enabled" dcb -j pfc show dev lan2)"
assert_eq "lan3 pfc untouched" '[]' "$(json pfc "$pfc_enabled" dcb -j pfc show dev lan3)"
sim dcb pfc set dev lan2 delay 25
assert_eq "pfc delay (cable length) after set 25" 25 "$(json pfc '.delay' dcb -j pfc show dev lan2)"
assert_eq "pfc enabled kept by delay set" '[3]' "$(json pfc "$pfc_enabled" dcb -j pfc show dev lan2)"

# ---- APP table (dcbnl_ieee_set/del, mlx5e_dcbnl_ieee_setapp / delapp)
dscp26='[(.dscp_prio // [])[] | select(.[0] == 26) | .[1]]'
assert_eq "no dscp 26 entry at start" '[]' "$(json app "$dscp26" dcb -N -j app show dev lan2)"
sim dcb app add dev lan2 dscp-prio 26:3
assert_eq "dscp 26 -> prio 3 after add" '[3]' "$(json app "$dscp26" dcb -N -j app show dev lan2)"
sim dcb app del dev lan2 dscp-prio 26:5 2>/dev/null # wrong priority: refused
assert_eq "dscp 26 entry kept after del 26:5" '[3]' "$(json app "$dscp26" dcb -N -j app show dev lan2)"
sim dcb app del dev lan2 dscp-prio 26:3
assert_eq "dscp 26 entry gone after del 26:3" '[]' "$(json app "$dscp26" dcb -N -j app show dev lan2)"

# ---- ETS (mlx5e_dcbnl_ieee_setets: ETS bandwidths must add up to 100)
assert_eq "ets tc_bw has 8 entries" 8 "$(json ets '.tc_bw | length' dcb -j ets show dev lan2)"
sim dcb ets set dev lan2 tc-tsa all:ets prio-tc all:0 3:3 tc-bw 0:30 1:10 2:10 3:20 4:10 5:10 6:5 7:5
assert_eq "ets tc_bw after valid set" '[30,10,10,20,10,10,5,5]' "$(json ets '.tc_bw' dcb -j ets show dev lan2)"
assert_eq "ets prio_tc after valid set" '[0,0,0,3,0,0,0,0]' "$(json ets '.prio_tc' dcb -j ets show dev lan2)"
sim dcb ets set dev lan2 tc-bw 0:50 1:50 2:50 3:0 4:0 5:0 6:0 7:0 2>/dev/null # sum 150: refused
assert_eq "ets tc_bw after invalid set" '[30,10,10,20,10,10,5,5]' "$(json ets '.tc_bw' dcb -j ets show dev lan2)"

# ---- DCBX mode (mlx5e_dcbnl_setdcbx)
sim dcb dcbx set dev lan2 host ieee
assert_eq "dcbx after set host ieee" 'true,true' \
  "$(json dcbx '"\(.host == true),\(.ieee == true)"' dcb -j dcbx show dev lan2 | tr -d '"')"

# ---- Buffers (mlx5e_dcbnl_getbuffer)
assert_eq "buffer prio_buffer entries" 8 "$(json buffer '.prio_buffer | length' dcb -j buffer show dev lan2)"
assert_eq "buffer buffer_size entries" 8 "$(json buffer '.buffer_size | length' dcb -j buffer show dev lan2)"
[[ "$(json buffer '.total_size' dcb -j buffer show dev lan2)" -gt 0 ]] || fail "buffer total_size not > 0"
echo PASS
