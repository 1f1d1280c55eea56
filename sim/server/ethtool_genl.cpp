// SPDX-License-Identifier: Apache-2.0
// The NETLINK_GENERIC socket's receive path: net/netlink/genetlink.c (genl_rcv_msg, the
// controller's ctrl_getfamily) and the ethtool family's default doit (net/ethtool/netlink.c
// ethnl_default_doit) for ETHTOOL_MSG_STATS_GET (net/ethtool/stats.c).
#include "sim/server/ethtool_genl.hpp"

#include <linux/devlink.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include "sim/model/firmware_commands.hpp"
#include "sim/server/genl_internal.hpp"
#include "sim/server/rtnl_internal.hpp"

namespace roce_sim::server {

namespace {

using StatGroups = std::array<bool, __ETHTOOL_STATS_CNT>;

// net/ethtool/stats.c stats_std_names: the groups' names in a verbose bitset.
constexpr std::array<const char*, __ETHTOOL_STATS_CNT> kGroupNames = {"eth-phy", "eth-mac",
                                                                      "eth-ctrl", "rmon"};

// One verbose bit (ETHTOOL_A_BITSET_BITS_BIT): by index or by name; -EINVAL when neither names
// a group (ethnl_parse_bit).
int parse_bit(ByteView bit, bool no_mask, StatGroups& groups) {
  const AttrTable attrs = parse_attrs(bit);
  int index = -1;
  uint32_t number = 0;
  if (attr_as(attrs, ETHTOOL_A_BITSET_BIT_INDEX, number)) {
    if (number < groups.size()) index = static_cast<int>(number);
  } else if (auto name = attrs.find(ETHTOOL_A_BITSET_BIT_NAME); name != attrs.end()) {
    for (size_t i = 0; i < kGroupNames.size(); ++i) {
      if (attr_string(name->second) == kGroupNames[i]) index = static_cast<int>(i);
    }
  }
  if (index < 0) return -EINVAL;
  groups[static_cast<size_t>(index)] = no_mask || attrs.count(ETHTOOL_A_BITSET_BIT_VALUE) != 0;
  return 0;
}

// net/ethtool/bitset.c ethnl_update_bitset over an all-clear bitmap: compact (SIZE, VALUE and,
// without NOMASK, MASK) or verbose (BITS); a bit past the kernel's groups is -EINVAL.
int parse_groups(ByteView bitset, StatGroups& groups) {
  const AttrTable attrs = parse_attrs(bitset);
  const bool no_mask = attrs.count(ETHTOOL_A_BITSET_NOMASK) != 0;
  if (auto bits = attrs.find(ETHTOOL_A_BITSET_BITS); bits != attrs.end()) {
    for (const auto& [type, bit] : list_attrs(bits->second)) {
      if (type != ETHTOOL_A_BITSET_BITS_BIT) return -EINVAL;
      if (const int err = parse_bit(bit, no_mask, groups); err != 0) return err;
    }
    return 0;
  }
  uint32_t size = 0;
  const auto value = attrs.find(ETHTOOL_A_BITSET_VALUE);
  const auto mask = attrs.find(ETHTOOL_A_BITSET_MASK);
  if (!attr_as(attrs, ETHTOOL_A_BITSET_SIZE, size) || value == attrs.end()) return -EINVAL;
  if (!no_mask && mask == attrs.end()) return -EINVAL;
  const auto bit_set = [](ByteView words, uint32_t bit) {
    const size_t byte = bit / 8;  // u32 words in host order: little-endian here
    return byte < words.size() && (words[byte] >> (bit % 8) & 1) != 0;
  };
  for (uint32_t bit = 0; bit < size; ++bit) {
    const bool set = bit_set(value->second, bit) && (no_mask || bit_set(mask->second, bit));
    if (!set) continue;
    if (bit >= groups.size()) return -EINVAL;
    groups[bit] = true;
  }
  return 0;
}

// stat_put: each counter in a nest of its own, its attribute type its index in the group.
void put_stat(NlMessage& message, uint16_t type, uint64_t value) {
  const size_t nest = message.begin_nest(ETHTOOL_A_STATS_GRP_STAT);
  message.put_u64(type, value);
  message.end_nest(nest);
}

}  // namespace

std::vector<std::string> GenlService::take_request_log() {
  std::vector<std::string> log;
  log.swap(request_log_);
  return log;
}

// genl_rcv_msg through netlink_rcv_skb: an error, or NLM_F_ACK, is answered with NLMSG_ERROR.
std::vector<Outgoing> GenlService::handle(ByteView datagram, NlPeer& peer) {
  std::vector<Outgoing> out;
  for (const NlRequest& request : split_messages(datagram)) {
    if (apply_control_message(request, peer)) continue;
    int err = 0;
    Bytes reply;
    if ((request.header.nlmsg_flags & NLM_F_REQUEST) &&
        request.header.nlmsg_type >= NLMSG_MIN_TYPE) {
      err = dispatch(request, peer, reply);
    }
    if (!reply.empty()) out.push_back(rtnl::to_self(std::move(reply)));
    if (err != 0 || (request.header.nlmsg_flags & NLM_F_ACK)) {
      out.push_back(rtnl::to_self(make_ack(request, err, peer.pid)));
    }
  }
  return out;
}

// genl_family_rcv_msg: an unknown family id is -ENOENT, a payload shorter than the generic
// header -EINVAL; dumps are not modelled.
int GenlService::dispatch(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  if (request.payload.size() < GENL_HDRLEN) return -EINVAL;
  if ((request.header.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) return -EOPNOTSUPP;
  const genlmsghdr header = genl_header(request.payload);
  if (request.header.nlmsg_type == GENL_ID_CTRL) {
    if (header.cmd != CTRL_CMD_GETFAMILY) return -EOPNOTSUPP;
    return get_family(request, peer, reply);
  }
  if (request.header.nlmsg_type == kDevlinkFamily) {
    if (header.cmd == DEVLINK_CMD_HEALTH_REPORTER_GET)
      return get_health_reporter(request, peer, reply);
    request_log_.push_back("devlink cmd " + std::to_string(header.cmd) + " (not modelled)");
    return -EOPNOTSUPP;
  }
  if (request.header.nlmsg_type != kEthtoolFamily) return -ENOENT;
  if (header.cmd == ETHTOOL_MSG_STATS_GET) return get_stats(request, peer, reply);
  if (header.cmd == ETHTOOL_MSG_MODULE_EEPROM_GET) return get_module_eeprom(request, peer, reply);
  if (header.cmd == ETHTOOL_MSG_FEC_GET) return get_fec(request, peer, reply);
  request_log_.push_back("ethtool genl cmd " + std::to_string(header.cmd) + " (not modelled)");
  return -EOPNOTSUPP;
}

int GenlService::find_port(ByteView header, Port*& port) const {
  const AttrTable device = parse_attrs(header);
  int ifindex = 0;
  if (attr_as(device, ETHTOOL_A_HEADER_DEV_INDEX, ifindex)) {
    port = node_.find(ifindex);
  } else if (auto name = device.find(ETHTOOL_A_HEADER_DEV_NAME); name != device.end()) {
    port = node_.find(attr_string(name->second));
  } else {
    return -EINVAL;
  }
  return port == nullptr ? -ENODEV : 0;
}

// eeprom_parse_request and the policy (ethnl_module_eeprom_get_policy): offset, length, page and
// I2C address are required; offset 0-255, length 1-128, address 0-0x7f; a page other than 0 only
// from offset 128; no read across offset 128 or 256. eeprom_prepare_data then asks the driver
// (mlx5e_get_module_eeprom_by_page: the i2c address must be 0x50 or 0x51, else -EINVAL), which
// reads in MCIA chunks. A port without a module of its own has no such op: the fallback to the
// legacy ops finds none either (-EOPNOTSUPP).
int GenlService::get_module_eeprom(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(genl_attrs(request.payload));
  const auto header = attrs.find(ETHTOOL_A_MODULE_EEPROM_HEADER);
  if (header == attrs.end()) return -EINVAL;
  Port* port = nullptr;
  if (const int err = find_port(header->second, port); err != 0) return err;
  uint32_t offset = 0, length = 0;
  uint8_t page = 0, address = 0, bank = 0;
  if (!attr_as(attrs, ETHTOOL_A_MODULE_EEPROM_OFFSET, offset) ||
      !attr_as(attrs, ETHTOOL_A_MODULE_EEPROM_LENGTH, length) ||
      !attr_as(attrs, ETHTOOL_A_MODULE_EEPROM_PAGE, page) ||
      !attr_as(attrs, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, address)) {
    return -EINVAL;
  }
  attr_as(attrs, ETHTOOL_A_MODULE_EEPROM_BANK, bank);
  constexpr uint32_t kHalf = 128;  // ETH_MODULE_EEPROM_PAGE_LEN (include/linux/ethtool.h)
  if (offset > 2 * kHalf - 1 || length < 1 || length > kHalf || address > 0x7f) return -ERANGE;
  if (page != 0 && offset < kHalf) return -EINVAL;
  if (offset < kHalf && offset + length > kHalf) return -EINVAL;
  if (offset + length > 2 * kHalf) return -EINVAL;
  request_log_.push_back("ethtool module eeprom get " + port->netdev() + " page " +
                         std::to_string(page) + " offset " + std::to_string(offset));
  Transceiver* module = port->transceiver();
  if (module == nullptr && !port->empty_cage()) return -EOPNOTSUPP;
  if (address != 0x50 && address != 0x51) return -EINVAL;
  // An empty cage: MCIA reports no module, and mlx5e_get_module_eeprom_by_page returns the bytes
  // read so far, none, with no error (as before the 2025 fix); the kernel replies with empty data.
  const bool empty = module == nullptr;
  if (empty) port->issue("ACCESS_REG", firmware::kEepromChunkAccessRegs);
  const uint32_t chunks = (length + firmware::kMciaMaxBytes - 1) / firmware::kMciaMaxBytes;
  if (!empty) port->issue("ACCESS_REG", chunks * firmware::kEepromChunkAccessRegs);
  const std::vector<uint8_t> data = empty ? std::vector<uint8_t>{}
                                    : address == 0x50 && bank == 0
                                        ? module->read(page, offset, length)
                                        : std::vector<uint8_t>(length, 0);  // nothing answers there

  NlMessage message = genl_reply(kEthtoolFamily, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY,
                                 ETHTOOL_GENL_VERSION, request, peer);
  const size_t reply_header = message.begin_nest(ETHTOOL_A_MODULE_EEPROM_HEADER);
  message.put_u32(ETHTOOL_A_HEADER_DEV_INDEX, static_cast<uint32_t>(node_.ifindex(port->netdev())));
  message.put_string(ETHTOOL_A_HEADER_DEV_NAME, port->netdev());
  message.end_nest(reply_header);
  message.put_attr(ETHTOOL_A_MODULE_EEPROM_DATA, data.data(), data.size());
  message.append_to(reply);
  return 0;
}

// net/ethtool/fec.c: fec_prepare_data asks get_fecparam (mlx5e_get_fecparam: RS-FEC at 100G and
// above) and, with ETHTOOL_FLAG_STATS in the header, get_fec_stats; fec_fill_reply puts the
// configured modes as a bitset, FEC_AUTO, FEC_ACTIVE (a link mode bit) and the statistics nest.
// mlx5e_get_fecparam answers RS (PPLM: RS-FEC (544,514) at 400G, (528,514) at 100G).
// Each statistic is an array of u64: the total, then one per lane where the driver counts per
// lane (fec_stats_recalc); none the driver set gives an empty attribute. mlx5 gives totals in the
// RS modes (en_stats.c fec_set_rs_stats). Representors, bonds and VLANs have no get_fecparam.
int GenlService::get_fec(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(genl_attrs(request.payload));
  const auto header = attrs.find(ETHTOOL_A_FEC_HEADER);
  if (header == attrs.end()) return -EINVAL;
  Port* port = nullptr;
  if (const int err = find_port(header->second, port); err != 0) return err;
  uint32_t flags = 0;
  attr_as(parse_attrs(header->second), ETHTOOL_A_HEADER_FLAGS, flags);
  if (flags & ~static_cast<uint32_t>(ETHTOOL_FLAG_ALL)) return -EOPNOTSUPP;
  request_log_.push_back("ethtool fec get " + port->netdev());
  if (port->spec().is_stacked() || port->spec().is_representor()) return -EOPNOTSUPP;
  // mlx5e_get_fecparam: PPLM's active mode is empty while the link is down, and the op answers
  // -EOPNOTSUPP then; fec_prepare_data stops there, before the statistics.
  port->issue("ACCESS_REG", firmware::kFecParamAccessRegs);
  if (!port->carrier()) return -EOPNOTSUPP;
  const bool stats = (flags & ETHTOOL_FLAG_STATS) != 0;
  if (stats) port->issue("ACCESS_REG", firmware::kFecStatsAccessRegs);

  NlMessage message =
      genl_reply(kEthtoolFamily, ETHTOOL_MSG_FEC_GET_REPLY, ETHTOOL_GENL_VERSION, request, peer);
  const size_t reply_header = message.begin_nest(ETHTOOL_A_FEC_HEADER);
  message.put_u32(ETHTOOL_A_HEADER_DEV_INDEX, static_cast<uint32_t>(node_.ifindex(port->netdev())));
  message.put_string(ETHTOOL_A_HEADER_DEV_NAME, port->netdev());
  message.end_nest(reply_header);
  // ethnl_put_bitset without a mask: NOMASK, the size and the value words.
  constexpr uint32_t kModeBits = __ETHTOOL_LINK_MODE_MASK_NBITS;
  std::array<uint32_t, (kModeBits + 31) / 32> words{};
  words[ETHTOOL_LINK_MODE_FEC_RS_BIT / 32] |= 1U << (ETHTOOL_LINK_MODE_FEC_RS_BIT % 32);
  const size_t modes = message.begin_nest(ETHTOOL_A_FEC_MODES);
  message.put_attr(ETHTOOL_A_BITSET_NOMASK, nullptr, 0);
  message.put_u32(ETHTOOL_A_BITSET_SIZE, kModeBits);
  message.put_attr(ETHTOOL_A_BITSET_VALUE, words.data(), sizeof(words));
  message.end_nest(modes);
  message.put_u8(ETHTOOL_A_FEC_AUTO, 0);
  message.put_u32(ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
  if (stats) {
    const PortCounters& counters = port->counters();
    const size_t nest = message.begin_nest(ETHTOOL_A_FEC_STATS);
    message.put_u64(ETHTOOL_A_FEC_STAT_CORRECTED, counters.rs_fec_corrected_blocks);
    message.put_u64(ETHTOOL_A_FEC_STAT_UNCORR, counters.rs_fec_uncorrectable_blocks);
    message.put_u64(ETHTOOL_A_FEC_STAT_CORR_BITS, counters.rx_corrected_bits_phy);
    message.end_nest(nest);
  }
  message.append_to(reply);
  return 0;
}

// ctrl_getfamily by CTRL_ATTR_FAMILY_NAME (ctrl_fill_info): the id, name, version, header size
// and highest attribute, and devlink's multicast group; the ops it also lists are left out, as
// is ethtool's "monitor" group.
int GenlService::get_family(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(genl_attrs(request.payload));
  const auto name = attrs.find(CTRL_ATTR_FAMILY_NAME);
  if (name == attrs.end()) return -EINVAL;
  const std::string family = attr_string(name->second);
  request_log_.push_back("genl family " + family);
  const bool devlink = family == DEVLINK_GENL_NAME;
  if (!devlink && family != ETHTOOL_GENL_NAME) return -ENOENT;
  NlMessage message = genl_reply(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, 2, request, peer);
  message.put_u16(CTRL_ATTR_FAMILY_ID, devlink ? kDevlinkFamily : kEthtoolFamily);
  message.put_string(CTRL_ATTR_FAMILY_NAME, family);
  message.put_u32(CTRL_ATTR_VERSION, devlink ? DEVLINK_GENL_VERSION : ETHTOOL_GENL_VERSION);
  message.put_u32(CTRL_ATTR_HDRSIZE, 0);
  message.put_u32(CTRL_ATTR_MAXATTR, 0);
  if (devlink) {
    const size_t groups = message.begin_nest(CTRL_ATTR_MCAST_GROUPS);
    const size_t group = message.begin_nest(1);
    message.put_u32(CTRL_ATTR_MCAST_GRP_ID, kDevlinkConfigGroup);
    message.put_string(CTRL_ATTR_MCAST_GRP_NAME, DEVLINK_GENL_MCGRP_CONFIG_NAME);
    message.end_nest(group);
    message.end_nest(groups);
  }
  message.append_to(reply);
  return 0;
}

// ethnl_default_doit: the header names the device (ethnl_parse_header_dev_get: none is -EINVAL,
// an unknown one -ENODEV); stats_parse_request wants a group (-EINVAL); stats_prepare_data runs
// the driver op of each group asked for; stats_fill_reply puts each group asked for, with the
// counters the driver set. eth-phy and eth-ctrl are modelled with values (mlx5e_stats_eth_phy_get,
// mlx5e_stats_eth_ctrl_get); a representor's ops have none (en_rep.c mlx5e_rep_ethtool_ops), nor
// a bond's or a VLAN's.
int GenlService::get_stats(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(genl_attrs(request.payload));
  const auto header = attrs.find(ETHTOOL_A_STATS_HEADER);
  if (header == attrs.end()) return -EINVAL;
  Port* port = nullptr;
  if (const int err = find_port(header->second, port); err != 0) return err;
  StatGroups groups{};
  const auto bitset = attrs.find(ETHTOOL_A_STATS_GROUPS);
  if (bitset == attrs.end()) return -EINVAL;
  if (const int err = parse_groups(bitset->second, groups); err != 0) return err;
  if (std::find(groups.begin(), groups.end(), true) == groups.end()) return -EINVAL;
  request_log_.push_back("ethtool stats get " + port->netdev());

  const bool driver_ops = !port->spec().is_stacked() && !port->spec().is_representor();
  if (driver_ops) {
    for (bool asked : groups) {
      if (asked) port->issue("ACCESS_REG", firmware::kStatsGroupAccessRegs);
    }
  }
  // A failed PPCNT read leaves the group's counters ETHTOOL_STAT_NOT_SET: mlx5e_stats_eth_phy_get
  // returns nothing to fail with, so the answer comes, without them (stats.c stat_put).
  const bool phy_read_failed = driver_ops && groups[ETHTOOL_STATS_ETH_PHY] &&
                               node_.take_injected_error(port->netdev(), SetOp::PhyStats) != 0;
  NlMessage message =
      genl_reply(kEthtoolFamily, ETHTOOL_MSG_STATS_GET_REPLY, ETHTOOL_GENL_VERSION, request, peer);
  const size_t reply_header = message.begin_nest(ETHTOOL_A_STATS_HEADER);
  message.put_u32(ETHTOOL_A_HEADER_DEV_INDEX, static_cast<uint32_t>(node_.ifindex(port->netdev())));
  message.put_string(ETHTOOL_A_HEADER_DEV_NAME, port->netdev());
  message.end_nest(reply_header);
  for (uint32_t group = 0; group < groups.size(); ++group) {
    if (!groups[group]) continue;
    const size_t nest = message.begin_nest(ETHTOOL_A_STATS_GRP);
    message.put_u32(ETHTOOL_A_STATS_GRP_ID, group);
    message.put_u32(ETHTOOL_A_STATS_GRP_SS_ID, ETH_SS_STATS_ETH_PHY + group);
    if (driver_ops && group == ETHTOOL_STATS_ETH_PHY && !phy_read_failed) {
      put_stat(message, ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR, port->symbol_errors_during_carrier());
    }
    if (driver_ops && group == ETHTOOL_STATS_ETH_CTRL) {
      const Port::MacControlCounts counts = port->mac_control_counts();
      put_stat(message, ETHTOOL_A_STATS_ETH_CTRL_3_TX, counts.transmitted);
      put_stat(message, ETHTOOL_A_STATS_ETH_CTRL_4_RX, counts.received);
      put_stat(message, ETHTOOL_A_STATS_ETH_CTRL_5_RX_UNSUP, counts.unsupported_opcodes);
    }
    message.end_nest(nest);
  }
  message.append_to(reply);
  return 0;
}

}  // namespace roce_sim::server
