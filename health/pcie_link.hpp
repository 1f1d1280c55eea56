// SPDX-License-Identifier: Apache-2.0
#pragma once
// A NIC's PCIe link as sysfs reports it, and whether it trained below what both ends are built
// for. A 400G ConnectX-7 needs PCIe Gen5 x16 (about 63 GB/s each way); trained at x8 or Gen4 it
// carries half, and every RDMA transfer through it slows while every RoCE counter reads healthy.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "finding/finding.hpp"

namespace roced::health {

// The four attributes of drivers/pci/pci-sysfs.c (pcie_dev_attrs): the link as trained now
// (current_link_speed, current_link_width: the Link Status register) and the most the endpoint
// takes (max_link_speed, max_link_width: Link Capabilities). A speed in tenths of GT/s per lane
// (2.5 GT/s is 25); empty when the file is missing, unreadable or says "Unknown".
struct PcieLink {
  std::optional<uint32_t> speed_tenths_gts;
  std::optional<uint32_t> width;
  std::optional<uint32_t> max_speed_tenths_gts;
  std::optional<uint32_t> max_width;
  std::string unread;  // why an attribute could not be read, for the finding; empty when all were
  // False when the function has none of the four (pci_dev_attrs_are_visible: not PCIe, as a
  // virtual machine's emulated PCI device): there is no link to judge.
  bool pcie = true;

  bool operator==(const PcieLink&) const = default;
};

// pci_speed_string (drivers/pci/probe.c) as current_link_speed prints it: "16.0 GT/s PCIe\n";
// kernels before 5.7 printed "16 GT/s\n" and "2.5 GT/s\n". Empty for "Unknown" (a link speed
// code the kernel does not know) or anything else.
std::optional<uint32_t> parse_speed(const std::string& text);
// "%u\n" of the link width attributes; empty for anything else, and for 0 (no link trained).
std::optional<uint32_t> parse_width(const std::string& text);

// "32.0 GT/s x16": how lspci and the finding say it.
std::string describe(std::optional<uint32_t> speed_tenths_gts, std::optional<uint32_t> width);

// Trained below what the endpoint takes in speed or width: a differing finding; unread: one that
// cannot tell; as built, or no PCIe link at all: none.
std::optional<finding::Finding> judge(const std::string& netdev, const PcieLink& link);

// A link trained below its capability. A slot that itself offers less (a Gen4 server with a Gen5
// NIC, an x8 riser) also shows here: max_link_* are the endpoint's, not the slot's.
inline constexpr finding::Kind kPcieLinkDegraded{
    "pcie_link_degraded", finding::Severity::Warning, "health",
    "The NIC's PCIe link trained at a lower speed or fewer lanes than the NIC takes: RDMA and "
    "GPUDirect transfers through it are capped below the port's line rate, with no error "
    "counted anywhere.",
    "Compare `lspci -vv -s <pci>` LnkSta with LnkCap. Reseat the NIC or its riser, check the "
    "slot's wiring and the BIOS's bifurcation and link speed settings; a link that trained down "
    "after an error comes back only with a reset or a reboot. Drain the node first: the rail "
    "runs slow until then."};

}  // namespace roced::health
