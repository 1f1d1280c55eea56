// SPDX-License-Identifier: Apache-2.0
// 802.3x global (link-level) pause through the ethtool ioctl, as `ethtool -a` and `ethtool -A`
// read and set it where they use the ioctl: net/ethtool/ioctl.c ethtool_get_pauseparam and
// ethtool_set_pauseparam (-EOPNOTSUPP for a netdev without the op). mlx5 answers from the PFCC
// register (en_ethtool.c mlx5e_ethtool_get_pauseparam: autoneg always 0) and refuses a set on a
// function that is no vport group manager (-EOPNOTSUPP) and pause autonegotiation (-EINVAL);
// every PFC mask change turns it off again (port.c mlx5_set_port_pfc), so it is read back, not
// remembered.
#include <linux/ethtool.h>

#include <span>

#include "ethtool/ethtool.hpp"

namespace roced {

namespace {

// The whole struct goes in and comes back: the kernel copies it both ways.
Result<void> call(EthtoolIoctl& ioctl, const std::string& ifname, ethtool_pauseparam& param) {
  const std::span<uint8_t> bytes(reinterpret_cast<uint8_t*>(&param), sizeof param);
  return ioctl.call(ifname, bytes, sizeof param);
}

}  // namespace

Result<PauseParams> EthtoolClient::pause(const std::string& ifname) {
  ethtool_pauseparam param{};
  param.cmd = ETHTOOL_GPAUSEPARAM;
  if (auto called = call(*system_.ethtool, ifname, param); !called) return called.error();
  return PauseParams{param.autoneg != 0, param.rx_pause != 0, param.tx_pause != 0};
}

Result<void> EthtoolClient::set_pause(const std::string& ifname, const PauseParams& wanted) {
  ethtool_pauseparam param{};
  param.cmd = ETHTOOL_SPAUSEPARAM;
  param.autoneg = wanted.autoneg ? 1 : 0;
  param.rx_pause = wanted.rx ? 1 : 0;
  param.tx_pause = wanted.tx ? 1 : 0;
  return call(*system_.ethtool, ifname, param);
}

}  // namespace roced
