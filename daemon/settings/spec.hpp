// SPDX-License-Identifier: Apache-2.0
#pragma once
// A setting's behaviour, as a traits specialisation Spec<S> per Setting (the value type travels
// with the setting), and the generic code that plans, verifies and checks the undo of every
// setting the same way. A Spec says how to get its Value from the port's status, what Value the
// profile wants, when two Values are the same, and how a change reads; everything else
// (unsupported, read errors, the ports a setting applies to, change records, the verification after
// a write, the check after an undo) is written once, here.
//
// A feature's write (the write of a group of settings that go to the port together) is a
// FeatureSpec<F> per Feature: what to read back after it, and how to write the profile's values
// and put the observed ones back. table.cpp turns each Spec<S> into a Row and each FeatureSpec<F>
// into a FeatureRow of plain function pointers, so the loops see arrays and never switch.

#include <array>
#include <concepts>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "daemon/settings/device.hpp"
#include "daemon/settings/outcome.hpp"
#include "daemon/settings/profile.hpp"
#include "daemon/settings/setting.hpp"
#include "driver/traits.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"

namespace roced::yaml {
struct Entry;
}

namespace roced::settings {

struct ProfileReader;  // profile_reader.hpp

// What a setting's functions see.
struct Ctx {
  const DiscoveredPort& port;
  const Profile& want;
  std::string_view instance;  // the DCQCN knob; empty for a setting that is not keyed
  const PortStatus& have;     // the whole observation, for a refuse() that needs the link's
};

// How the port's driver tree behaves where the trees differ (driver/traits.hpp); every trait
// unknown when roced could not tell the tree.
inline driver::Traits driver_traits(const PortStatus& have) {
  return have.driver.ok() ? have.driver.value->traits : driver::Traits{};
}

// The driver leaves host-written buffers to the host between writes: Debian's 6.1 and 6.12 and
// MLNX_OFED. nic-kernel's sizes them itself on PFC and cable changes (cable length in the
// firmware), and a tree roced has not read may do anything (see Spec<Setting::Buffers>::project).
inline bool driver_leaves_buffers_to_host(const driver::Traits& traits) {
  return traits.buffer_recompute != driver::BufferRecompute::Unknown &&
         traits.cable_length == driver::CableLength::Driver;
}

// roced sizes this port's receive buffers: the profile has them and the driver leaves them to
// the host.
inline bool host_sizes_buffers(const Profile& want, const PortStatus& have) {
  return want.buffers.has_value() && driver_leaves_buffers_to_host(driver_traits(have));
}

// What a feature's write sees: the plan's profile and the observation an undo goes back to.
struct WriteCtx {
  const DiscoveredPort& port;
  const Profile& want;
  const PortStatus& observed;
  std::string_view instance;  // the DCQCN knob; empty for a feature that is not keyed
};

// A feature's write, and its undo back to what the plan observed: made from the observation by
// the writes' own undo (write/write.hpp), journalled before the write is made and run by the
// applier's rollback (write::perform through a Writer).
struct Writes {
  std::function<Result<void>(Writer&)> apply;
  write::Undo undo;
};

// The undo of a write whose old value was not read: refused, as nothing could put it back.
inline write::Undo not_read(const std::string& what) {
  return write::Undo::refused(what + " was not read before the change: nothing to restore");
}

// One specialisation per Setting (spec_dcb.hpp).
//
// Required, for roced.yaml (the definitions of `read` are in read_dcb.cpp, read_link.cpp, ...):
//   static constexpr auto in = [](auto& p) -> auto& { return p.mtu; };  its field in the Profile
//   static void read(ProfileReader&, const yaml::Entry&);  parse the key's value, check it alone,
//                                                          set in(profile), mark where
// Required, for the port:
//   using Value = ...;   what is compared; display-only state may ride along if `same` skips it
//   static constexpr auto field = &PortStatus::pfc;           the read the Value comes from
//   static constexpr std::string_view read_what = "DCB";      "cannot read DCB: ..."
//   static constexpr std::string_view label = "the PFC priorities";   rollback messages
//   static Reading<Value> project(const Ctx&, const T& read);  T is the field's; never reads c.want
//   static Value wanted(const Ctx&, const Value& now);         `now` only for port-dependent parts
//   static bool same(const Value&, const Value&);   THE equality: plan, verify and undo all use it
//   static std::pair<std::string, std::string> describe(const Ctx&, const Value& now,
//                                                       const Value& wanted);
// Optional:
//   static bool manages(const Profile&);                        default: always
//   static std::vector<std::string> instances(const Profile&);  keyed settings only
//   static std::optional<std::string_view> disruption(const Ctx&);      a change disrupts traffic
//   static std::optional<NotHere> refuse(const Ctx&, const Value& now, const Value& wanted);
//   static void warn(const Ctx&, const Value& wanted, std::vector<finding::Finding>& findings);
template <Setting S>
struct Spec;

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

namespace detail {

template <class F>
struct FieldValue;
template <class T>
struct FieldValue<Field<T>> {
  using type = T;
};
template <Setting S>
using ReadOf = typename FieldValue<
    std::remove_cvref_t<decltype(std::declval<const PortStatus&>().*Spec<S>::field)>>::type;

}  // namespace detail

template <Setting S>
concept SettingSpec = requires(const Ctx& c, const typename Spec<S>::Value& v,
                               const detail::ReadOf<S>& read, const Profile& p,
                               ProfileReader& reader, const yaml::Entry& entry) {
  { Spec<S>::in(p) == Spec<S>::in(p) } -> std::convertible_to<bool>;
  { Spec<S>::read(reader, entry) } -> std::same_as<void>;
  { Spec<S>::read_what } -> std::convertible_to<std::string_view>;
  { Spec<S>::label } -> std::convertible_to<std::string_view>;
  { Spec<S>::project(c, read) } -> std::same_as<Reading<typename Spec<S>::Value>>;
  { Spec<S>::wanted(c, v) } -> std::convertible_to<typename Spec<S>::Value>;
  { Spec<S>::same(v, v) } -> std::same_as<bool>;
  { Spec<S>::describe(c, v, v) } -> std::same_as<std::pair<std::string, std::string>>;
};

template <Setting S>
bool manages(const Profile& profile) {
  if constexpr (requires { Spec<S>::instances(profile); }) {
    return !Spec<S>::instances(profile).empty();
  } else if constexpr (requires { Spec<S>::manages(profile); }) {
    return Spec<S>::manages(profile);
  } else {
    return true;
  }
}

// The instances the profile manages: a keyed setting's (the DCQCN knobs it names), else one
// unnamed instance when the setting is managed at all.
template <Setting S>
std::vector<std::string> instances(const Profile& profile) {
  if constexpr (requires { Spec<S>::instances(profile); }) {
    static_assert(info(S).keyed, "only a keyed setting (kSettings) has instances");
    return Spec<S>::instances(profile);
  } else {
    static_assert(!info(S).keyed, "a keyed setting's Spec lists its instances");
    return manages<S>(profile) ? std::vector<std::string>{std::string()}
                               : std::vector<std::string>{};
  }
}

// Desired against observed: a Change, an Unsupported, a read error, or nothing.
template <Setting S>
void plan_instance(const Ctx& c, const PortStatus& have, Planned& out) {
  using T = Spec<S>;
  using V = typename T::Value;
  const auto& field = have.*T::field;
  const auto not_here = [&](Lacking kind, std::string reason) {
    out.unsupported.push_back(Unsupported{S, std::string(c.instance), std::move(reason), kind});
  };
  if (field.lack == Lack::Elsewhere) {  // a bond's DCB, a LAG slave's RDMA device
    not_here(Lacking::RoceLag, field.reason);
    return;
  }
  if (info(S).scope == Scope::Mlx5 && !c.port.is_mlx5()) {
    // The kernel's own "no" when it said one (veth DCB: EOPNOTSUPP), else why roced does not try.
    not_here(Lacking::Mlx5Only, field.unsupported_here() ? field.reason : mlx5_only_reason(c.port));
    return;
  }
  if (!field.ok()) {
    if (field.unsupported_here()) {
      not_here(field.lack == Lack::Absent       ? Lacking::NoRdmaDevice
               : field.lack == Lack::LockedDown ? Lacking::KernelLockdown
                                                : Lacking::Device,
               field.reason);
    } else {
      out.read_error(T::read_what, field.reason);
    }
    return;
  }
  Reading<V> reading = T::project(c, *field.value);
  if (auto* no = std::get_if<NotHere>(&reading)) {
    not_here(no->kind, std::move(no->reason));
    return;
  }
  const V& now = std::get<V>(reading);
  const V want = T::wanted(c, now);
  if constexpr (requires { T::warn(c, want, out.findings); }) T::warn(c, want, out.findings);
  if (T::same(now, want)) return;
  if constexpr (requires { T::refuse(c, now, want); }) {
    if (auto no = T::refuse(c, now, want)) {
      not_here(no->kind, std::move(no->reason));
      return;
    }
  }
  auto [now_text, wanted_text] = T::describe(c, now, want);
  Change change{S, std::string(c.instance), std::move(now_text), std::move(wanted_text), false, {}};
  if constexpr (requires { T::disruption(c); }) {
    if (const std::optional<std::string_view> why = T::disruption(c)) {
      change.disruptive = true;
      change.disruption = std::string(*why);
    }
  }
  out.changes.push_back(std::move(change));
}

// Every instance the profile manages.
template <Setting S>
void plan_all(const DiscoveredPort& port, const Profile& want, const PortStatus& have,
              Planned& out) {
  for (const std::string& instance : instances<S>(want)) {
    plan_instance<S>(Ctx{port, want, instance, have}, have, out);
  }
}

// After a write: "" when the instance no longer plans a change on `now`, else why. The same
// plan_instance, so the verification cannot disagree with the plan.
template <Setting S>
std::string pending_after_write(const Ctx& c, const PortStatus& now) {
  Planned again;
  plan_instance<S>(c, now, again);
  if (!again.error.empty()) return "cannot read back: " + again.error;
  if (again.changes.empty()) return {};
  const Change& still = again.changes.front();
  return "reads " + still.now + " after the write (wanted " + still.wanted + ")";
}

// After an undo: "" when the setting reads as in `before` (the plan's observation), else why.
// The same project and same as the plan, so the two cannot disagree.
template <Setting S>
std::string restored(const Ctx& c, const PortStatus& before, const PortStatus& now) {
  using T = Spec<S>;
  using V = typename T::Value;
  const std::string what = info(S).keyed ? std::string(c.instance) : std::string(T::label);
  const auto& then_field = before.*T::field;
  const auto& now_field = now.*T::field;
  if (!now_field.ok()) return "cannot read back " + what + ": " + now_field.error;
  if (!then_field.ok()) return what + " was not read before the change";
  const Reading<V> a = T::project(c, *then_field.value);
  const Reading<V> b = T::project(c, *now_field.value);
  const bool same = a.index() == b.index() &&
                    (std::holds_alternative<NotHere>(a) || T::same(std::get<V>(a), std::get<V>(b)));
  return same ? std::string() : what + " differs from before the apply";
}

// Whether two profiles want the same value of S (a RoCE LAG's slaves, SettingInfo::slaves_agree).
template <Setting S>
bool same_in(const Profile& a, const Profile& b) {
  return Spec<S>::in(a) == Spec<S>::in(b);
}

// The type-erased row the loops see.
struct Row {
  const SettingInfo* info;
  void (*read)(ProfileReader&, const yaml::Entry&);
  bool (*same_in)(const Profile&, const Profile&);
  bool (*manages)(const Profile&);
  void (*plan)(const DiscoveredPort&, const Profile&, const PortStatus&, Planned&);
  std::string (*pending)(const Ctx&, const PortStatus& now);
  std::string (*restored)(const Ctx&, const PortStatus& before, const PortStatus& now);
};

template <Setting S>
constexpr Row make_row() {
  static_assert(SettingSpec<S>, "Spec<S> lacks a required member (see spec.hpp)");
  return Row{&info(S),     &Spec<S>::read,          &same_in<S>, &manages<S>,
             &plan_all<S>, &pending_after_write<S>, &restored<S>};
}

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

// table.cpp: one Row per Setting and one FeatureRow per Feature, in enum order.
const std::array<Row, kSettingCount>& rows();
const Row& row(Setting setting);
const FeatureRow& feature_row(Feature feature);

}  // namespace roced::settings
