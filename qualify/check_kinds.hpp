// SPDX-License-Identifier: Apache-2.0
#pragma once
// What roced assumes of mlx5, one finding kind per check: the meaning is the assumption with the
// driver function it was read from. A check that differs says roced or roce-sim is wrong for this
// NIC; one that cannot tell says what stopped it.

#include <array>
#include <span>

#include "finding/finding.hpp"

namespace roced::qualify::kinds {

inline constexpr const char* kRunbook =
    "Attach rocectl qualify --json (with --write where it ran) to a bug report: roced or "
    "roce-sim assumes what this NIC or driver does not do; until it is fixed, check that "
    "setting on this NIC by hand.";

inline constexpr finding::Kind kDriverIsMlx5{
    "driver_is_mlx5", finding::Severity::Warning, "qualify",
    "the netdev is mlx5_core's (en_ethtool.c mlx5e_ethtool_get_drvinfo), inbox or NVIDIA's "
    "tree",
    kRunbook};
inline constexpr finding::Kind kLinkUp{
    "link_up", finding::Severity::Warning, "qualify",
    "the link is up and reports its speed (the --write checks need a carrier to see it drop)",
    kRunbook};
inline constexpr finding::Kind kDcbxVersions{
    "dcbx_versions", finding::Severity::Warning, "qualify",
    "DCBX never reports LLD_MANAGED; in firmware mode it reports CEE and IEEE "
    "(mlx5e_dcbnl_initialize), in host mode the mode last set, which keeps IEEE (en_dcbnl.c "
    "mlx5e_dcbnl_setdcbx stores it as dcbx->cap, mlx5e_dcbnl_getdcbx returns it)",
    kRunbook};
inline constexpr finding::Kind kPfcCapability{
    "pfc_capability", finding::Severity::Warning, "qualify",
    "pfc_cap is 8 (en_dcbnl.c mlx5e_dcbnl_ieee_getpfc: mlx5_max_tc() + 1)", kRunbook};
inline constexpr finding::Kind kEtsClasses{
    "ets_classes", finding::Severity::Warning, "qualify",
    "ETS has 8 TCs, each strict, ETS or vendor, every priority on TC 0-7 (en_dcbnl.c "
    "mlx5e_dcbnl_ieee_getets)",
    kRunbook};
inline constexpr finding::Kind kStatisticsConsistent{
    "statistics_consistent", finding::Severity::Warning, "qualify",
    "every statistic has one name and a value (en_ethtool.c mlx5e_get_sset_count, "
    "mlx5e_get_strings and mlx5e_get_ethtool_stats walk the same groups)",
    kRunbook};
inline constexpr finding::Kind kPauseCountersFollowPfc{
    "pause_counters_follow_pfc", finding::Severity::Warning, "qualify",
    "{rx,tx}_prio<p>_pause and _pause_duration exist only for priorities with PFC (en_stats.c "
    "mlx5e_grp_per_prio_pfc_fill_strings)",
    kRunbook};
inline constexpr finding::Kind kSampledCountersPresent{
    "sampled_counters_present", finding::Severity::Warning, "qualify",
    "rx/tx_prio<p>_bytes and _packets, rx_prio<p>_discards and the port-level pause and "
    "discard counters exist (en_stats.c; counters.rst)",
    kRunbook};
inline constexpr finding::Kind kBufferCells{
    "buffer_cells", finding::Severity::Warning, "qualify",
    "buffer sizes are whole 128-byte cells and the total is known (en/port_buffer.c "
    "mlx5e_port_query_buffer)",
    kRunbook};
inline constexpr finding::Kind kStallPreventionRange{
    "stall_prevention_range", finding::Severity::Warning, "qualify",
    "the pfc-prevention-tout tunable reads 0 (off) or 80-8000 ms (en_ethtool.c "
    "mlx5e_get_pfc_prevention_tout), and the pause storm counters are listed exactly where it "
    "is (both need PCAM pfcc_mask and DEBUG stall_detect: en_stats.c)",
    kRunbook};
inline constexpr finding::Kind kDcqcnKnobs{
    "dcqcn_knobs", finding::Severity::Warning, "qualify",
    "the inbox driver keeps DCQCN in debugfs mlx5/<pci>/cc_params (cong.c "
    "mlx5_ib_init_cong_debugfs), NVIDIA's in /sys/class/net/<if>/ecn",
    kRunbook};
inline constexpr finding::Kind kGidTable{
    "gid_table", finding::Severity::Warning, "qualify",
    "the port's GID table has typed RoCE v2 entries for its netdev (core/sysfs.c "
    "show_port_gid_attr_gid_type; roce_gid_mgmt.c)",
    kRunbook};
inline constexpr finding::Kind kRdmaCmDefaults{
    "rdma_cm_defaults", finding::Severity::Warning, "qualify",
    "rdma_cm's per-device defaults are in configfs rdma_cm/<dev>/ports/<n> "
    "(core/cma_configfs.c)",
    kRunbook};
inline constexpr finding::Kind kHwCounterWidths{
    "hw_counter_widths", finding::Severity::Warning, "qualify",
    "the congestion counters and rx_icrc_encapsulated are 64-bit, every other hw_counter "
    "32-bit and wraps (infiniband/hw/mlx5/counters.c)",
    kRunbook};
inline constexpr finding::Kind kGstatsCost{
    "gstats_cost", finding::Severity::Warning, "qualify",
    "one ETHTOOL_GSTATS costs well under 10 ms (en_stats.c mlx5e_stats_update reads PPCNT "
    "once per counter group)",
    kRunbook};
inline constexpr finding::Kind kFirmwareCommandCosts{
    "firmware_command_costs", finding::Severity::Warning, "qualify",
    "debugfs mlx5/<pci>/commands/<NAME>/{n,average} count the firmware's work (debugfs.c "
    "mlx5_cmdif_debugfs_init)",
    kRunbook};
inline constexpr finding::Kind kWriteChecks{"write_checks", finding::Severity::Warning, "qualify",
                                            "the port answers dcbnl and rtnetlink", kRunbook};
inline constexpr finding::Kind kDcbxHostMode{
    "dcbx_host_mode", finding::Severity::Warning, "qualify",
    "SDCBX with the HOST bit puts the port in host mode (en_dcbnl.c mlx5e_dcbnl_setdcbx)",
    kRunbook};
inline constexpr finding::Kind kPfcMaskFlapsLink{
    "pfc_mask_flaps_link", finding::Severity::Warning, "qualify",
    "a new PFC mask goes in with mlx5_toggle_port_link: the carrier drops and returns once "
    "the link has trained (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc)",
    kRunbook};
inline constexpr finding::Kind kSpeedUnknownWhileTraining{
    "speed_unknown_while_training", finding::Severity::Warning, "qualify",
    "while the link trains after a PFC change the reported speed is unknown (en_ethtool.c "
    "get_speed_duplex: no speed without carrier); whether calculate_xoff's own PTYS read "
    "(en/port_buffer.c mlx5e_port_linkspeed) fails too and takes 40 Gb/s the host cannot see, "
    "so roced sends PFC again once the carrier is back either way",
    kRunbook};
inline constexpr finding::Kind kPfcResendKeepsLink{
    "pfc_resend_keeps_link", finding::Severity::Warning, "qualify",
    "the unchanged mask, sent again with the carrier up, is accepted without touching the "
    "link and lets the driver recompute Xoff at the real speed (en_dcbnl.c "
    "mlx5e_dcbnl_ieee_setpfc: the toggle only when the mask changed)",
    kRunbook};
inline constexpr finding::Kind kPauseCountersWithPfcOnAndOff{
    "pause_counters_with_pfc_on_and_off", finding::Severity::Warning, "qualify",
    "ethtool -S lists rx/tx_prio3_pause with PFC on priority 3 and drops them with PFC off "
    "(en_stats.c mlx5e_grp_per_prio_pfc_get_num_stats)",
    kRunbook};
inline constexpr finding::Kind kCableLengthRange{
    "cable_length_range", finding::Severity::Warning, "qualify",
    "a cable length of 1-999 m is taken; outside it mainline and MLNX_OFED ignore it (en_dcbnl.c "
    "mlx5e_dcbnl_ieee_setpfc), nic-kernel passes 0 to the firmware or refuses it",
    kRunbook};
inline constexpr finding::Kind kEtsReadsBack{
    "ets_reads_back", finding::Severity::Warning, "qualify",
    "ETS is taken as sent and read back the same (en_dcbnl.c mlx5e_dcbnl_ieee_setets)", kRunbook};
inline constexpr finding::Kind kEtsSumNot100Refused{
    "ets_sum_not_100_refused", finding::Severity::Warning, "qualify",
    "ETS bandwidths that do not add up to 100 are refused with EINVAL and change nothing "
    "(en_dcbnl.c mlx5e_dbcnl_validate_ets)",
    kRunbook};
inline constexpr finding::Kind kDscpTrustFromAppTable{
    "dscp_trust_from_app_table", finding::Severity::Warning, "qualify",
    "a DSCP APP entry switches the port to DSCP trust; a delete must name the entry's "
    "priority (ENOENT otherwise); the last one deleted goes back to PCP (en_dcbnl.c "
    "mlx5e_dcbnl_ieee_setapp, mlx5e_dcbnl_ieee_delapp)",
    kRunbook};
inline constexpr finding::Kind kAppSelectorsDscpOnly{
    "app_selectors_dscp_only", finding::Severity::Warning, "qualify",
    "only DSCP entries are taken: an EtherType entry is EINVAL (en_dcbnl.c "
    "mlx5e_dcbnl_ieee_setapp)",
    kRunbook};
inline constexpr finding::Kind kStallPreventionTakesRange{
    "stall_prevention_takes_range", finding::Severity::Warning, "qualify",
    "auto reads 100 ms, 0 is off, 80-8000 ms are taken, the rest EINVAL (en_ethtool.c "
    "mlx5e_set_pfc_prevention_tout)",
    kRunbook};
inline constexpr finding::Kind kMtuReadsBack{
    "mtu_reads_back", finding::Severity::Warning, "qualify",
    "RTM_NEWLINK IFLA_MTU is taken and read back (en_main.c mlx5e_change_mtu)", kRunbook};
inline constexpr finding::Kind kForeignDcbChangeNotified{
    "foreign_dcb_change_notified", finding::Severity::Warning, "qualify",
    "every IEEE_SET is multicast on RTNLGRP_DCB as RTM_SETDCB (net/dcb/dcbnl.c "
    "dcbnl_ieee_set), so roced hears another tool's change",
    kRunbook};
inline constexpr finding::Kind kDcqcnKnobLowBits{
    "dcqcn_knob_low_bits", finding::Severity::Warning, "qualify",
    "a cc_params knob keeps the low bits of its field: 70 in the 6-bit np_cnp_dscp reads 6 "
    "(cong.c mlx5_ib_set_cc_param_mask_val)",
    kRunbook};
inline constexpr finding::Kind kRestored{
    "restored", finding::Severity::Critical, "qualify", "everything --write changed is put back",
    "Put back by hand what the report lists under touched (dcb, ip link, ethtool), then run "
    "rocectl qualify again without --write to see the port as it is."};
inline constexpr finding::Kind kSwitchLldpHeard{
    "switch_lldp_heard", finding::Severity::Warning, "qualify",
    "the switch's LLDP reaches the netdev through AF_PACKET, where roced's peer watch "
    "listens; in firmware DCBX mode mlx5's own agent may keep it (not in any driver source)",
    kRunbook};

inline constexpr std::array<const finding::Kind*, 33> kAll = {&kDriverIsMlx5,
                                                              &kLinkUp,
                                                              &kDcbxVersions,
                                                              &kPfcCapability,
                                                              &kEtsClasses,
                                                              &kStatisticsConsistent,
                                                              &kPauseCountersFollowPfc,
                                                              &kSampledCountersPresent,
                                                              &kBufferCells,
                                                              &kStallPreventionRange,
                                                              &kDcqcnKnobs,
                                                              &kGidTable,
                                                              &kRdmaCmDefaults,
                                                              &kHwCounterWidths,
                                                              &kGstatsCost,
                                                              &kFirmwareCommandCosts,
                                                              &kWriteChecks,
                                                              &kDcbxHostMode,
                                                              &kPfcMaskFlapsLink,
                                                              &kSpeedUnknownWhileTraining,
                                                              &kPfcResendKeepsLink,
                                                              &kPauseCountersWithPfcOnAndOff,
                                                              &kCableLengthRange,
                                                              &kEtsReadsBack,
                                                              &kEtsSumNot100Refused,
                                                              &kDscpTrustFromAppTable,
                                                              &kAppSelectorsDscpOnly,
                                                              &kStallPreventionTakesRange,
                                                              &kMtuReadsBack,
                                                              &kForeignDcbChangeNotified,
                                                              &kDcqcnKnobLowBits,
                                                              &kRestored,
                                                              &kSwitchLldpHeard};

}  // namespace roced::qualify::kinds
