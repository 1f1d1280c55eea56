// SPDX-License-Identifier: Apache-2.0
#pragma once
// A feature's write (the write of a group of settings that go to the port together) as a traits
// specialisation FeatureSpec<F> per Feature: what to read back after it, and how to write the
// profile's values and put the observed ones back. table.cpp turns each FeatureSpec<F> into a
// FeatureRow of plain function pointers, so the applier loops over an array and never switches.

#include <array>
#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

#include "daemon/config/config.hpp"
#include "daemon/settings/device.hpp"
#include "daemon/settings/setting.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"

namespace roced::settings {

// What a feature's write sees: the plan's profile and the observation an undo goes back to.
struct WriteCtx {
  const DiscoveredPort& port;
  const config::Profile& want;
  const PortStatus& observed;
  std::string_view instance;  // the DCQCN knob; empty for a feature that is not keyed
};

// A feature's write, and its undo back to what the plan observed.
struct Writes {
  std::function<Result<void>(Writer&)> apply;
  std::function<Result<void>(Writer&)> undo;
};

// One specialisation per Feature (spec_dcb.hpp, spec_link.hpp, spec_rdma.hpp):
//   static constexpr StatusPart part;   what to read back after the write
//   static std::optional<Writes> writes(const WriteCtx&);   nullopt: cannot
//   write from what was read
template <Feature F>
struct FeatureSpec;

template <Feature F>
concept FeatureSpecified = requires(const WriteCtx& c) {
  { FeatureSpec<F>::part } -> std::convertible_to<StatusPart>;
  { FeatureSpec<F>::writes(c) } -> std::same_as<std::optional<Writes>>;
};

struct FeatureRow {
  Feature id;
  StatusPart part;
  std::optional<Writes> (*writes)(const WriteCtx&);
};

template <Feature F>
constexpr FeatureRow make_feature_row() {
  static_assert(FeatureSpecified<F>, "FeatureSpec<F> lacks part or writes (see spec.hpp)");
  return FeatureRow{F, FeatureSpec<F>::part, &FeatureSpec<F>::writes};
}

inline constexpr std::size_t kFeatureCount = kFeatureNames.size();

// table.cpp: one FeatureRow per Feature, in enum order.
const FeatureRow& feature_row(Feature feature);

}  // namespace roced::settings
