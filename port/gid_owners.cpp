// SPDX-License-Identifier: Apache-2.0
#include "port/gid_owners.hpp"

#include <arpa/inet.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "util/decimal.hpp"

namespace roced {

std::optional<Address16> mac_link_local_gid(const std::string& mac) {
  unsigned octets[6] = {};
  char tail = 0;
  if (std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &octets[0], &octets[1], &octets[2],
                  &octets[3], &octets[4], &octets[5], &tail) != 6) {
    return std::nullopt;
  }
  Address16 gid{};
  gid[0] = 0xfe;
  gid[1] = 0x80;
  gid[8] = static_cast<uint8_t>(octets[0] ^ 0x02);
  gid[9] = static_cast<uint8_t>(octets[1]);
  gid[10] = static_cast<uint8_t>(octets[2]);
  gid[11] = 0xff;
  gid[12] = 0xfe;
  gid[13] = static_cast<uint8_t>(octets[3]);
  gid[14] = static_cast<uint8_t>(octets[4]);
  gid[15] = static_cast<uint8_t>(octets[5]);
  return gid;
}

GidOwners GidOwners::of(System& system) {
  // Shared by the copies of the lookup: the dump is made once, on the first name asked for.
  struct Dump {
    bool done = false;
    std::optional<std::map<int, std::vector<Address16>>> by_ifindex;
  };
  auto dump = std::make_shared<Dump>();
  return GidOwners([&system, dump](const std::string& name) -> std::optional<std::set<Address16>> {
    if (system.files == nullptr || name.empty() || name.find('/') != std::string::npos) {
      return std::nullopt;
    }
    const std::filesystem::path net = std::filesystem::path("/sys/class/net") / name;
    const auto ifindex_text = system.files->read(net / "ifindex");
    if (!ifindex_text) return std::nullopt;  // not a netdev of this namespace
    std::string trimmed = *ifindex_text;
    while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' '))
      trimmed.pop_back();
    const auto ifindex = parse_decimal<int>(trimmed);
    if (!ifindex) return std::nullopt;
    if (!dump->done) {
      dump->done = true;
      if (auto read = read_addresses(system)) dump->by_ifindex = std::move(*read);
    }
    if (!dump->by_ifindex) return std::nullopt;
    std::set<Address16> gids;
    if (const auto it = dump->by_ifindex->find(*ifindex); it != dump->by_ifindex->end()) {
      gids.insert(it->second.begin(), it->second.end());
    }
    if (auto mac = system.files->read(net / "address")) {
      while (!mac->empty() && (mac->back() == '\n' || mac->back() == ' ')) mac->pop_back();
      if (const auto link_local = mac_link_local_gid(*mac)) gids.insert(*link_local);
    }
    return gids;
  });
}

bool GidOwners::elsewhere(const rdma::GidEntry& entry) {
  if (entry.ndev.empty()) return false;
  auto it = known_.find(entry.ndev);
  if (it == known_.end()) it = known_.emplace(entry.ndev, lookup_(entry.ndev)).first;
  if (!it->second) return false;
  Address16 gid{};
  if (::inet_pton(AF_INET6, entry.gid.c_str(), gid.data()) != 1) return false;
  return it->second->count(gid) == 0;
}

void GidOwners::mark(std::vector<rdma::GidEntry>& table) {
  for (auto& entry : table) entry.elsewhere = elsewhere(entry);
}

}  // namespace roced
