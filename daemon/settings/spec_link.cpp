// SPDX-License-Identifier: Apache-2.0
// The link writes: MTU over rtnetlink, 802.3x pause and PFC stall prevention through ethtool.
#include "daemon/settings/spec_link.hpp"

namespace roced::settings {

std::optional<Writes> FeatureSpec<Feature::Mtu>::writes(const WriteCtx& c) {
  const write::Mtu wanted{c.want.mtu};
  // plan_port plans nothing without the link, so it was read.
  const uint32_t observed = c.observed.link.value ? c.observed.link.value->mtu : 0;
  return Writes{[wanted](Writer& w) { return w.write(wanted); }, wanted.undo(observed)};
}

// ETHTOOL_SPAUSEPARAM; put back as read, autonegotiation included.
std::optional<Writes> FeatureSpec<Feature::GlobalPause>::writes(const WriteCtx& c) {
  const bool on = c.want.global_pause.value_or(false);
  const write::GlobalPause wanted{PauseParams{false, on, on}};
  const std::optional<PauseParams> observed = c.observed.global_pause.value;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(*observed)
                         : write::Undo::refused("global pause was not read before the change")};
}

std::optional<Writes> FeatureSpec<Feature::StallPrevention>::writes(const WriteCtx& c) {
  const write::StallPrevention wanted{c.want.stall_prevention.tunable_value()};
  const auto observed = c.observed.stall_prevention.value;
  return Writes{[wanted](Writer& w) { return w.write(wanted); },
                observed ? wanted.undo(observed->raw)
                         : write::Undo::refused("stall prevention was not read before the change")};
}

}  // namespace roced::settings
