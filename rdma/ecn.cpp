// SPDX-License-Identifier: Apache-2.0
#include "rdma/ecn.hpp"

#include "rdma/ecn_knobs.hpp"
#include "rdma/hw_counters.hpp"

namespace roced::rdma {

namespace fs = std::filesystem;

std::string ecn_flavour_name(EcnFlavour flavour) {
  return std::string(kEcnFlavourNames.name(flavour, "none"));
}

namespace {

std::optional<uint64_t> find(const std::map<std::string, uint64_t>& params, const char* a,
                             const char* b) {
  if (auto it = params.find(a); it != params.end()) return it->second;
  if (auto it = params.find(b); it != params.end()) return it->second;
  return std::nullopt;
}

// enable/<p> files "0"/"1" -> mask; nullopt when there is no enable/ directory.
Result<std::optional<uint8_t>> read_enable_mask(const FileTree& files, const fs::path& dir) {
  auto values = read_decimal_files(files, dir / "enable");
  if (!values) return values.error();
  if (values->empty()) return std::optional<uint8_t>{};
  uint8_t mask = 0;
  for (const auto& [name, value] : *values) {
    if (name.size() == 1 && name[0] >= '0' && name[0] <= '7' && value != 0) {
      mask = static_cast<uint8_t>(mask | (1u << (name[0] - '0')));
    }
  }
  return std::optional<uint8_t>{mask};
}

// OFED parameters sit beside enable/; a params/ sub-directory is accepted as well.
Result<std::map<std::string, uint64_t>> read_ofed_params(const FileTree& files,
                                                         const fs::path& dir) {
  auto beside = read_decimal_files(files, dir);
  if (!beside) return beside.error();
  auto nested = read_decimal_files(files, dir / "params");
  if (!nested) return nested.error();
  beside->insert(nested->begin(), nested->end());
  return beside;
}

}  // namespace

std::optional<uint64_t> EcnState::cnp_dscp() const {
  return find(np_params, "np_cnp_dscp", "cnp_dscp");
}
std::optional<uint64_t> EcnState::cnp_priority() const {
  return find(np_params, "np_cnp_prio", "cnp_802p_prio");
}

Result<EcnState> read_ecn(const FileTree& files, const std::string& pci,
                          const std::string& netdev) {
  EcnState state;
  const fs::path ofed = fs::path("/sys/class/net") / netdev / "ecn";
  if (files.exists(ofed)) {
    state.flavour = EcnFlavour::Ofed;
    state.source = ofed.string();
    for (const auto& [point, params, enabled] :
         {std::tuple{"roce_np", &state.np_params, &state.np_enabled},
          std::tuple{"roce_rp", &state.rp_params, &state.rp_enabled}}) {
      auto mask = read_enable_mask(files, ofed / point);
      if (!mask) return mask.error();
      *enabled = *mask;
      auto values = read_ofed_params(files, ofed / point);
      if (!values) return values.error();
      *params = std::move(*values);
    }
    return state;
  }
  if (!pci.empty()) {
    const fs::path inbox = fs::path("/sys/kernel/debug/mlx5") / pci / "cc_params";
    if (files.exists(inbox)) {
      state.flavour = EcnFlavour::Inbox;
      state.source = inbox.string();
      auto values = read_decimal_files(files, inbox);
      if (!values) return values.error();
      for (auto& [name, value] : *values) {
        (name.rfind("np_", 0) == 0 ? state.np_params : state.rp_params).emplace(name, value);
      }
      return state;
    }
  }
  return state;
}

std::optional<std::string> debugfs_lockdown(const FileTree& files) {
  auto text = files.read("/sys/kernel/security/lockdown");
  if (!text) return std::nullopt;
  const size_t open = text->find('[');
  const size_t close = text->find(']', open);
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  std::string level = text->substr(open + 1, close - open - 1);
  if (level == "none") return std::nullopt;
  return level;
}

Result<void> write_ecn_knob(FileTree& files, EcnFlavour flavour, const std::string& pci,
                            const std::string& netdev, const std::string& upstream_name,
                            uint64_t value) {
  auto path = knob_path(flavour, pci, netdev, upstream_name);
  if (!path) {
    return Error{EOPNOTSUPP,
                 "the " + ecn_flavour_name(flavour) + " driver has no " + upstream_name + " knob"};
  }
  if (flavour == EcnFlavour::Ofed && !files.exists(*path)) {
    const fs::path nested = path->parent_path() / "params" / path->filename();
    if (files.exists(nested)) path = nested;
  }
  return files.write(*path, std::to_string(value) + "\n");
}

Result<void> write_ecn_enable(FileTree& files, const std::string& netdev, const std::string& point,
                              int priority, bool enabled) {
  return files.write(ecn_enable_path(netdev, point, priority), enabled ? "1\n" : "0\n");
}

}  // namespace roced::rdma
