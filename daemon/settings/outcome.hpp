// SPDX-License-Identifier: Apache-2.0
#pragma once
// What planning a setting can come to: a Change, an Unsupported (typed: why the port cannot take
// it), a read error, or nothing. plan::Change and plan::Unsupported are these types (aliases), so
// the Plan, its JSON and text, the D-Bus documents and the tests are unchanged.

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "daemon/settings/setting.hpp"
#include "finding/finding.hpp"
#include "util/enum_names.hpp"

namespace roced::settings {

struct Change {
  Setting setting;
  std::string key;     // the instance of a keyed setting (DCQCN knob); empty otherwise
  std::string now;     // human-readable, e.g. "none", "3", "firmware (cee ieee)"
  std::string wanted;  // same form as `now`
  bool disruptive = false;
  std::string disruption;  // why, e.g. "mlx5 flaps the link when the PFC mask changes"
};

// Why a port cannot take a setting. Typed, so callers (the storm remediator, metrics) ask
// `kind`, and no one parses `reason`.
enum class Lacking : uint8_t {
  Device,          // the kernel said so (EOPNOTSUPP) or the driver reports no such object
  NoRdmaDevice,    // the setting lives on the RDMA device and the port has none
  Mlx5Only,        // roced's semantics for it are mlx5's and the port is not mlx5
  NoKnob,          // the ECN/DCQCN flavour on this port has no such knob or enable
  OutOfRange,      // the port has it, but not the wanted value (MTU above max_mtu)
  KernelLockdown,  // the kernel's lockdown refuses the interface (debugfs under Secure Boot)
  DriverManaged,   // the driver keeps it itself and would undo, or fail on, roced's value
  RoceLag,  // another netdev of the bond has it: DCB its slaves, the LAG's RDMA device the bond
};
inline constexpr auto kLackingNames = enum_names<Lacking>({
    {Lacking::Device, "device"},
    {Lacking::NoRdmaDevice, "no-rdma-device"},
    {Lacking::Mlx5Only, "mlx5-only"},
    {Lacking::NoKnob, "no-knob"},
    {Lacking::OutOfRange, "out-of-range"},
    {Lacking::KernelLockdown, "kernel-lockdown"},
    {Lacking::DriverManaged, "driver-managed"},
    {Lacking::RoceLag, "bond"},
});
static_assert(kLackingNames.covers<Lacking::RoceLag>());

// Reported, never a failure of the run. `kind` last: aggregate initialisers that stop at `reason`
// (the tests') still compile and mean Device.
struct Unsupported {
  Setting setting;
  std::string key;
  std::string reason;  // "DCB is not supported by this device (EOPNOTSUPP)"
  Lacking kind = Lacking::Device;
};

// A setting's reading of the port: its value, or why the port cannot take the setting.
struct NotHere {
  Lacking kind;
  std::string reason;
};
template <class V>
using Reading = std::variant<V, NotHere>;

// What planning one port's settings came to. PortPlan carries the same four lists.
struct Planned {
  std::vector<Change> changes;
  std::vector<Unsupported> unsupported;
  std::vector<finding::Finding> findings;  // what the profile itself suffers from (MTU < 4200)
  std::string error;  // "cannot read DCB: ...; cannot read rdma_cm configfs: ..."

  // Several settings share one read (DCB): said once.
  void read_error(std::string_view what, std::string_view reason) {
    const std::string message = "cannot read " + std::string(what) + ": " + std::string(reason);
    if (error.find(message) != std::string::npos) return;
    if (!error.empty()) error += "; ";
    error += message;
  }
};

}  // namespace roced::settings
