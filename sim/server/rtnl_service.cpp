// SPDX-License-Identifier: Apache-2.0
// The NETLINK_ROUTE socket's receive path (net/core/rtnetlink.c rtnetlink_rcv_msg): control
// messages, then one handler per message type. Links are in rtnl_link.cpp, addresses in
// rtnl_addr.cpp, DCB in dcbnl.cpp.
#include "sim/server/rtnl_service.hpp"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include <cerrno>

#include "roce_sim.h"
#include "sim/server/rtnl_internal.hpp"

namespace roce_sim::server {

using rtnl::to_group;
using rtnl::to_self;

void RtnlService::events_to(std::vector<Outgoing>& out) {
  for (const NodeEvent& event : node_.take_events()) {
    switch (event.kind) {
      case NodeEvent::Kind::LinkChanged:
      case NodeEvent::Kind::LinkAdded:
        // rtnetlink_event -> rtmsg_ifinfo(RTM_NEWLINK, dev, 0)
        if (Port* port = node_.find(event.netdev)) {
          out.push_back(to_group(RTNLGRP_LINK, link_message(view(*port), RTM_NEWLINK, 0, 0, 0, 0)));
        }
        break;
      case NodeEvent::Kind::LinkRemoved: {
        // rollback_registered_many: RTM_DELLINK with the device's last state (closed first).
        auto it = last_view_.find(event.ifindex);
        LinkView gone;
        if (it != last_view_.end()) gone = it->second;
        gone.name = event.netdev;
        gone.ifindex = event.ifindex;
        gone.admin_up = false;
        gone.carrier = false;
        out.push_back(to_group(RTNLGRP_LINK, link_message(gone, RTM_DELLINK, 0, 0, 0, 0)));
        last_view_.erase(event.ifindex);
        break;
      }
      case NodeEvent::Kind::DcbChanged:
        // Another tool's dcbnl request: dcbnl_ieee_set / dcbnl_ieee_del end with
        // dcbnl_ieee_notify(dev, RTM_SETDCB, cmd, seq, 0), the port's state after it.
        if (Port* port = node_.find(event.netdev)) {
          out.push_back(
              to_group(RTNLGRP_DCB, dcb_ieee_message(*port, RTM_SETDCB, event.dcb_cmd, 0, 0, 0)));
        }
        break;
    }
  }
}

std::vector<Outgoing> RtnlService::drain_events() {
  std::vector<Outgoing> out;
  events_to(out);
  return out;
}

std::vector<std::string> RtnlService::take_request_log() {
  std::vector<std::string> log;
  log.swap(request_log_);
  return log;
}

bool apply_control_message(const NlRequest& request, NlPeer& peer) {
  if (request.header.nlmsg_type != ROCE_SIM_NLMSG_CTL) return false;
  roce_sim_nl_ctl ctl{};
  if (request.payload.size() < sizeof ctl) return true;
  std::memcpy(&ctl, request.payload.data(), sizeof ctl);
  switch (ctl.op) {
    case ROCE_SIM_CTL_BIND:
      peer.pid = ctl.arg;
      for (uint32_t bit = 0; bit < 32; ++bit) {
        if (ctl.arg2 & (1u << bit)) peer.groups.insert(bit + 1);  // nl_groups: group n is bit n-1
      }
      break;
    case ROCE_SIM_CTL_ADD_MEMBERSHIP:
      peer.groups.insert(ctl.arg);
      break;
    case ROCE_SIM_CTL_DROP_MEMBERSHIP:
      peer.groups.erase(ctl.arg);
      break;
    default:
      break;
  }
  return true;
}

// rtnetlink_rcv_msg + netlink_rcv_skb: each message is handled in turn; an error, or NLM_F_ACK on
// a non-dump request, is answered with NLMSG_ERROR.
std::vector<Outgoing> RtnlService::handle(ByteView datagram, NlPeer& peer) {
  std::vector<Outgoing> out;
  for (const NlRequest& request : split_messages(datagram)) {
    if (apply_control_message(request, peer)) continue;
    // netlink_rcv_skb: non-requests and control types are only acknowledged.
    if (!(request.header.nlmsg_flags & NLM_F_REQUEST) ||
        request.header.nlmsg_type < NLMSG_MIN_TYPE) {
      if (request.header.nlmsg_flags & NLM_F_ACK)
        out.push_back(to_self(make_ack(request, 0, peer.pid)));
      continue;
    }
    bool dumped = false;
    std::vector<Outgoing> replies;
    // rtnetlink_rcv_msg (net/core/rtnetlink.c): every kind but RTNL_KIND_GET needs
    // netlink_net_capable(skb, CAP_NET_ADMIN); dcbnl_rtnl checks RTM_SETDCB again.
    constexpr uint16_t kRtnlKindMask = 0x3, kRtnlKindGet = 0x2;
    const bool get = (request.header.nlmsg_type & kRtnlKindMask) == kRtnlKindGet;
    const int err = (!get && !peer.net_admin) ? -EPERM : dispatch(request, peer, replies, dumped);
    events_to(out);  // notifications are sent while the request is processed, before its reply
    for (auto& reply : replies) out.push_back(std::move(reply));
    if (err != 0 || (!dumped && (request.header.nlmsg_flags & NLM_F_ACK))) {
      out.push_back(to_self(make_ack(request, err, peer.pid)));
    }
  }
  return out;
}

int RtnlService::dispatch(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out,
                          bool& dumped) {
  switch (request.header.nlmsg_type) {
    case RTM_GETLINK:
      request_log_.push_back("RTM_GETLINK");
      return get_link(request, peer, out, dumped);
    case RTM_NEWLINK:
    case RTM_SETLINK:
      request_log_.push_back(request.header.nlmsg_type == RTM_NEWLINK ? "RTM_NEWLINK"
                                                                      : "RTM_SETLINK");
      return set_link(request);
    case RTM_DELLINK:
      request_log_.push_back("RTM_DELLINK");
      return del_link(request);
    case RTM_GETADDR:
      request_log_.push_back("RTM_GETADDR");
      return get_addr(request, peer, out, dumped);
    case RTM_GETDCB:
    case RTM_SETDCB:
      return dcb(request, peer, out);
    default:
      request_log_.push_back("type " + std::to_string(request.header.nlmsg_type) +
                             " (unsupported)");
      // rtnetlink_rcv_msg: no handler registered for this type.
      return -EOPNOTSUPP;
  }
}

}  // namespace roce_sim::server
