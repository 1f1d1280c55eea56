// SPDX-License-Identifier: Apache-2.0
#pragma once
// rtnetlink links: list, read, set MTU and admin state (RTM_GETLINK / RTM_NEWLINK).

#include <cstdint>
#include <string>
#include <vector>

#include "os/system.hpp"

namespace roced {

struct LinkInfo {
  int ifindex = 0;
  std::string name;
  uint32_t mtu = 0;
  uint32_t min_mtu = 0;  // 0 when the kernel did not say
  uint32_t max_mtu = 0;
  bool admin_up = false;  // IFF_UP
  bool carrier = false;   // IFF_LOWER_UP
  uint8_t operstate = 0;  // IF_OPER_*
  std::string mac;        // "aa:bb:cc:dd:ee:ff"
  std::string kind;       // IFLA_INFO_KIND ("veth", ...) or empty
};

std::string operstate_name(uint8_t operstate);  // "up", "down", "lowerlayerdown", ...

class LinkClient {
 public:
  explicit LinkClient(System& system) : system_(system) {}
  Result<std::vector<LinkInfo>> list();
  Result<LinkInfo> get(const std::string& name);
  Result<void> set_mtu(const std::string& name, uint32_t mtu);
  Result<void> set_admin_up(const std::string& name, bool up);

 private:
  System& system_;
};

}  // namespace roced
