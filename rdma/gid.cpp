// SPDX-License-Identifier: Apache-2.0
#include "rdma/gid.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>
#include <set>

#include "util/decimal.hpp"

namespace roced::rdma {

namespace {

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0')) {
    text.pop_back();
  }
  return text;
}

// Missing attribute: EINVAL from the kernel for an empty slot, ENOENT where the file is absent.
bool is_empty_slot_error(const Error& error) {
  return error.code == EINVAL || error.code == ENOENT || error.code == ENODATA;
}

std::optional<std::array<uint8_t, 16>> parse_gid(const std::string& gid) {
  std::array<uint8_t, 16> bytes{};
  if (::inet_pton(AF_INET6, gid.c_str(), bytes.data()) != 1) return std::nullopt;
  return bytes;
}

}  // namespace

bool is_zero_gid(const std::string& gid) {
  const auto bytes = parse_gid(gid);
  if (!bytes) return false;
  return std::all_of(bytes->begin(), bytes->end(), [](uint8_t b) { return b == 0; });
}

std::optional<std::string> ipv4_of_mapped_gid(const std::string& gid) {
  const auto bytes = parse_gid(gid);
  if (!bytes) return std::nullopt;
  static constexpr std::array<uint8_t, 12> kMappedPrefix = {0, 0, 0, 0, 0,    0,
                                                            0, 0, 0, 0, 0xff, 0xff};
  if (!std::equal(kMappedPrefix.begin(), kMappedPrefix.end(), bytes->begin())) return std::nullopt;
  char text[INET_ADDRSTRLEN];
  if (::inet_ntop(AF_INET, bytes->data() + 12, text, sizeof(text)) == nullptr) return std::nullopt;
  return std::string(text);
}

std::string compact_gid(const std::string& gid) {
  const auto bytes = parse_gid(gid);
  if (!bytes) return gid;
  char text[INET6_ADDRSTRLEN];
  if (::inet_ntop(AF_INET6, bytes->data(), text, sizeof(text)) == nullptr) return gid;
  return text;
}

Result<std::vector<GidEntry>> read_gid_table(const FileTree& files, const std::string& device,
                                             int port) {
  return read_gid_table_until(files, device, port, [](const GidEntry&) { return false; });
}

Result<std::vector<GidEntry>> read_gid_table_until(
    const FileTree& files, const std::string& device, int port,
    const std::function<bool(const GidEntry&)>& stop_after) {
  const std::filesystem::path port_dir =
      std::filesystem::path("/sys/class/infiniband") / device / "ports" / std::to_string(port);
  auto names = files.list(port_dir / "gids");
  if (!names) return names.error();
  std::vector<int> indexes;
  for (const auto& name : *names) {
    if (const auto index = parse_decimal<int>(name)) indexes.push_back(*index);
  }
  std::sort(indexes.begin(), indexes.end());

  std::vector<GidEntry> table;
  for (const int index : indexes) {
    const std::string slot = std::to_string(index);
    auto gid = files.read(port_dir / "gids" / slot);
    if (!gid) {
      if (is_empty_slot_error(gid.error())) continue;
      return gid.error();
    }
    GidEntry entry;
    entry.index = index;
    entry.gid = trim(*gid);
    if (is_zero_gid(entry.gid)) continue;
    auto type = files.read(port_dir / "gid_attrs" / "types" / slot);
    if (!type) {
      if (is_empty_slot_error(type.error())) continue;  // the slot emptied between the reads
      return type.error();
    }
    entry.type = trim(*type);
    // ndevs exists from kernel 4.x; its absence leaves the netdev unknown, not the slot empty.
    if (auto ndev = files.read(port_dir / "gid_attrs" / "ndevs" / slot)) entry.ndev = trim(*ndev);
    table.push_back(std::move(entry));
    if (stop_after(table.back())) break;
  }
  return table;
}

Result<size_t> gid_table_slots(const FileTree& files, const std::string& device, int port) {
  auto names = files.list(std::filesystem::path("/sys/class/infiniband") / device / "ports" /
                          std::to_string(port) / "gids");
  if (!names) return names.error();
  return static_cast<size_t>(std::count_if(names->begin(), names->end(), [](const auto& name) {
    return parse_decimal<int>(name).has_value();
  }));
}

ForeignEntries foreign_entries(const FileTree& files, const std::vector<GidEntry>& table) {
  ForeignEntries out;
  std::set<std::string> netdevs;
  std::map<std::string, bool> here;  // name -> a netdev of this namespace has it
  for (const auto& entry : table) {
    if (entry.ndev.empty()) continue;
    bool foreign = entry.elsewhere;
    if (!foreign) {
      auto it = here.find(entry.ndev);
      if (it == here.end()) {
        it = here.emplace(entry.ndev,
                          files.exists(std::filesystem::path("/sys/class/net") / entry.ndev))
                 .first;
      }
      foreign = !it->second;
    }
    if (!foreign) continue;
    netdevs.insert(entry.ndev);
    ++out.count;
  }
  out.netdevs.assign(netdevs.begin(), netdevs.end());
  return out;
}

std::optional<GidEntry> roce_v2_ipv4_entry(const std::vector<GidEntry>& table,
                                           const std::string& netdev) {
  // An entry naming this netdev wins; one with no ndev (kernels before gid_attrs) is a fallback.
  std::optional<GidEntry> named;
  std::optional<GidEntry> unnamed;
  for (const auto& entry : table) {  // the table is sorted by index: the first match is lowest
    if (entry.elsewhere || entry.type != "RoCE v2" || !ipv4_of_mapped_gid(entry.gid)) continue;
    if (entry.ndev == netdev && !named) named = entry;
    if (entry.ndev.empty() && !unnamed) unnamed = entry;
  }
  return named ? named : unnamed;
}

std::optional<GidEntry> roce_v2_ipv6_entry(const std::vector<GidEntry>& table,
                                           const std::string& netdev) {
  std::optional<GidEntry> named;
  std::optional<GidEntry> unnamed;
  for (const auto& entry : table) {
    if (entry.elsewhere || entry.type != "RoCE v2" || ipv4_of_mapped_gid(entry.gid)) continue;
    const auto bytes = parse_gid(entry.gid);
    if (!bytes || (bytes->at(0) == 0xfe && (bytes->at(1) & 0xc0) == 0x80)) continue;
    if (entry.ndev == netdev && !named) named = entry;
    if (entry.ndev.empty() && !unnamed) unnamed = entry;
  }
  return named ? named : unnamed;
}

}  // namespace roced::rdma
