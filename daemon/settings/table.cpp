// SPDX-License-Identifier: Apache-2.0
// The settings table's write half: each FeatureSpec<F> as one FeatureRow per Feature, built at
// compile time from the enum, so a feature without a writer does not build; nothing here lists the
// features again.
#include <utility>

#include "daemon/settings/spec_dcb.hpp"
#include "daemon/settings/spec_link.hpp"
#include "daemon/settings/spec_rdma.hpp"

namespace roced::settings {

namespace {

template <std::size_t... I>
constexpr std::array<Row, kSettingCount> make_rows(std::index_sequence<I...>) {
  return {make_row<static_cast<Setting>(I)>()...};
}

template <std::size_t... I>
constexpr std::array<FeatureRow, kFeatureCount> make_feature_rows(std::index_sequence<I...>) {
  return {make_feature_row<static_cast<Feature>(I)>()...};
}

constexpr std::array<Row, kSettingCount> kRows =
    make_rows(std::make_index_sequence<kSettingCount>{});
constexpr std::array<FeatureRow, kFeatureCount> kFeatureRows =
    make_feature_rows(std::make_index_sequence<kFeatureCount>{});

// Every feature writes at least one setting (a writer nobody uses is dead code).
consteval bool every_feature_used() {
  for (const FeatureRow& f : kFeatureRows) {
    bool used = false;
    for (const SettingInfo& s : kSettings) used = used || s.feature == f.id;
    if (!used) return false;
  }
  return true;
}
static_assert(every_feature_used(), "a Feature no setting is written with");

}  // namespace

const std::array<Row, kSettingCount>& rows() { return kRows; }
const Row& row(Setting setting) { return kRows[static_cast<std::size_t>(setting)]; }
const FeatureRow& feature_row(Feature feature) {
  return kFeatureRows[static_cast<std::size_t>(feature)];
}

}  // namespace roced::settings
