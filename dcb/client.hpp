// SPDX-License-Identifier: Apache-2.0
#pragma once
// DCB over rtnetlink (RTM_GETDCB / RTM_SETDCB). One feature per SET message, so a failure can be
// attributed; the status byte inside the reply is checked, not just the netlink ACK
// (dcbnl.c: dcbnl_ieee_set).

#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "os/system.hpp"

namespace roced::dcb {

class DcbClient {
 public:
  explicit DcbClient(System& system) : system_(system) {}

  Result<IeeeState> get(const std::string& ifname);                // DCB_CMD_IEEE_GET
  Result<uint8_t> get_dcbx(const std::string& ifname);             // DCB_CMD_GDCBX
  Result<void> set_dcbx(const std::string& ifname, uint8_t mode);  // DCB_CMD_SDCBX
  Result<void> set_pfc(const std::string& ifname, const Pfc& pfc);
  Result<void> set_ets(const std::string& ifname, const Ets& ets);
  Result<void> set_maxrate(const std::string& ifname, const Maxrate& maxrate);
  Result<void> set_buffer(const std::string& ifname, const Buffer& buffer);
  Result<void> add_apps(const std::string& ifname,
                        const std::vector<AppEntry>& apps);  // IEEE_SET APP_TABLE
  Result<void> delete_apps(const std::string& ifname,
                           const std::vector<AppEntry>& apps);  // IEEE_DEL APP_TABLE

 private:
  System& system_;
};

}  // namespace roced::dcb
