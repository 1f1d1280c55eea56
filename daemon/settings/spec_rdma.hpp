// SPDX-License-Identifier: Apache-2.0
#pragma once
// The RDMA writes: per-priority ECN enable (OFED), CNP DSCP and priority, the DCQCN knobs (either
// driver flavour, by upstream name, one feature instance per knob), rdma_cm's configfs defaults.
#include "daemon/settings/spec.hpp"

namespace roced::settings {

template <>
struct FeatureSpec<Feature::EcnEnable> {
  static constexpr StatusPart part = StatusPart::Ecn;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::CnpDscp> {
  static constexpr StatusPart part = StatusPart::Ecn;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::CnpPriority> {
  static constexpr StatusPart part = StatusPart::Ecn;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::DcqcnKnob> {
  static constexpr StatusPart part = StatusPart::Ecn;
  static std::optional<Writes> writes(const WriteCtx& c);  // c.instance: the knob
};
template <>
struct FeatureSpec<Feature::RdmaCmMode> {
  static constexpr StatusPart part = StatusPart::RdmaCm;
  static std::optional<Writes> writes(const WriteCtx& c);
};
template <>
struct FeatureSpec<Feature::RdmaCmTos> {
  static constexpr StatusPart part = StatusPart::RdmaCm;
  static std::optional<Writes> writes(const WriteCtx& c);
};

}  // namespace roced::settings
