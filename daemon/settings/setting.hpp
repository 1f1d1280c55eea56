// SPDX-License-Identifier: Apache-2.0
#pragma once
// The settings roced manages, one row each: the key under `profile:` in roced.yaml (which is also
// the setting's name in plans, logs, D-Bus, JSON and metrics labels), the feature it is written
// with, and the ports it applies to. This header has no I/O types, so daemon/config, cli/ and the
// metrics can name settings without the planner. What a setting *does* (read, plan, write,
// verify) is its Spec<S> (spec.hpp); table.cpp joins the two and checks them against each other.
//
// Adding a setting: an enumerator below, its row in kSettings, its field in Profile, its Spec<S>
// with its YAML reader (and, when it needs a write roced does not make yet, a FeatureSpec<F> and a
// PortDevice call). Nothing else: the config reader, the LAG check and the names loop over these.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "util/enum_names.hpp"

namespace roced::settings {

// In apply order (see Feature). Numbered 0..N-1: kSettings is indexed by it.
enum class Setting {
  Dcbx,
  Trust,
  DscpMap,
  Ets,
  Maxrate,
  Mtu,
  GlobalPause,
  PfcPriorities,
  CableLength,
  Buffers,
  StallPrevention,
  EcnPriorities,
  CnpDscp,
  CnpPriority,
  Dcqcn,  // keyed: one instance per knob the profile names ("rp_ai_rate")
  RdmaCmMode,
  RdmaCmTos,
};
inline constexpr std::size_t kSettingCount = static_cast<std::size_t>(Setting::RdmaCmTos) + 1;

// One write to the port (one request, or a short fixed sequence of them). The settings of one
// feature are written together, from the whole profile: PFC priorities and cable length in one
// ieee_pfc (setpfc), trust and the DSCP map as the APP table. Declared in write order; the
// OrderRules in table.cpp say why the order is what it is and fail the build when it is not.
enum class Feature : uint8_t {
  DcbxMode,
  AppTable,
  Ets,
  Maxrate,
  Mtu,
  GlobalPause,
  Pfc,
  Buffer,
  StallPrevention,
  EcnEnable,
  CnpDscp,
  CnpPriority,
  DcqcnKnob,
  RdmaCmMode,
  RdmaCmTos,
};
inline constexpr auto kFeatureNames = enum_names<Feature>({
    {Feature::DcbxMode, "setdcbx"},
    {Feature::AppTable, "app-table"},
    {Feature::Ets, "setets"},
    {Feature::Maxrate, "setmaxrate"},
    {Feature::Mtu, "mtu"},
    {Feature::GlobalPause, "pauseparam"},
    {Feature::Pfc, "setpfc"},
    {Feature::Buffer, "setbuffer"},
    {Feature::StallPrevention, "pfc-prevention-tout"},
    {Feature::EcnEnable, "ecn-enable"},
    {Feature::CnpDscp, "cnp-dscp"},
    {Feature::CnpPriority, "cnp-prio"},
    {Feature::DcqcnKnob, "dcqcn-knob"},
    {Feature::RdmaCmMode, "rdma-cm-mode"},
    {Feature::RdmaCmTos, "rdma-cm-tos"},
});
static_assert(kFeatureNames.covers<Feature::RdmaCmTos>(), "name every Feature");

// Why the features are written in their declaration order. The build fails when a reordering
// breaks one; a constraint the order does not need is not listed.
struct OrderRule {
  Feature first;
  Feature then;
  std::string_view why;
};
inline constexpr OrderRule kOrderRules[] = {
    {Feature::DcbxMode, Feature::AppTable,
     "host DCBX first: under the firmware agent a willing peer replaces the APP table"},
    {Feature::DcbxMode, Feature::Ets, "host DCBX first: the firmware agent would own ETS"},
    {Feature::Ets, Feature::Maxrate, "ETS first: a cap applies to the TC the priorities map to"},
    {Feature::DcbxMode, Feature::Pfc, "host DCBX first: the firmware agent would own PFC"},
    {Feature::Pfc, Feature::Buffer,
     "setbuffer marks a buffer lossless from the PFC mask in force (mlx5e_dcbnl_setbuffer)"},
    {Feature::Mtu, Feature::Pfc,
     "Xoff counts the MTU in force when setpfc reaches mlx5e_port_manual_buffer_config, and an "
     "MTU change never recomputes it (en/port_buffer.c calculate_xoff)"},
    {Feature::Mtu, Feature::Buffer, "likewise for a buffer write (mlx5e_dcbnl_setbuffer)"},
    {Feature::GlobalPause, Feature::Pfc,
     "every PFC mask change turns 802.3x pause off (port.c mlx5_set_port_pfc writes PFCC with "
     "pptx and pprx 0): an undo, which runs in reverse, must put pause back after PFC"},
};
consteval bool order_rules_hold() {
  for (const OrderRule& rule : kOrderRules) {
    if (!(rule.first < rule.then)) return false;
  }
  return true;
}
static_assert(order_rules_hold(), "Feature's declaration order breaks a rule in kOrderRules");

enum class Scope : uint8_t {
  Mlx5,     // roced's semantics are mlx5's: reported unsupported on rxe, bnxt_re, irdma
  AnyRoce,  // every selected port (MTU, rdma_cm)
};

struct SettingInfo {
  Setting id;
  std::string_view key;  // under `profile:`; a keyed setting's instances are "<key>.<instance>"
  Feature feature;
  Scope scope;
  bool keyed = false;
  // A RoCE LAG's slaves must be given the same value: traffic hashed onto one slave meets the
  // switch port behind it, so PFC, trust and queues that differ make one path lossless and not
  // the other (daemon/plan warns). The RDMA side is the bond's one device: nothing to agree on.
  bool slaves_agree = false;
  std::string_view example = {};  // a YAML value for the key: tests load it, docs show it
};

// clang-format off
inline constexpr std::array<SettingInfo, kSettingCount> kSettings = {{
    // id                      key                  feature                   scope           keyed  slaves_agree example
    {Setting::Dcbx,            "dcbx",              Feature::DcbxMode,        Scope::Mlx5,    false, true,  "host"},
    {Setting::Trust,           "trust",             Feature::AppTable,        Scope::Mlx5,    false, true,  "dscp"},
    {Setting::DscpMap,         "dscp_map",          Feature::AppTable,        Scope::Mlx5,    false, true,  "{26: 3}"},
    {Setting::Ets,             "ets",               Feature::Ets,             Scope::Mlx5,    false, true,  "{prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]}"},
    {Setting::Maxrate,         "maxrate",           Feature::Maxrate,         Scope::Mlx5,    false, true,  "[0, 0, 0, 0, 0, 0, 0, 25000]"},
    {Setting::Mtu,             "mtu",               Feature::Mtu,             Scope::AnyRoce, false, true,  "9000"},
    {Setting::GlobalPause,     "global_pause",      Feature::GlobalPause,     Scope::Mlx5,    false, true,  "off"},
    {Setting::PfcPriorities,   "pfc.priorities",    Feature::Pfc,             Scope::Mlx5,    false, true,  "[3]"},
    {Setting::CableLength,     "pfc.cable_length",  Feature::Pfc,             Scope::Mlx5,    false, true,  "7"},
    {Setting::Buffers,         "buffers",           Feature::Buffer,          Scope::Mlx5,    false, true,  "{prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0], size: [262144, 131072, 0, 0, 0, 0, 0, 0]}"},
    {Setting::StallPrevention, "stall_prevention",  Feature::StallPrevention, Scope::Mlx5,    false, true,  "auto"},
    {Setting::EcnPriorities,   "ecn.priorities",    Feature::EcnEnable,       Scope::Mlx5,    false, false, "[3]"},
    {Setting::CnpDscp,         "ecn.cnp_dscp",      Feature::CnpDscp,         Scope::Mlx5,    false, false, "48"},
    {Setting::CnpPriority,     "ecn.cnp_priority",  Feature::CnpPriority,     Scope::Mlx5,    false, false, "6"},
    {Setting::Dcqcn,           "ecn.dcqcn",         Feature::DcqcnKnob,       Scope::Mlx5,    true,  false, "{rp_ai_rate: 5}"},
    {Setting::RdmaCmMode,      "roce.rdma_cm_mode", Feature::RdmaCmMode,      Scope::AnyRoce, false, false, "v2"},
    {Setting::RdmaCmTos,       "roce.tos",          Feature::RdmaCmTos,       Scope::AnyRoce, false, false, "106"},
}};
// clang-format on

constexpr const SettingInfo& info(Setting setting) {
  return kSettings[static_cast<std::size_t>(setting)];
}
constexpr std::string_view key_of(Setting setting) { return info(setting).key; }

namespace detail {
consteval bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kSettings.size(); ++i) {
    if (static_cast<std::size_t>(kSettings[i].id) != i) return false;
  }
  return true;
}
consteval bool keys_unique() {
  for (std::size_t i = 0; i < kSettings.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (kSettings[i].key == kSettings[j].key) return false;
    }
  }
  return true;
}
// The applier writes changes in Setting order and one step per run of one feature: the settings
// of a feature must be adjacent, and features must come in Feature (write) order.
consteval bool features_in_write_order() {
  for (std::size_t i = 1; i < kSettings.size(); ++i) {
    if (kSettings[i].feature < kSettings[i - 1].feature) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::rows_in_enum_order(), "kSettings[i] must describe Setting(i)");
static_assert(detail::keys_unique(), "two settings share a key");
static_assert(detail::features_in_write_order(),
              "a feature's settings must be adjacent, in Feature order");

// "pfc.priorities"; "ecn.dcqcn.rp_ai_rate" for an instance of a keyed setting.
std::string setting_name(Setting setting, std::string_view instance = {});
// The inverse, for documents read back (cli/daemon_documents.cpp): nullopt for an unknown name.
std::optional<std::pair<Setting, std::string>> parse_setting_name(std::string_view name);

}  // namespace roced::settings
