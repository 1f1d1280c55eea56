// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DCB writes, one netlink message per feature (DcbClient checks the status byte of each): DCBX
// mode, the APP table (trust and DSCP map), ETS, PFC (priorities and cable length in one message),
// buffers.
#include "daemon/settings/spec.hpp"

namespace roced::settings {

template <>
struct FeatureSpec<Feature::DcbxMode> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
// Trust and the DSCP map: the DSCP entries of the APP table.
template <>
struct FeatureSpec<Feature::AppTable> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::Ets> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
// PFC priorities and cable length: one setpfc with both, from the profile.
template <>
struct FeatureSpec<Feature::Pfc> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::Buffer> {
  static constexpr StatusPart part = StatusPart::Dcb;
  static std::optional<Writes> writes(const WriteCtx& c);
};

}  // namespace roced::settings
