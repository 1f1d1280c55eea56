// SPDX-License-Identifier: Apache-2.0
#pragma once
// ECN/DCQCN knobs of an mlx5 port, in either driver flavour:
// - inbox (upstream): debugfs /sys/kernel/debug/mlx5/<pci>/cc_params/<name>
//   (drivers/infiniband/hw/mlx5/cong.c), names np_* / rp_*; debugfs is no stable ABI.
// - NVIDIA's out-of-tree driver: /sys/class/net/<if>/ecn/roce_np|roce_rp/enable/<prio> and the
//   parameters beside enable/ (or in a params/ sub-directory).
// Feature-detected: whichever tree exists is read; neither is a result, not an error.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "os/system.hpp"
#include "util/enum_names.hpp"

namespace roced::rdma {

enum class EcnFlavour { None, Inbox, Ofed };
inline constexpr auto kEcnFlavourNames = enum_names<EcnFlavour>(
    {{EcnFlavour::None, "none"}, {EcnFlavour::Inbox, "inbox"}, {EcnFlavour::Ofed, "ofed"}});
static_assert(kEcnFlavourNames.covers<EcnFlavour::Ofed>(), "name every EcnFlavour");
std::string ecn_flavour_name(EcnFlavour flavour);  // "none", "inbox", "ofed"

struct EcnState {
  EcnFlavour flavour = EcnFlavour::None;
  std::string source;  // the real path read, for messages
  // OFED only: bit p set = ECN enabled on priority p for the notification / reaction point.
  std::optional<uint8_t> np_enabled;
  std::optional<uint8_t> rp_enabled;
  // Knobs by their file name: inbox "np_cnp_dscp", "rp_ai_rate"; OFED "cnp_dscp", "rpg_ai_rate".
  std::map<std::string, uint64_t> np_params;
  std::map<std::string, uint64_t> rp_params;

  std::optional<uint64_t> cnp_dscp() const;      // np_cnp_dscp | roce_np/cnp_dscp
  std::optional<uint64_t> cnp_priority() const;  // np_cnp_prio | roce_np/cnp_802p_prio
};

// `pci` is the netdev's PCI address ("0000:17:00.0"), `netdev` its name.
Result<EcnState> read_ecn(const FileTree& files, const std::string& pci, const std::string& netdev);
// The kernel's lockdown level when it closes debugfs files with write bits ("integrity",
// "confidentiality": security/lockdown/lockdown.c lockdown_read brackets the current one), else
// nothing. Under it the inbox cc_params files (0600) refuse even a read with EPERM
// (fs/debugfs/file.c debugfs_locked_down).
std::optional<std::string> debugfs_lockdown(const FileTree& files);

// Writes one knob by its upstream cc_params name ("np_cnp_dscp", "rp_ai_rate") in the port's
// flavour: inbox debugfs cc_params/<name>, OFED ecn/roce_np|roce_rp/<ofed name> (beside enable/,
// or in params/ where the driver puts them there). EOPNOTSUPP when the flavour has no such knob.
Result<void> write_ecn_knob(FileTree& files, EcnFlavour flavour, const std::string& pci,
                            const std::string& netdev, const std::string& upstream_name,
                            uint64_t value);

// OFED only: ecn/roce_<point>/enable/<priority> ("np" or "rp") to 1 or 0.
Result<void> write_ecn_enable(FileTree& files, const std::string& netdev, const std::string& point,
                              int priority, bool enabled);

}  // namespace roced::rdma
