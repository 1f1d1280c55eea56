// SPDX-License-Identifier: Apache-2.0
// The NETLINK_ROUTE socket's receive path (net/core/rtnetlink.c rtnetlink_rcv_msg): control
// messages, then one handler per message type. Links are in rtnl_link.cpp, addresses in
// rtnl_addr.cpp.
#include "sim/server/rtnl_service.hpp"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cerrno>

#include "roce_sim.h"
#include "sim/server/rtnl_internal.hpp"

namespace roce_sim::server {

using rtnl::normalise_errno;
using rtnl::to_group;
using rtnl::to_self;

namespace {

// Not in every uapi header this builds against (net/dcb/dcbnl.c knows them).
constexpr uint16_t kDcbAttrDcbBuffer = 10;      // DCB_ATTR_DCB_BUFFER
constexpr uint16_t kDcbAttrAppTrustTable = 11;  // DCB_ATTR_DCB_APP_TRUST_TABLE (6.2+)
constexpr uint16_t kDcbAttrDcbAppTrust = 1;     // DCB_ATTR_DCB_APP_TRUST
}  // namespace

// ---------------------------------------------------------------------------------------------
// DCB layout: net/dcb/dcbnl.c dcbnl_newmsg (struct dcbmsg) + dcbnl_ieee_fill, with mlx5's ops
// (en_dcbnl.c: ets, maxrate, pfc, buffer, dcbx; no qcn, no apptrust, no peer ops).
namespace {
void fill_ieee(NlMessage& m, const Port& port) {
  m.put_string(DCB_ATTR_IFNAME, port.netdev());
  const size_t ieee = m.begin_nest(DCB_ATTR_IEEE);
  ieee_ets ets{};
  if (port.ieee_getets(ets) == 0) m.put_attr(DCB_ATTR_IEEE_ETS, &ets, sizeof ets);
  ieee_maxrate maxrate{};
  if (port.ieee_getmaxrate(maxrate) == 0)
    m.put_attr(DCB_ATTR_IEEE_MAXRATE, &maxrate, sizeof maxrate);
  ieee_pfc pfc{};
  if (port.ieee_getpfc(pfc) == 0) m.put_attr(DCB_ATTR_IEEE_PFC, &pfc, sizeof pfc);
  dcbnl_buffer buffer{};
  if (port.dcbnl_getbuffer(buffer) == 0) m.put_attr(kDcbAttrDcbBuffer, &buffer, sizeof buffer);
  const size_t apps = m.begin_nest(DCB_ATTR_IEEE_APP_TABLE);
  for (const dcb_app& app : port.app_table()) m.put_attr(DCB_ATTR_IEEE_APP, &app, sizeof app);
  m.end_nest(apps);
  m.end_nest(ieee);
  m.put_u8(DCB_ATTR_DCBX, port.getdcbx());
}

NlMessage dcb_newmsg(uint16_t type, uint8_t cmd, uint16_t flags, uint32_t seq, uint32_t pid) {
  NlMessage m(type, flags, seq, pid);
  dcbmsg header{};
  header.dcb_family = AF_UNSPEC;
  header.cmd = cmd;
  m.put_header(header);
  return m;
}
}  // namespace

Bytes dcb_ieee_message(const Port& port, uint16_t type, uint8_t cmd, uint16_t flags, uint32_t seq,
                       uint32_t pid) {
  NlMessage m = dcb_newmsg(type, cmd, flags, seq, pid);
  fill_ieee(m, port);
  return m.finish();
}

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
        // What drivers with a firmware DCBX agent send (i40e, ice):
        // dcbnl_ieee_notify(dev, RTM_GETDCB, DCB_CMD_IEEE_GET, 0, 0).
        if (Port* port = node_.find(event.netdev)) {
          out.push_back(to_group(RTNLGRP_DCB,
                                 dcb_ieee_message(*port, RTM_GETDCB, DCB_CMD_IEEE_GET, 0, 0, 0)));
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

// rtnetlink_rcv_msg + netlink_rcv_skb: each message is handled in turn; an error, or NLM_F_ACK on
// a non-dump request, is answered with NLMSG_ERROR.
std::vector<Outgoing> RtnlService::handle(ByteView datagram, NlPeer& peer) {
  std::vector<Outgoing> out;
  for (const NlRequest& request : split_messages(datagram)) {
    if (request.header.nlmsg_type == ROCE_SIM_NLMSG_CTL) {
      roce_sim_nl_ctl ctl{};
      if (request.payload.size() < sizeof ctl) continue;
      std::memcpy(&ctl, request.payload.data(), sizeof ctl);
      switch (ctl.op) {
        case ROCE_SIM_CTL_BIND:
          peer.pid = ctl.arg;
          for (uint32_t bit = 0; bit < 32; ++bit) {
            if (ctl.arg2 & (1u << bit))
              peer.groups.insert(bit + 1);  // nl_groups: group n is bit n-1
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
      continue;
    }
    // netlink_rcv_skb: non-requests and control types are only acknowledged.
    if (!(request.header.nlmsg_flags & NLM_F_REQUEST) ||
        request.header.nlmsg_type < NLMSG_MIN_TYPE) {
      if (request.header.nlmsg_flags & NLM_F_ACK)
        out.push_back(to_self(make_ack(request, 0, peer.pid)));
      continue;
    }
    bool dumped = false;
    std::vector<Outgoing> replies;
    const int err = dispatch(request, peer, replies, dumped);
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

// dcb_doit + the reply_funcs of net/dcb/dcbnl.c for the commands mlx5 answers.
int RtnlService::dcb(const NlRequest& request, const NlPeer& peer, std::vector<Outgoing>& out) {
  // rtnetlink_rcv_msg: RTM_GETDCB registers no dumpit.
  if (request.header.nlmsg_type == RTM_GETDCB &&
      (request.header.nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) {
    request_log_.push_back("RTM_GETDCB dump (unsupported)");
    return -EOPNOTSUPP;
  }
  dcbmsg header{};
  if (request.payload.size() < sizeof header) return -EINVAL;
  std::memcpy(&header, request.payload.data(), sizeof header);
  AttrTable tb = parse_attrs(request.payload.subspan(NLMSG_ALIGN(sizeof header)));
  const uint8_t cmd = header.cmd;
  request_log_.push_back("DCB cmd " + std::to_string(cmd));
  if (cmd > DCB_CMD_MAX) return -EINVAL;

  // reply_funcs: which commands exist and which message type answers them.
  uint16_t reply_type = 0;
  switch (cmd) {
    case DCB_CMD_IEEE_GET:
    case DCB_CMD_GDCBX:
    case DCB_CMD_GSTATE:
    case DCB_CMD_GCAP:
    case DCB_CMD_GPERM_HWADDR:
    case DCB_CMD_PFC_GCFG:
    case DCB_CMD_PGTX_GCFG:
    case DCB_CMD_PGRX_GCFG:
    case DCB_CMD_GNUMTCS:
    case DCB_CMD_PFC_GSTATE:
    case DCB_CMD_BCN_GCFG:
    case DCB_CMD_GAPP:
    case DCB_CMD_GFEATCFG:
    case DCB_CMD_CEE_GET:
      reply_type = RTM_GETDCB;
      break;
    case DCB_CMD_IEEE_SET:
    case DCB_CMD_IEEE_DEL:
    case DCB_CMD_SDCBX:
    case DCB_CMD_SSTATE:
    case DCB_CMD_PFC_SCFG:
    case DCB_CMD_SET_ALL:
    case DCB_CMD_PGTX_SCFG:
    case DCB_CMD_PGRX_SCFG:
    case DCB_CMD_SNUMTCS:
    case DCB_CMD_PFC_SSTATE:
    case DCB_CMD_BCN_SCFG:
    case DCB_CMD_SAPP:
    case DCB_CMD_SFEATCFG:
      reply_type = RTM_SETDCB;
      break;
    default:
      return -EOPNOTSUPP;  // no reply function
  }
  if (reply_type == RTM_SETDCB || request.header.nlmsg_type == RTM_SETDCB) {
    count_write(tb.count(DCB_ATTR_IFNAME) ? attr_string(tb[DCB_ATTR_IFNAME]) : std::string());
  }
  if (!tb.count(DCB_ATTR_IFNAME)) return -EINVAL;
  Port* port = node_.find(attr_string(tb[DCB_ATTR_IFNAME]));
  if (!port) return -ENODEV;

  const uint32_t seq = request.header.nlmsg_seq;
  // dcbnl_newmsg(fn->type, dcb->cmd, portid, seq, nlh->nlmsg_flags): the reply echoes the flags.
  NlMessage reply = dcb_newmsg(reply_type, cmd, request.header.nlmsg_flags, seq, peer.pid);
  std::vector<Outgoing> after_reply;

  switch (cmd) {
    case DCB_CMD_IEEE_GET:  // dcbnl_ieee_get
      fill_ieee(reply, *port);
      break;
    case DCB_CMD_IEEE_SET:
    case DCB_CMD_IEEE_DEL: {  // dcbnl_ieee_set / dcbnl_ieee_del
      if (!tb.count(DCB_ATTR_IEEE)) return -EINVAL;
      AttrTable ieee = parse_attrs(tb[DCB_ATTR_IEEE]);
      // dcbnl_ieee_policy: fixed-size structs must be complete (nla_parse_nested -> -ERANGE).
      auto too_short = [&](uint16_t type, size_t size) {
        return ieee.count(type) && ieee[type].size() < size;
      };
      if (too_short(DCB_ATTR_IEEE_ETS, sizeof(ieee_ets)) ||
          too_short(DCB_ATTR_IEEE_PFC, sizeof(ieee_pfc)) ||
          too_short(DCB_ATTR_IEEE_MAXRATE, sizeof(ieee_maxrate)) ||
          too_short(kDcbAttrDcbBuffer, sizeof(dcbnl_buffer))) {
        return -ERANGE;
      }
      const uint64_t toggles_before = port->link_toggles();
      int err = 0;
      // An injected error hits the first feature of the message its `op` matches.
      auto injected = [&](SetOp op) {
        if (err == 0) err = normalise_errno(node_.take_injected_error(port->netdev(), op));
      };
      auto step = [&](auto&& op) {
        if (err == 0) err = normalise_errno(op());
      };
      if (cmd == DCB_CMD_IEEE_SET) {
        // Kernel order: ETS, MAXRATE, (QCN), PFC, BUFFER, APP_TABLE, APP_TRUST_TABLE.
        if (ieee.count(DCB_ATTR_IEEE_ETS)) {
          ieee_ets ets{};
          std::memcpy(&ets, ieee[DCB_ATTR_IEEE_ETS].data(), sizeof ets);
          injected(SetOp::Ets);
          step([&] { return port->ieee_setets(ets); });
        }
        if (ieee.count(DCB_ATTR_IEEE_MAXRATE)) {
          ieee_maxrate maxrate{};
          std::memcpy(&maxrate, ieee[DCB_ATTR_IEEE_MAXRATE].data(), sizeof maxrate);
          injected(SetOp::Maxrate);
          step([&] { return port->ieee_setmaxrate(maxrate); });
        }
        if (ieee.count(DCB_ATTR_IEEE_PFC)) {
          ieee_pfc pfc{};
          std::memcpy(&pfc, ieee[DCB_ATTR_IEEE_PFC].data(), sizeof pfc);
          injected(SetOp::Pfc);
          step([&] { return port->ieee_setpfc(pfc); });
        }
        if (ieee.count(kDcbAttrDcbBuffer)) {
          dcbnl_buffer buffer{};
          std::memcpy(&buffer, ieee[kDcbAttrDcbBuffer].data(), sizeof buffer);
          injected(SetOp::Buffer);
          step([&] {
            for (uint8_t b : buffer.prio2buffer) {
              if (b >= DCBX_MAX_BUFFERS) return -EINVAL;
            }
            return port->dcbnl_setbuffer(buffer);
          });
        }
      }
      if (ieee.count(DCB_ATTR_IEEE_APP_TABLE)) {  // dcbnl_app_table_setdel
        injected(SetOp::App);                     // once for the whole table
        for (const auto& [type, value] : list_attrs(ieee[DCB_ATTR_IEEE_APP_TABLE])) {
          if (err != 0) break;
          if (type != DCB_ATTR_IEEE_APP) continue;
          if (value.size() < sizeof(dcb_app)) {
            err = -ERANGE;
            break;
          }
          dcb_app app{};
          std::memcpy(&app, value.data(), sizeof app);
          step([&] {
            return cmd == DCB_CMD_IEEE_SET ? port->ieee_setapp(app) : port->ieee_delapp(app);
          });
        }
      }
      if (cmd == DCB_CMD_IEEE_SET && ieee.count(kDcbAttrAppTrustTable) && err == 0) {
        std::vector<uint8_t> selectors;
        for (const auto& [type, value] : list_attrs(ieee[kDcbAttrAppTrustTable])) {
          if (type != kDcbAttrDcbAppTrust || value.size() != 1) {
            err = -EINVAL;
            break;
          }
          selectors.push_back(value[0]);
        }
        injected(SetOp::App);
        step([&] {
          return port->dcbnl_setapptrust(selectors.data(), static_cast<int>(selectors.size()));
        });
      }
      // err: nla_put_u8(skb, DCB_ATTR_IEEE, err) -- the status byte is the errno truncated to u8.
      reply.put_u8(DCB_ATTR_IEEE, static_cast<uint8_t>(err));
      // dcbnl_ieee_notify(netdev, RTM_SETDCB, cmd, seq, 0): sent even when an op failed.
      out.push_back(to_group(RTNLGRP_DCB, dcb_ieee_message(*port, RTM_SETDCB, cmd, 0, seq, 0)));
      if (port->link_toggles() != toggles_before) {
        // mlx5_toggle_port_link: carrier goes down and comes back; linkwatch reports both, after
        // the DCB reply.
        LinkView link = view(*port);
        LinkView down = link;
        down.carrier = false;
        after_reply.push_back(to_group(RTNLGRP_LINK, link_message(down, RTM_NEWLINK, 0, 0, 0, 0)));
        after_reply.push_back(to_group(RTNLGRP_LINK, link_message(link, RTM_NEWLINK, 0, 0, 0, 0)));
      }
      break;
    }
    case DCB_CMD_GDCBX:  // dcbnl_getdcbx
      reply.put_u8(DCB_ATTR_DCBX, port->getdcbx());
      break;
    case DCB_CMD_SDCBX: {  // dcbnl_setdcbx: the driver's status is the reply (1 = refused)
      if (!tb.count(DCB_ATTR_DCBX) || tb[DCB_ATTR_DCBX].empty()) return -EINVAL;
      const int injected = normalise_errno(node_.take_injected_error(port->netdev(), SetOp::Dcbx));
      const uint8_t status = injected != 0 ? uint8_t{1} : port->setdcbx(tb[DCB_ATTR_DCBX][0]);
      reply.put_u8(DCB_ATTR_DCBX, status);
      break;
    }
    case DCB_CMD_GSTATE:  // dcbnl_getstate: mlx5e_dcbnl_getstate (CEE state, enabled)
      reply.put_u8(DCB_ATTR_STATE, 1);
      break;
    case DCB_CMD_GCAP: {  // dcbnl_getcap with mlx5e_dcbnl_getcap's answers
      if (!tb.count(DCB_ATTR_CAP)) return -EINVAL;
      AttrTable wanted = parse_attrs(tb[DCB_ATTR_CAP]);
      const bool all = wanted.count(DCB_CAP_ATTR_ALL) != 0;
      const size_t nest = reply.begin_nest(DCB_ATTR_CAP);
      for (uint16_t i = DCB_CAP_ATTR_ALL + 1; i <= DCB_CAP_ATTR_MAX; ++i) {
        if (!all && !wanted.count(i)) continue;
        uint8_t value = 0;
        switch (i) {
          case DCB_CAP_ATTR_PG:
          case DCB_CAP_ATTR_PFC:
          case DCB_CAP_ATTR_GSP:
            value = 1;
            break;
          case DCB_CAP_ATTR_PG_TCS:
          case DCB_CAP_ATTR_PFC_TCS:
            value = 1 << 7;  // 1 << (MLX5E_MAX_NUM_TC - 1)
            break;
          case DCB_CAP_ATTR_DCBX:
            value = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE |
                    DCB_CAP_DCBX_STATIC;  // mlx5e_dcbnl_initialize: priv->dcbx.cap
            break;
          default:
            value = 0;
        }
        reply.put_u8(i, value);
      }
      reply.end_nest(nest);
      break;
    }
    default:
      // CEE commands mlx5 has ops for but the model does not simulate.
      return -EOPNOTSUPP;
  }
  out.push_back(to_self(reply.finish()));
  for (auto& extra : after_reply) out.push_back(std::move(extra));
  return 0;
}

}  // namespace roce_sim::server
