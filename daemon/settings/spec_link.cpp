// SPDX-License-Identifier: Apache-2.0
// The link writes: MTU over rtnetlink, 802.3x pause and PFC stall prevention through ethtool.
#include "daemon/settings/spec_link.hpp"

#include <cerrno>

namespace roced::settings {

std::optional<Writes> FeatureSpec<Feature::Mtu>::writes(const WriteCtx& c) {
  const uint32_t wanted = c.want.mtu;
  // plan_port plans nothing without the link, so it was read.
  const uint32_t observed = c.observed.link.value ? c.observed.link.value->mtu : 0;
  return Writes{
      [wanted](Writer& w) { return w.write([&] { return w.device().set_mtu(wanted); }); },
      [observed](Writer& w) { return w.write([&] { return w.device().set_mtu(observed); }); }};
}

// ETHTOOL_SPAUSEPARAM; put back as read, autonegotiation included (mlx5 never reports it on).
std::optional<Writes> FeatureSpec<Feature::GlobalPause>::writes(const WriteCtx& c) {
  const bool on = c.want.global_pause.value_or(false);
  const PauseParams wanted{false, on, on};
  const std::optional<PauseParams> observed = c.observed.global_pause.value;
  return Writes{
      [wanted](Writer& w) { return w.write([&] { return w.device().set_global_pause(wanted); }); },
      [observed](Writer& w) -> Result<void> {
        if (!observed) return Error{ENODATA, "global pause was not read before the change"};
        const PauseParams before = *observed;
        return w.write([&] { return w.device().set_global_pause(before); });
      }};
}

std::optional<Writes> FeatureSpec<Feature::StallPrevention>::writes(const WriteCtx& c) {
  const uint16_t wanted = c.want.stall_prevention.tunable_value();
  const auto observed = c.observed.stall_prevention.value;
  return Writes{[wanted](Writer& w) {
                  return w.write([&] { return w.device().set_stall_prevention(wanted); });
                },
                // mlx5 reads "auto" back as 100 ms: writing that back is the same state.
                [observed](Writer& w) -> Result<void> {
                  if (!observed) {
                    return Error{ENODATA, "stall prevention was not read before the change"};
                  }
                  const uint16_t raw = observed->raw;
                  return w.write([&] { return w.device().set_stall_prevention(raw); });
                }};
}

}  // namespace roced::settings
