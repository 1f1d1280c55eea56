// SPDX-License-Identifier: Apache-2.0
#pragma once
// The RDMA settings: per-priority ECN enable (OFED), CNP DSCP and priority, the DCQCN knobs (either
// driver flavour, by upstream name, one instance per knob), rdma_cm's configfs defaults; and their
// writes.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "daemon/settings/describe.hpp"
#include "daemon/settings/findings.hpp"
#include "daemon/settings/spec.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::settings {

// The CNP priority goes in without the firmware's cnp_prio_mode, and no file shows the mode: the
// tree's trait where roced knows the tree, else the knob tree it found (MLNX_OFED's ecn/).
inline bool cnp_priority_mode_unreadable(const Ctx& c) {
  const driver::CnpPriorityMode mode = driver_traits(c.have).cnp_priority_mode;
  if (mode != driver::CnpPriorityMode::Unknown) return mode == driver::CnpPriorityMode::NotWritten;
  return c.have.ecn.ok() && c.have.ecn.value->flavour == rdma::EcnFlavour::Ofed;
}

// Every ECN setting on a port with neither knob tree says the same.
// On a VF the knobs are its PF's, on a representor its uplink's, so a missing debugfs is no likely
// reason there.
inline std::optional<NotHere> no_ecn_knobs(const Ctx& c, const rdma::EcnState& ecn) {
  if (ecn.flavour != rdma::EcnFlavour::None) return std::nullopt;
  const std::string neither =
      "neither debugfs mlx5/<pci>/cc_params nor /sys/class/net/" + c.port.netdev + "/ecn";
  if (c.port.role == PortRole::Vf) {
    return NotHere{Lacking::NoKnob, "no ECN/DCQCN knobs on this VF (" + neither +
                                        "): they are its PF's" +
                                        (c.port.parent.empty() ? "" : ", " + c.port.parent)};
  }
  if (c.port.role == PortRole::Representor) {
    return NotHere{Lacking::NoKnob,
                   "no ECN/DCQCN knobs on this representor: those of its PCI function are its "
                   "uplink's" +
                       (c.port.parent.empty() ? std::string() : ", " + c.port.parent)};
  }
  return NotHere{Lacking::NoKnob,
                 "no ECN/DCQCN knobs on this port (" + neither + "; is debugfs mounted?)"};
}

template <>
struct Spec<Setting::EcnPriorities> {
  static constexpr auto in = [](auto& p) -> auto& { return p.ecn.enabled_priorities; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    uint8_t np = 0;  // the receiver marks and sends CNPs
    uint8_t rp = 0;  // the sender slows down
    bool operator==(const Value&) const = default;
  };
  static constexpr auto field = &PortStatus::ecn;
  static constexpr std::string_view read_what = "ECN/DCQCN";
  static constexpr std::string_view label = "the ECN priorities";
  static bool manages(const Profile& p) { return p.ecn.enabled_priorities.has_value(); }
  static Reading<Value> project(const Ctx& c, const rdma::EcnState& ecn) {
    if (auto no = no_ecn_knobs(c, ecn)) return *no;
    if (ecn.flavour == rdma::EcnFlavour::Inbox) {
      return NotHere{Lacking::NoKnob, "the inbox driver has no per-priority ECN enable"};
    }
    if (!ecn.np_enabled || !ecn.rp_enabled) {
      return NotHere{Lacking::NoKnob, "no ecn/roce_np|roce_rp/enable/ on this port"};
    }
    return Value{*ecn.np_enabled, *ecn.rp_enabled};
  }
  static Value wanted(const Ctx& c, const Value&) {
    return Value{*c.want.ecn.enabled_priorities, *c.want.ecn.enabled_priorities};
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    using settings::describe::priorities;
    return {now.np == now.rp ? priorities(now.np)
                             : "np " + priorities(now.np) + " rp " + priorities(now.rp),
            priorities(wanted.np)};
  }
};

template <>
struct Spec<Setting::CnpDscp> {
  static constexpr auto in = [](auto& p) -> auto& { return p.ecn.cnp_dscp; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = uint64_t;  // np_cnp_dscp (inbox) | roce_np/cnp_dscp (OFED)
  static constexpr auto field = &PortStatus::ecn;
  static constexpr std::string_view read_what = "ECN/DCQCN";
  static constexpr std::string_view label = "the CNP DSCP";
  static Reading<Value> project(const Ctx& c, const rdma::EcnState& ecn) {
    if (auto no = no_ecn_knobs(c, ecn)) return *no;
    if (const auto dscp = ecn.cnp_dscp()) return *dscp;
    return NotHere{Lacking::NoKnob, "the " + rdma::ecn_flavour_name(ecn.flavour) +
                                        " driver shows no CNP DSCP knob on this port"};
  }
  static Value wanted(const Ctx& c, const Value&) { return c.want.ecn.cnp_dscp; }
  static bool same(Value a, Value b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, Value now, Value wanted) {
    return {std::to_string(now), std::to_string(wanted)};
  }
};

// Inbox: np_cnp_prio applies only while np_cnp_prio_mode is 0, so the mode is part of the value:
// a matching priority under mode 1 is no match, and an undo puts the mode back too.
template <>
struct Spec<Setting::CnpPriority> {
  static constexpr auto in = [](auto& p) -> auto& { return p.ecn.cnp_priority; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    uint64_t priority = 0;
    std::optional<uint64_t> mode;  // inbox np_cnp_prio_mode; OFED has none
    bool operator==(const Value&) const = default;
  };
  static constexpr auto field = &PortStatus::ecn;
  static constexpr std::string_view read_what = "ECN/DCQCN";
  static constexpr std::string_view label = "the CNP priority";
  static Reading<Value> project(const Ctx& c, const rdma::EcnState& ecn) {
    if (auto no = no_ecn_knobs(c, ecn)) return *no;
    const auto priority = ecn.cnp_priority();
    if (!priority) {
      return NotHere{Lacking::NoKnob, "the " + rdma::ecn_flavour_name(ecn.flavour) +
                                          " driver shows no CNP priority knob on this port"};
    }
    Value v{*priority, std::nullopt};
    if (ecn.flavour == rdma::EcnFlavour::Inbox) {
      if (auto it = ecn.np_params.find("np_cnp_prio_mode"); it != ecn.np_params.end()) {
        v.mode = it->second;
      }
    }
    return v;
  }
  static Value wanted(const Ctx& c, const Value& now) {
    return Value{c.want.ecn.cnp_priority, now.mode ? std::optional<uint64_t>(0) : std::nullopt};
  }
  static bool same(const Value& a, const Value& b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    std::string text = std::to_string(now.priority);
    if (now.mode && *now.mode != 0) {
      text += " (np_cnp_prio_mode " + std::to_string(*now.mode) + ": not in effect)";
    }
    return {text, std::to_string(wanted.priority)};
  }
  // Said whatever the port reads: a priority that reads back is still no proof it is used.
  static void warn(const Ctx& c, const Value& wanted, std::vector<finding::Finding>& findings) {
    if (wanted.mode || !cnp_priority_mode_unreadable(c)) return;
    findings.push_back(finding::make(
        kCnpPriorityUnconfirmed, c.port.netdev,
        "CNP priority " + std::to_string(wanted.priority) +
            " is written without the firmware's cnp_prio_mode: whether CNPs use it cannot be told",
        "cnp_prio_mode 0", "not shown by this driver"));
  }
};

// Keyed: one instance per knob the profile names, by its upstream cc_params name.
template <>
struct Spec<Setting::Dcqcn> {
  static constexpr auto in = [](auto& p) -> auto& { return p.ecn.dcqcn; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  using Value = uint64_t;
  static constexpr auto field = &PortStatus::ecn;
  static constexpr std::string_view read_what = "ECN/DCQCN";
  static constexpr std::string_view label = "the DCQCN knob";  // restored() names the knob itself
  static std::vector<std::string> instances(const Profile& p) {
    std::vector<std::string> out;
    for (const auto& [name, value] : p.ecn.dcqcn) out.push_back(name);
    return out;
  }
  static Reading<Value> project(const Ctx& c, const rdma::EcnState& ecn) {
    if (auto no = no_ecn_knobs(c, ecn)) return *no;
    const auto knobs = rdma::knobs_by_upstream_name(ecn);
    if (auto it = knobs.find(std::string(c.instance)); it != knobs.end()) return it->second;
    return NotHere{Lacking::NoKnob, "the " + rdma::ecn_flavour_name(ecn.flavour) +
                                        " driver has no " + std::string(c.instance) +
                                        " knob on this port"};
  }
  static Value wanted(const Ctx& c, const Value&) {
    return c.want.ecn.dcqcn.at(std::string(c.instance));
  }
  static bool same(Value a, Value b) { return a == b; }
  static std::pair<std::string, std::string> describe(const Ctx&, Value now, Value wanted) {
    return {std::to_string(now), std::to_string(wanted)};
  }
};

template <>
struct Spec<Setting::RdmaCmMode> {
  static constexpr auto in = [](auto& p) -> auto& { return p.roce.rdma_cm_mode; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    std::string mode;         // what rdma_cm uses: the group's, or its built-in default
    bool configured = false;  // display only: "(kernel default)" when no configfs group
  };
  static constexpr auto field = &PortStatus::rdma_cm;
  static constexpr std::string_view read_what = "rdma_cm configfs";
  static constexpr std::string_view label = "the rdma_cm RoCE mode";
  static Reading<Value> project(const Ctx&, const rdma::RdmaCmDefaults& cm) {
    return Value{cm.effective_mode(), cm.configured};
  }
  static Value wanted(const Ctx& c, const Value&) { return Value{c.want.roce.rdma_cm_mode, true}; }
  static bool same(const Value& a, const Value& b) { return a.mode == b.mode; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    return {now.configured ? now.mode : now.mode + " (kernel default)", wanted.mode};
  }
};

template <>
struct Spec<Setting::RdmaCmTos> {
  static constexpr auto in = [](auto& p) -> auto& { return p.roce.tos; };
  static void read(ProfileReader& r, const yaml::Entry& e);
  struct Value {
    int tos = 0;
    bool configured = false;  // display only
  };
  static constexpr auto field = &PortStatus::rdma_cm;
  static constexpr std::string_view read_what = "rdma_cm configfs";
  static constexpr std::string_view label = "the rdma_cm ToS";
  static Reading<Value> project(const Ctx&, const rdma::RdmaCmDefaults& cm) {
    return Value{cm.effective_tos(), cm.configured};
  }
  static Value wanted(const Ctx& c, const Value&) { return Value{c.want.roce.tos, true}; }
  static bool same(const Value& a, const Value& b) { return a.tos == b.tos; }
  static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
                                                      const Value& wanted) {
    const std::string text = std::to_string(now.tos);
    return {now.configured ? text : text + " (kernel default)", std::to_string(wanted.tos)};
  }
};

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
