// SPDX-License-Identifier: Apache-2.0
#pragma once
// A qualification run's findings: for each port, every assumption roced makes about the NIC and
// its driver, checked against what this machine answers, with the evidence. What a person attaches
// to a bug report (report_json.cpp) and what roce-sim learns from (node_capture.cpp).
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "finding/finding.hpp"
#include "util/enum_names.hpp"

namespace roced::qualify {

// pass: the port does what roced assumes. differs: it does something else (the evidence says
// what): roced or roce-sim is wrong for this NIC. cannot_tell: the question could not be asked
// here (lockdown, no RDMA device, not root, a step that needs --write).
// A check is a finding (finding/finding.hpp) of one of qualify's kinds (check_kinds.hpp), whatever
// its verdict: `wanted` is what roced assumes, with the driver function it was read from; `found`
// what the port answered, in words and numbers. The report names a check that holds "pass".
using Verdict = finding::Verdict;
inline constexpr auto kVerdictNames = enum_names<Verdict>({{Verdict::Holds, "pass"},
                                                           {Verdict::Differs, "differs"},
                                                           {Verdict::CannotTell, "cannot_tell"}});
static_assert(kVerdictNames.covers<Verdict::Holds>());

using Check = finding::Finding;

// Something --write changed and what became of it.
struct Touched {
  std::string what;       // "PFC mask 0x08 -> 0x18"
  bool restored = false;  // read back equal to what it was before the run
  std::string detail;     // the error when it could not be restored
};

// The facts a roce-sim node description needs, as read (nothing private: no MAC, IP address,
// GID value or host name).
struct PortFacts {
  std::string netdev;
  std::string rdma_device;
  int rdma_port = 0;
  std::string pci;  // the real PCI function; replaced before anything is written out
  // A physical port (not a VF, representor or SF): only those go into the node description,
  // whose format describes NICs and their ports, not functions made on them.
  bool uplink = true;
  std::string driver;  // "mlx5_core"
  std::string driver_version;
  std::string flavour;  // "inbox", "ofed", "" when unknown
  // The driver tree (driver/traits.hpp: "debian-6.1", "mlnx-ofed", "unknown") and what told it.
  std::string driver_tree;
  std::vector<std::string> driver_evidence;
  std::string firmware;  // "28.39.1002"
  std::string board_id;  // PSID, "MT_0000000838": the board model, not the unit
  std::string model;     // "ConnectX-7", from hca_type; "" when unknown
  std::string hca_type;  // "MT4129"
  std::optional<uint32_t> speed_mbps;
  uint32_t mtu = 0;
  uint32_t max_mtu = 0;
  uint32_t channels = 0;  // combined channels now; 0 when unknown
  std::optional<bool> dcbx_host;
  std::optional<bool> trust_dscp;
  std::optional<bool> stall_prevention;
  std::optional<bool> buffers;
  std::optional<bool> pause_storm_events;
  std::optional<bool> prio_discard_counters;
  std::string ecn_flavour;  // "inbox", "ofed", "none"; "" when lockdown hid it
  std::string lockdown;     // "integrity", "confidentiality"; "" when none
  // A RoCE LAG slave (no RDMA device of its own): its bond, the bond's mode and RDMA device.
  std::string lag_bond;
  std::string lag_mode;
  std::string lag_device;
  size_t ipv4_addresses = 0;  // how many: the GID table's shape, not the addresses
  size_t ipv6_addresses = 0;
  std::vector<std::string> statistics;          // ethtool -S names now
  std::vector<std::string> statistics_pfc_on;   // --write: with PFC on priority 3 only
  std::vector<std::string> statistics_pfc_off;  // --write: with PFC off
  std::vector<std::string> hw_counters;
  std::optional<uint32_t> link_training_ms;  // --write: carrier down to up after a PFC change
  // The mean time of one register access (debugfs commands/ACCESS_REG/average), in µs: what
  // roce-sim charges per firmware command.
  std::optional<uint32_t> firmware_command_us;
  // --write on NVIDIA's driver: whether the firmware keeps the cable length (PCAM cable_length:
  // a length of 0 is taken) or the driver does (0 is EINVAL).
  std::optional<bool> cable_length_in_firmware;
};

struct PortReport {
  PortFacts facts;
  std::vector<Check> checks;
  std::vector<Touched> touched;  // --write only
  std::string error;             // the port could not be qualified at all
};

struct Report {
  std::string roced_version;
  std::string kernel;        // uname release
  std::string hostname;      // only when asked for (--hostname)
  bool wrote = false;        // --write ran
  bool interrupted = false;  // a signal stopped --write or --listen (all put back first)
  std::vector<PortReport> ports;
};

// Verdict counts over every port: {"pass": n, "differs": n, "cannot_tell": n}.
std::map<Verdict, size_t> tally(const Report& report);

// A mask or a byte as the evidence shows it: "0x08".
inline std::string hex(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", value);
  return text;
}

}  // namespace roced::qualify
