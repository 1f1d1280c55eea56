// SPDX-License-Identifier: Apache-2.0
#include "daemon/settings/findings.hpp"

#include <array>

#include "daemon/settings/setting.hpp"

namespace roced::settings {

namespace {

using finding::Kind;
using finding::Severity;

constexpr Kind kNotSupported{
    "setting_not_supported", Severity::Info, "settings",
    "The kernel or the driver has no such object on this port (EOPNOTSUPP): DCB on a VF or a "
    "veth, stall prevention without firmware support.",
    "Expected on VFs and non-mlx5 ports. On an mlx5 uplink, run rocectl qualify and check the "
    "driver and firmware versions."};
constexpr Kind kNoRdmaDevice{
    "no_rdma_device", Severity::Info, "settings",
    "The setting lives on the RDMA device and the port has none.",
    "Load mlx5_ib (or the RDMA device's driver); a port meant for RoCE needs one."};
constexpr Kind kNotMlx5{
    "not_mlx5", Severity::Info, "settings",
    "roced's meaning of the setting is mlx5's, and the port's driver is another.",
    "Leave the port out of ports.select, or accept that roced manages only what it can read."};
constexpr Kind kNoSuchKnob{
    "no_such_knob", Severity::Info, "settings",
    "This driver's ECN/DCQCN interface has no such knob or enable (the inbox driver has no "
    "per-priority ECN enable).",
    "Expected with the distribution's mlx5; drop the key from the profile to silence it."};
constexpr Kind kValueOutOfRange{
    "value_out_of_range", Severity::Warning, "settings",
    "The port has the setting but cannot take the wanted value (an MTU above the link's "
    "maximum).",
    "Change the profile's value to one the port takes (rocectl status shows the port's range)."};
constexpr Kind kKernelLockdown{
    "kernel_lockdown", Severity::Warning, "settings",
    "The kernel's lockdown refuses the interface the setting is written through (debugfs under "
    "Secure Boot), so roced can neither write nor read it.",
    "Set the DCQCN parameters through NVIDIA's sysfs tree (MLNX_OFED/DOCA) or firmware "
    "(mlxconfig), or boot without lockdown; roced reports what it cannot tell."};
constexpr Kind kDriverManaged{
    "driver_managed", Severity::Info, "settings",
    "The driver keeps the setting itself and would undo, or fail on, roced's value (buffers "
    "the driver sizes from the MTU and cable length).",
    "Leave the key out of the profile, or use a driver that hands the buffers to software."};
constexpr Kind kHeldByBond{
    "held_by_bond", Severity::Info, "settings",
    "Another netdev of the RoCE LAG holds the setting: DCB on the bond's slaves, the RDMA "
    "device on the bond.",
    "Nothing to do: roced writes it on the netdev that holds it."};

constexpr std::array<const Kind*, 10> kKinds = {
    &kMtuBelowRoce, &kCnpPriorityUnconfirmed, &kNotSupported,   &kNoRdmaDevice,  &kNotMlx5,
    &kNoSuchKnob,   &kValueOutOfRange,        &kKernelLockdown, &kDriverManaged, &kHeldByBond};

}  // namespace

const finding::Kind& unsupported_kind(Lacking why) {
  switch (why) {
    case Lacking::Device:
      return kNotSupported;
    case Lacking::NoRdmaDevice:
      return kNoRdmaDevice;
    case Lacking::Mlx5Only:
      return kNotMlx5;
    case Lacking::NoKnob:
      return kNoSuchKnob;
    case Lacking::OutOfRange:
      return kValueOutOfRange;
    case Lacking::KernelLockdown:
      return kKernelLockdown;
    case Lacking::DriverManaged:
      return kDriverManaged;
    case Lacking::RoceLag:
      return kHeldByBond;
  }
  return kNotSupported;
}

finding::Finding unsupported_finding(const Unsupported& item, const std::string& netdev) {
  const std::string name = setting_name(item.setting, item.key);
  finding::Finding out =
      finding::make(unsupported_kind(item.kind), netdev, name + ": " + item.reason);
  out.about = name;
  return out;
}

std::span<const finding::Kind* const> kinds() { return kKinds; }

}  // namespace roced::settings
