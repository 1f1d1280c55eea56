// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the settings table finds wrong with a profile on a port: a value RoCE suffers from, and
// each reason a port cannot take a setting (one kind per Lacking, so an alert can tell a
// locked-down kernel from a VF that has no DCB).

#include <span>
#include <string>

#include "daemon/settings/outcome.hpp"
#include "finding/finding.hpp"

namespace roced::settings {

inline constexpr finding::Kind kMtuBelowRoce{
    "mtu_below_roce", finding::Severity::Warning, "settings",
    "The profile's MTU is below 4200, so RoCE's path MTU falls below 4096 bytes.",
    "Set profile.mtu to 4200 or more (9000 where the fabric carries jumbo frames), and the "
    "switch ports' MTU to match."};

inline constexpr finding::Kind kCnpPriorityUnconfirmed{
    "cnp_priority_unconfirmed", finding::Severity::Warning, "settings",
    "This port's driver writes the CNP priority without the firmware's cnp_prio_mode and shows no "
    "mode (MLNX_OFED's ecn/roce_np/cnp_802p_prio): the priority is in effect only while the mode "
    "is 0, which the host cannot read.",
    "Check the CNPs' priority on the wire or in the switch's counters, or set the mode with "
    "NVIDIA's firmware tools; roced writes and reads back the priority itself."};

// The kind of finding for a setting the port cannot take for `why`.
const finding::Kind& unsupported_kind(Lacking why);
// That finding, on `netdev`: `about` is the setting's name as plans show it.
finding::Finding unsupported_finding(const Unsupported& item, const std::string& netdev);

// Every kind above, for the catalogue.
std::span<const finding::Kind* const> kinds();

}  // namespace roced::settings
