// SPDX-License-Identifier: Apache-2.0
#pragma once
// The link settings: MTU (rtnetlink), 802.3x pause and PFC stall prevention (ethtool), and their
// writes.
#include <cstdint>
#include <string>

#include "daemon/settings/describe.hpp"
#include "daemon/settings/findings.hpp"
#include "daemon/settings/spec.hpp"

namespace roced::settings {

template <>
struct Spec<Setting::Mtu> {
  static constexpr auto in = [](auto& p) -> auto& { return p.mtu; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    uint32_t mtu = 0;
    uint32_t min_mtu = 0;  // the link's limits (0: not reported), for refuse(); not compared
    uint32_t max_mtu = 0;
  };
  // Below this the RoCE path MTU cannot be 4096 (4096 payload + RoCE v2 headers).
  static constexpr uint32_t kRoceMtuFloor = 4200;

  static constexpr auto field = &PortStatus::link;  // plan_port plans nothing without it
  static constexpr std::string_view read_what = "the link";
  static constexpr std::string_view label = "the MTU";
  static Reading<Value> project(const Ctx&, const LinkInfo& link) {
    return Value{link.mtu, link.min_mtu, link.max_mtu};
  }
  static Value wanted(const Ctx& c, const Value& now) {
    return Value{c.want.mtu, now.min_mtu, now.max_mtu};
  }
  static bool same(const Value& a, const Value& b) { return a.mtu == b.mtu; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {std::to_string(now.mtu), std::to_string(wanted.mtu)};
  }
  // Said whatever the port reads: the profile itself is the problem.
  static void warn(const Ctx& c, const Value& wanted, std::vector<finding::Finding>& findings) {
    if (wanted.mtu >= kRoceMtuFloor) return;
    findings.push_back(
        finding::make(kMtuBelowRoce, c.port.netdev,
                      "MTU " + std::to_string(wanted.mtu) + " < " + std::to_string(kRoceMtuFloor) +
                          ": the RoCE path MTU drops below 4096",
                      ">= " + std::to_string(kRoceMtuFloor), std::to_string(wanted.mtu)));
  }
  // A change the link cannot take is unsupported on this port, not a failed apply.
  static std::optional<NotHere> refuse(const Ctx&, const Value&, const Value& wanted) {
    const std::string want = "MTU " + std::to_string(wanted.mtu);
    if (wanted.max_mtu != 0 && wanted.mtu > wanted.max_mtu) {
      return NotHere{Lacking::OutOfRange,
                     want + " is above this link's maximum " + std::to_string(wanted.max_mtu)};
    }
    if (wanted.min_mtu != 0 && wanted.mtu < wanted.min_mtu) {
      return NotHere{Lacking::OutOfRange,
                     want + " is below this link's minimum " + std::to_string(wanted.min_mtu)};
    }
    return std::nullopt;
  }
  static std::optional<std::string_view> disruption(const Ctx& c) {
    if (c.port.is_mlx5()) {
      return "mlx5 rebuilds its channels on an MTU change (mlx5e_change_mtu -> "
             "mlx5e_safe_switch_params): traffic stops briefly, the link stays up";
    }
    return "drivers may restart their queues on an MTU change: traffic can stop briefly";
  }
};

template <>
struct Spec<Setting::GlobalPause> {
  static constexpr auto in = [](auto& p) -> auto& { return p.global_pause; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = PauseParams;
  static constexpr auto field = &PortStatus::global_pause;
  static constexpr std::string_view read_what = "global pause";
  static constexpr std::string_view label = "global pause";
  static bool manages(const Profile& p) { return p.global_pause.has_value(); }
  static Reading<Value> project(const Ctx&, const PauseParams& read) { return read; }
  static Value wanted(const Ctx& c, const Value&) {
    const bool on = c.want.global_pause.value_or(false);
    return PauseParams{false, on, on};
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {text(now), text(wanted)};
  }
  static std::string text(const Value& p) {
    return p.rx && p.tx ? "on" : p.rx ? "rx only" : p.tx ? "tx only" : "off";
  }
};

template <>
struct Spec<Setting::StallPrevention> {
  static constexpr auto in = [](auto& p) -> auto& { return p.stall_prevention; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = uint16_t;  // ETHTOOL_PFC_PREVENTION_TOUT: 0 off, 0xffff auto, else ms
  static constexpr auto field = &PortStatus::stall_prevention;
  static constexpr std::string_view read_what = "PFC stall prevention";
  static constexpr std::string_view label = "stall prevention";
  static Reading<Value> project(const Ctx&, const StallPrevention& s) { return s.raw; }
  static Value wanted(const Ctx& c, const Value&) {
    return c.want.stall_prevention.tunable_value();
  }
  // Auto and a manual 100 ms read back alike; either satisfies the other.
  static bool same(Value a, Value b) { return StallPrevention::same_setting(a, b); }
  static std::pair<std::string, std::string> describe(const Ctx&, Value now, Value wanted) {
    return {settings::describe::stall(now), settings::describe::stall(wanted)};
  }
};

template <>
struct FeatureSpec<Feature::Mtu> {
  static constexpr StatusPart part = StatusPart::Link;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::GlobalPause> {
  static constexpr StatusPart part = StatusPart::GlobalPause;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::StallPrevention> {
  static constexpr StatusPart part = StatusPart::StallPrevention;
  static std::optional<Writes> writes(const WriteCtx& c);
};

}  // namespace roced::settings
