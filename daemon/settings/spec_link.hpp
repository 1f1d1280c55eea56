// SPDX-License-Identifier: Apache-2.0
#pragma once
// The link writes: MTU (RTM_NEWLINK IFLA_MTU) and PFC stall prevention (the ethtool tunable).
#include "daemon/settings/spec.hpp"

namespace roced::settings {

template <>
struct FeatureSpec<Feature::Mtu> {
  static constexpr StatusPart part = StatusPart::Link;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::StallPrevention> {
  static constexpr StatusPart part = StatusPart::StallPrevention;
  static std::optional<Writes> writes(const WriteCtx& c);
};

}  // namespace roced::settings
