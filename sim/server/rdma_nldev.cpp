// SPDX-License-Identifier: Apache-2.0
// The NETLINK_RDMA socket's receive path: drivers/infiniband/core/netlink.c (rdma_nl_rcv_skb,
// rdma_nl_rcv_msg) and the nldev handlers of drivers/infiniband/core/nldev.c.
#include "sim/server/rdma_nldev.hpp"

#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <map>

#include "sim/model/firmware_commands.hpp"
#include "sim/server/rtnl_internal.hpp"

namespace roce_sim::server {

namespace {

constexpr uint16_t nldev_type(uint16_t op) {
  return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op));
}

// mlx5 reports its node GUID from the firmware (mlx5_query_nic_vport_node_guid); the model
// derives one from the MAC as the firmware's EUI-64 does.
uint64_t node_guid(const std::string& mac_text) {
  const auto mac = rtnl::parse_mac(mac_text);
  const uint8_t eui[8] = {
      static_cast<uint8_t>(mac[0] ^ 0x02), mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]};
  uint64_t guid = 0;
  for (uint8_t byte : eui) guid = (guid << 8) | byte;
  return guid;
}

// fill_nldev_handle: every nldev reply starts with the device's index and name.
void put_handle(NlMessage& message, uint32_t index, const Port& port) {
  message.put_u32(RDMA_NLDEV_ATTR_DEV_INDEX, index);
  message.put_string(RDMA_NLDEV_ATTR_DEV_NAME, port.rdma().name());
}

// fill_dev_info: the handle, the last port number (rdma_end_port: an mlx5 Ethernet function has
// one), capabilities, firmware, GUIDs and the node type (RDMA_NODE_IB_CA), then the protocol.
void put_dev_info(NlMessage& message, uint32_t index, const Port& port) {
  put_handle(message, index, port);
  message.put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, port.rdma().port());
  message.put_u64(RDMA_NLDEV_ATTR_CAP_FLAGS, 0);
  message.put_string(RDMA_NLDEV_ATTR_FW_VERSION, port.spec().firmware);
  const uint64_t guid = node_guid(port.spec().mac);
  message.put_u64(RDMA_NLDEV_ATTR_NODE_GUID, guid);
  message.put_u64(RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, guid);
  message.put_u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
  message.put_string(RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
}

}  // namespace

std::vector<std::string> RdmaNlService::take_request_log() {
  std::vector<std::string> log;
  log.swap(request_log_);
  return log;
}

// rdma_nl_rcv_skb: messages without NLM_F_REQUEST and control types are acknowledged unhandled;
// an error, or NLM_F_ACK, is answered with NLMSG_ERROR; a dump is followed by NLMSG_DONE.
std::vector<Outgoing> RdmaNlService::handle(ByteView datagram, NlPeer& peer) {
  std::vector<Outgoing> out;
  for (const NlRequest& request : split_messages(datagram)) {
    if (apply_control_message(request, peer)) continue;  // its groups carry nothing here
    int err = 0;
    Bytes reply;
    bool dumped = false;
    if ((request.header.nlmsg_flags & NLM_F_REQUEST) &&
        request.header.nlmsg_type >= NLMSG_MIN_TYPE) {
      err = dispatch(request, peer, reply, dumped);
    }
    if (!reply.empty()) out.push_back(rtnl::to_self(std::move(reply)));
    if (dumped) {
      Bytes done;
      append_done(done, request.header.nlmsg_seq, peer.pid);
      out.push_back(rtnl::to_self(std::move(done)));
    } else if (err != 0 || (request.header.nlmsg_flags & NLM_F_ACK)) {
      out.push_back(rtnl::to_self(make_ack(request, err, peer.pid)));
    }
  }
  return out;
}

// rdma_nl_rcv_msg: the client (here only RDMA_NL_NLDEV) and op come from the type; a dump
// request goes to the op's dump handler, anything else to its doit; neither is -EINVAL.
int RdmaNlService::dispatch(const NlRequest& request, const NlPeer& peer, Bytes& reply,
                            bool& dumped) {
  const uint16_t type = request.header.nlmsg_type;
  if (RDMA_NL_GET_CLIENT(type) != RDMA_NL_NLDEV) return -EINVAL;  // the LS/IWCM clients: not here
  const bool dump = (request.header.nlmsg_flags & NLM_F_DUMP) != 0;
  switch (RDMA_NL_GET_OP(type)) {
    case RDMA_NLDEV_CMD_GET:
      request_log_.emplace_back(dump ? "rdma dev dump" : "rdma dev get");
      dumped = dump;
      return get_device(request, peer, reply, dump);
    case RDMA_NLDEV_CMD_STAT_GET:
      // nldev_stat_get_dumpit lists counters bound to QPs or MRs (RDMA_NLDEV_ATTR_STAT_RES, else
      // -EINVAL): no QP exists on the simulated node.
      if (dump) return -EINVAL;
      request_log_.emplace_back("rdma stat get");
      return get_stats(request, peer, reply);
    default:
      if (RDMA_NL_GET_OP(type) >= RDMA_NLDEV_NUM_OPS) return -EINVAL;
      request_log_.emplace_back("rdma op " + std::to_string(RDMA_NL_GET_OP(type)) +
                                " (not modelled)");
      return -EOPNOTSUPP;
  }
}

// nldev_get_dumpit (every registered device) and nldev_get_doit (RDMA_NLDEV_ATTR_DEV_INDEX, an
// unknown index is -EINVAL), each one fill_dev_info message.
int RdmaNlService::get_device(const NlRequest& request, const NlPeer& peer, Bytes& reply,
                              bool dump) {
  const AttrTable attrs = parse_attrs(request.payload);
  if (dump) {  // ib_enum_all_devs walks the devices xarray: index order
    std::map<uint32_t, Port*> by_index;
    for (Port* port : node_.ports()) {
      const int64_t index = node_.rdma_index(port->netdev());
      if (index >= 0) by_index.emplace(static_cast<uint32_t>(index), port);
    }
    for (const auto& [index, port] : by_index) {
      NlMessage message(nldev_type(RDMA_NLDEV_CMD_GET), NLM_F_MULTI, request.header.nlmsg_seq,
                        peer.pid);
      put_dev_info(message, index, *port);
      message.append_to(reply);
    }
    return 0;
  }
  uint32_t index = 0;
  if (!attr_as(attrs, RDMA_NLDEV_ATTR_DEV_INDEX, index)) return -EINVAL;
  for (Port* port : node_.ports()) {
    if (node_.rdma_index(port->netdev()) != index) continue;
    NlMessage message(nldev_type(RDMA_NLDEV_CMD_GET), 0, request.header.nlmsg_seq, peer.pid);
    put_dev_info(message, index, *port);
    message.append_to(reply);
    return 0;
  }
  return -EINVAL;
}

// nldev_stat_get_doit without RDMA_NLDEV_ATTR_STAT_RES: stat_get_doit_default_counter. The device
// and port must exist (-EINVAL); the driver's get_hw_stats runs on every request (no lifespan
// cache, unlike sysfs), and each counter goes out as a {name, u64} entry: the same values as the
// hw_counters files, which also add the QP-bound counters' share (rdma_counter_get_hwstat_value).
int RdmaNlService::get_stats(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(request.payload);
  if (attrs.count(RDMA_NLDEV_ATTR_STAT_RES)) return -EOPNOTSUPP;  // QP/MR counters: not modelled
  uint32_t index = 0, port_number = 0;
  if (!attr_as(attrs, RDMA_NLDEV_ATTR_DEV_INDEX, index) ||
      !attr_as(attrs, RDMA_NLDEV_ATTR_PORT_INDEX, port_number)) {
    return -EINVAL;
  }
  Port* port = node_.find_rdma(index, port_number);
  if (port == nullptr) return -EINVAL;
  for (const auto& query : firmware::kRdmaStatsQueries) port->issue(query.name, query.count);
  // A failed firmware query fails the driver's get_hw_stats, which nldev reports as -EINVAL
  // whatever the error was.
  if (node_.take_injected_error(port->netdev(), SetOp::RdmaStats) != 0) return -EINVAL;

  NlMessage message(nldev_type(RDMA_NLDEV_CMD_STAT_GET), 0, request.header.nlmsg_seq, peer.pid);
  put_handle(message, index, *port);
  message.put_u32(RDMA_NLDEV_ATTR_PORT_INDEX, port_number);
  const size_t table = message.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  for (const auto& [name, counter] : port->rdma().hw_counters()) {
    const size_t entry = message.begin_nest(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
    message.put_string(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
    message.put_u64(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, counter.value);
    message.end_nest(entry);
  }
  message.end_nest(table);
  message.append_to(reply);
  return 0;
}

}  // namespace roce_sim::server
