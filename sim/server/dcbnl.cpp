// SPDX-License-Identifier: Apache-2.0
// DCB over rtnetlink as net/dcb/dcbnl.c answers it: dcb_doit looks the command up in reply_funcs
// and calls its handler, with mlx5's ops behind them (drivers/net/ethernet/mellanox/mlx5/core/
// en/en_dcbnl.c: ets, maxrate, pfc, buffer, dcbx; no qcn, no apptrust, no peer ops).

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>

#include "sim/model/firmware_commands.hpp"
#include "sim/server/rtnl_internal.hpp"
#include "sim/server/rtnl_service.hpp"

namespace roce_sim::server {

namespace {

using rtnl::normalise_errno;
using rtnl::to_group;
using rtnl::to_self;

// Not in every uapi header this builds against (net/dcb/dcbnl.c knows them).
constexpr uint16_t kDcbAttrDcbBuffer = 10;      // DCB_ATTR_DCB_BUFFER
constexpr uint16_t kDcbAttrAppTrustTable = 11;  // DCB_ATTR_DCB_APP_TRUST_TABLE (6.2+)

// net/dcb/dcbnl.c dcbnl_ieee_fill
void fill_ieee(NlMessage& m, const Port& port) {
  // Each getter is the driver querying the firmware (sim/model/firmware_commands.hpp).
  port.issue("ACCESS_REG", firmware::kGetEts + firmware::kGetMaxrate + firmware::kGetPfc +
                               (port.spec().caps.buffers ? firmware::kGetBuffer : 0));
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

// net/dcb/dcbnl.c dcbnl_newmsg: nlmsghdr + struct dcbmsg.
NlMessage dcb_newmsg(uint16_t type, uint8_t cmd, uint16_t flags, uint32_t seq, uint32_t pid) {
  NlMessage m(type, flags, seq, pid);
  dcbmsg header{};
  header.dcb_family = AF_UNSPEC;
  header.cmd = cmd;
  m.put_header(header);
  return m;
}

// One DCB request as dcb_doit hands it to a reply function: the parsed attributes, the device,
// and the reply under construction.
struct DcbRequest {
  uint8_t cmd;
  uint32_t seq;
  AttrTable& tb;
  Port& port;
  Node& node;
  NlMessage& reply;
  std::vector<Outgoing>& out;  // notifications, sent before the reply
  bool link_toggled = false;   // the carrier flapped: RTM_NEWLINKs follow the reply
};

// The ops of one IEEE set or delete run in the kernel's order until one fails; its errno is the
// message's status.
struct IeeeOps {
  Node& node;
  Port& port;
  int err = 0;
  // An injected error hits the first feature of the message its `op` matches.
  void injected(SetOp op) {
    if (err == 0) err = normalise_errno(node.take_injected_error(port.netdev(), op));
  }
  template <typename Op>
  void step(Op&& op) {
    if (err == 0) err = normalise_errno(op());
  }
};

// net/dcb/dcbnl.c dcbnl_ieee_set/dcbnl_ieee_del: nla_parse_nested with dcbnl_ieee_policy, whose
// fixed-size structs must be complete (-ERANGE).
int parse_ieee(DcbRequest& r, AttrTable& ieee) {
  if (!r.tb.count(DCB_ATTR_IEEE)) return -EINVAL;
  ieee = parse_attrs(r.tb[DCB_ATTR_IEEE]);
  auto too_short = [&](uint16_t type, size_t size) {
    return ieee.count(type) && ieee[type].size() < size;
  };
  if (too_short(DCB_ATTR_IEEE_ETS, sizeof(ieee_ets)) ||
      too_short(DCB_ATTR_IEEE_PFC, sizeof(ieee_pfc)) ||
      too_short(DCB_ATTR_IEEE_MAXRATE, sizeof(ieee_maxrate)) ||
      too_short(kDcbAttrDcbBuffer, sizeof(dcbnl_buffer))) {
    return -ERANGE;
  }
  return 0;
}

// net/dcb/dcbnl.c dcbnl_ieee_set, first part. Kernel order: ETS, MAXRATE, (QCN), PFC, BUFFER.
void ieee_set_features(IeeeOps& ops, AttrTable& ieee) {
  Port& port = ops.port;
  if (ieee.count(DCB_ATTR_IEEE_ETS)) {
    ieee_ets ets{};
    std::memcpy(&ets, ieee[DCB_ATTR_IEEE_ETS].data(), sizeof ets);
    ops.injected(SetOp::Ets);
    port.issue("ACCESS_REG", firmware::kSetEts);
    ops.step([&] { return port.ieee_setets(ets); });
  }
  if (ieee.count(DCB_ATTR_IEEE_MAXRATE)) {
    ieee_maxrate maxrate{};
    std::memcpy(&maxrate, ieee[DCB_ATTR_IEEE_MAXRATE].data(), sizeof maxrate);
    ops.injected(SetOp::Maxrate);
    port.issue("ACCESS_REG", firmware::kSetMaxrate);
    ops.step([&] { return port.ieee_setmaxrate(maxrate); });
  }
  if (ieee.count(DCB_ATTR_IEEE_PFC)) {
    ieee_pfc pfc{};
    std::memcpy(&pfc, ieee[DCB_ATTR_IEEE_PFC].data(), sizeof pfc);
    ops.injected(SetOp::Pfc);
    port.issue("ACCESS_REG", firmware::kSetPfc);
    ops.step([&] { return port.ieee_setpfc(pfc); });
  }
  if (ieee.count(kDcbAttrDcbBuffer)) {
    dcbnl_buffer buffer{};
    std::memcpy(&buffer, ieee[kDcbAttrDcbBuffer].data(), sizeof buffer);
    ops.injected(SetOp::Buffer);
    port.issue("ACCESS_REG", firmware::kSetBuffer);
    ops.step([&] {
      for (uint8_t b : buffer.prio2buffer) {
        if (b >= DCBX_MAX_BUFFERS) return -EINVAL;
      }
      return port.dcbnl_setbuffer(buffer);
    });
  }
}

// net/dcb/dcbnl.c dcbnl_app_table_setdel: the entries in order, each set or deleted.
void app_table_setdel(IeeeOps& ops, AttrTable& ieee, bool set) {
  if (!ieee.count(DCB_ATTR_IEEE_APP_TABLE)) return;
  ops.injected(SetOp::App);  // once for the whole table
  for (const auto& [type, value] : list_attrs(ieee[DCB_ATTR_IEEE_APP_TABLE])) {
    if (ops.err != 0) break;
    if (type != DCB_ATTR_IEEE_APP) continue;
    if (value.size() < sizeof(dcb_app)) {
      ops.err = -ERANGE;
      break;
    }
    dcb_app app{};
    std::memcpy(&app, value.data(), sizeof app);
    ops.port.issue("ACCESS_REG", firmware::kSetApp);
    ops.step([&] { return set ? ops.port.ieee_setapp(app) : ops.port.ieee_delapp(app); });
  }
}

// net/dcb/dcbnl.c dcbnl_ieee_set, DCB_ATTR_DCB_APP_TRUST_TABLE. 6.1's dcbnl_ieee_policy ends at
// DCB_ATTR_DCB_BUFFER and nla_parse_nested_deprecated passes over a higher attribute: ignored.
// From 6.2 a driver without dcbnl_setapptrust (mlx5e_dcbnl_ops has none) is refused before the
// selectors are read, so even a malformed table gets -EOPNOTSUPP.
void ieee_set_apptrust(IeeeOps& ops, AttrTable& ieee) {
  if (!ieee.count(kDcbAttrAppTrustTable) || ops.err != 0) return;
  if (!ops.node.kernel().has_app_trust()) return;
  ops.step([&] { return ops.port.dcbnl_setapptrust(nullptr, 0); });
}

// net/dcb/dcbnl.c dcbnl_ieee_set/dcbnl_ieee_del, from their err: label on.
void ieee_status(DcbRequest& r, int err, uint64_t toggles_before) {
  // nla_put_u8(skb, DCB_ATTR_IEEE, err): the status byte is the errno truncated to u8.
  r.reply.put_u8(DCB_ATTR_IEEE, static_cast<uint8_t>(err));
  // dcbnl_ieee_notify(netdev, RTM_SETDCB, cmd, seq, 0): sent even when an op failed.
  r.out.push_back(to_group(RTNLGRP_DCB, dcb_ieee_message(r.port, RTM_SETDCB, r.cmd, 0, r.seq, 0)));
  // mlx5_toggle_port_link: carrier goes down and comes back.
  r.link_toggled = r.port.link_toggles() != toggles_before;
}

// net/dcb/dcbnl.c dcbnl_ieee_get
int dcbnl_ieee_get(DcbRequest& r) {
  fill_ieee(r.reply, r.port);
  return 0;
}

// net/dcb/dcbnl.c dcbnl_ieee_set
int dcbnl_ieee_set(DcbRequest& r) {
  AttrTable ieee;
  if (const int err = parse_ieee(r, ieee); err != 0) return err;
  const uint64_t toggles_before = r.port.link_toggles();
  IeeeOps ops{r.node, r.port};
  ieee_set_features(ops, ieee);
  app_table_setdel(ops, ieee, true);
  ieee_set_apptrust(ops, ieee);
  ieee_status(r, ops.err, toggles_before);
  return 0;
}

// net/dcb/dcbnl.c dcbnl_ieee_del
int dcbnl_ieee_del(DcbRequest& r) {
  AttrTable ieee;
  if (const int err = parse_ieee(r, ieee); err != 0) return err;
  const uint64_t toggles_before = r.port.link_toggles();
  IeeeOps ops{r.node, r.port};
  app_table_setdel(ops, ieee, false);
  ieee_status(r, ops.err, toggles_before);
  return 0;
}

// net/dcb/dcbnl.c dcbnl_getdcbx
int dcbnl_getdcbx(DcbRequest& r) {
  r.reply.put_u8(DCB_ATTR_DCBX, r.port.getdcbx());
  return 0;
}

// net/dcb/dcbnl.c dcbnl_setdcbx: the driver's status is the reply (1 = refused).
int dcbnl_setdcbx(DcbRequest& r) {
  if (!r.tb.count(DCB_ATTR_DCBX) || r.tb[DCB_ATTR_DCBX].empty()) return -EINVAL;
  const int injected = normalise_errno(r.node.take_injected_error(r.port.netdev(), SetOp::Dcbx));
  if (injected == 0) r.port.issue("ACCESS_REG", firmware::kSetDcbx);
  const uint8_t status = injected != 0 ? uint8_t{1} : r.port.setdcbx(r.tb[DCB_ATTR_DCBX][0]);
  r.reply.put_u8(DCB_ATTR_DCBX, status);
  return 0;
}

// net/dcb/dcbnl.c dcbnl_getstate: mlx5e_dcbnl_getstate (CEE state, enabled).
int dcbnl_getstate(DcbRequest& r) {
  r.reply.put_u8(DCB_ATTR_STATE, 1);
  return 0;
}

// en_dcbnl.c mlx5e_dcbnl_getcap: one capability's answer (it answers every id the uapi has; its
// default case, for ids beyond DCBX, answers nothing).
uint8_t mlx5e_cap(const Port& port, uint16_t cap) {
  switch (cap) {
    case DCB_CAP_ATTR_PG:
    case DCB_CAP_ATTR_PFC:
      return 1;
    case DCB_CAP_ATTR_PG_TCS:
    case DCB_CAP_ATTR_PFC_TCS:
      return 1 << 7;  // 1 << mlx5_max_tc(mdev): eight TCs
    case DCB_CAP_ATTR_DCBX:
      // priv->dcbx.cap, as mlx5e_dcbnl_getdcbx answers it, with both versions added.
      return port.getdcbx() | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;
    default:  // UP2TC, GSP, BCN: false
      return 0;
  }
}

// net/dcb/dcbnl.c dcbnl_getcap: the capabilities asked for, or all of them.
int dcbnl_getcap(DcbRequest& r) {
  if (!r.tb.count(DCB_ATTR_CAP)) return -EINVAL;
  AttrTable wanted = parse_attrs(r.tb[DCB_ATTR_CAP]);
  const bool all = wanted.count(DCB_CAP_ATTR_ALL) != 0;
  const size_t nest = r.reply.begin_nest(DCB_ATTR_CAP);
  for (uint16_t i = DCB_CAP_ATTR_ALL + 1; i <= DCB_CAP_ATTR_MAX; ++i) {
    if (!all && !wanted.count(i)) continue;
    r.reply.put_u8(i, mlx5e_cap(r.port, i));
  }
  r.reply.end_nest(nest);
  return 0;
}

// net/dcb/dcbnl.c struct reply_func: the message type a command is answered with, and its
// handler (none for the CEE commands mlx5 has ops for but the model does not simulate).
struct ReplyFunc {
  uint16_t type = 0;  // 0: no such command
  int (*cb)(DcbRequest&) = nullptr;
};

// net/dcb/dcbnl.c reply_funcs[]
constexpr std::array<ReplyFunc, DCB_CMD_MAX + 1> kReplyFuncs = [] {
  std::array<ReplyFunc, DCB_CMD_MAX + 1> f{};
  f[DCB_CMD_GSTATE] = {RTM_GETDCB, dcbnl_getstate};
  f[DCB_CMD_SSTATE] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_PFC_GCFG] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_PFC_SCFG] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_GPERM_HWADDR] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_GCAP] = {RTM_GETDCB, dcbnl_getcap};
  f[DCB_CMD_GNUMTCS] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_SNUMTCS] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_PFC_GSTATE] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_PFC_SSTATE] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_GAPP] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_SAPP] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_PGTX_GCFG] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_PGTX_SCFG] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_PGRX_GCFG] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_PGRX_SCFG] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_SET_ALL] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_BCN_GCFG] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_BCN_SCFG] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_IEEE_GET] = {RTM_GETDCB, dcbnl_ieee_get};
  f[DCB_CMD_IEEE_SET] = {RTM_SETDCB, dcbnl_ieee_set};
  f[DCB_CMD_IEEE_DEL] = {RTM_SETDCB, dcbnl_ieee_del};
  f[DCB_CMD_GDCBX] = {RTM_GETDCB, dcbnl_getdcbx};
  f[DCB_CMD_SDCBX] = {RTM_SETDCB, dcbnl_setdcbx};
  f[DCB_CMD_GFEATCFG] = {RTM_GETDCB, nullptr};
  f[DCB_CMD_SFEATCFG] = {RTM_SETDCB, nullptr};
  f[DCB_CMD_CEE_GET] = {RTM_GETDCB, nullptr};
  return f;
}();

}  // namespace

Bytes dcb_ieee_message(const Port& port, uint16_t type, uint8_t cmd, uint16_t flags, uint32_t seq,
                       uint32_t pid) {
  NlMessage m = dcb_newmsg(type, cmd, flags, seq, pid);
  fill_ieee(m, port);
  return m.finish();
}

// net/dcb/dcbnl.c dcb_doit: checks the command and device, then calls its reply function.
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
  const ReplyFunc& fn = kReplyFuncs[cmd];
  if (fn.type == 0) return -EOPNOTSUPP;  // no reply function

  if (fn.type == RTM_SETDCB || request.header.nlmsg_type == RTM_SETDCB) {
    count_write(tb.count(DCB_ATTR_IFNAME) ? attr_string(tb[DCB_ATTR_IFNAME]) : std::string());
  }
  if (!tb.count(DCB_ATTR_IFNAME)) return -EINVAL;
  Port* port = node_.find(attr_string(tb[DCB_ATTR_IFNAME]));
  if (!port) return -ENODEV;
  // dcb_doit: a netdev without dcbnl_ops is -EOPNOTSUPP (PortSpec::has_dcbnl).
  if (!port->spec().has_dcbnl()) return -EOPNOTSUPP;
  if (!fn.cb) return -EOPNOTSUPP;

  const uint32_t seq = request.header.nlmsg_seq;
  // dcbnl_newmsg(fn->type, dcb->cmd, portid, seq, nlh->nlmsg_flags): the reply echoes the flags.
  NlMessage reply = dcb_newmsg(fn.type, cmd, request.header.nlmsg_flags, seq, peer.pid);
  DcbRequest r{cmd, seq, tb, *port, node_, reply, out};
  if (const int err = fn.cb(r); err != 0) return err;
  out.push_back(to_self(reply.finish()));
  if (r.link_toggled) {
    // mlx5_toggle_port_link: linkwatch reports the carrier down and up, after the DCB reply.
    LinkView link = view(*port);
    LinkView down = link;
    down.carrier = false;
    out.push_back(to_group(RTNLGRP_LINK, link_message(down, RTM_NEWLINK, 0, 0, 0, 0)));
    out.push_back(to_group(RTNLGRP_LINK, link_message(link, RTM_NEWLINK, 0, 0, 0, 0)));
  }
  return 0;
}

}  // namespace roce_sim::server
