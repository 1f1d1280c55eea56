// SPDX-License-Identifier: Apache-2.0
// DcbClient: one exchange per call, one feature per SET, status byte checked
// (dcbnl.c: dcbnl_ieee_set).
#include "dcb/client.hpp"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "dcb/codec.hpp"
#include "os/rtnl_request.hpp"

namespace roced::dcb {

namespace {

// dcb_doit answers -EOPNOTSUPP for a device without dcbnl_ops (veth, lo), and so does rtnetlink
// when the kernel has no DCB support at all: say which device and what it means.
Error explain(const std::string& ifname, Error error) {
  if (error.is_unsupported()) {
    error.code = EOPNOTSUPP;
    error.message = ifname + ": DCB is not supported by this device (EOPNOTSUPP)";
  } else if (error.code == ENODEV) {
    error.message = ifname + ": no such network device (ENODEV)";
  }
  return error;
}

Result<std::vector<NlMessage>> exchange(System& system, const std::string& ifname, nl_msg* request,
                                        const std::string& what) {
  if (!system.open_rtnl) return Error{EINVAL, "no netlink transport configured"};
  auto socket = system.open_rtnl();
  if (!socket) return socket.error();
  auto replies = rtnl_request(**socket, request, ifname + ": " + what);
  if (!replies) return explain(ifname, replies.error());
  if (replies->empty()) return Error{EBADMSG, ifname + ": " + what + ": no reply before the ACK"};
  return replies;
}

Result<void> ieee_change(System& system, const std::string& ifname, uint8_t cmd,
                         const std::string& what, const std::function<void(nl_msg*)>& put) {
  NlMsgPtr request = ieee_message(cmd, ifname, put);
  auto replies = exchange(system, ifname, request.get(), what);
  if (!replies) return replies.error();
  auto status = check_ieee_status(replies->front(), ifname + ": " + what);
  if (!status) return explain(ifname, status.error());
  return ok();
}

}  // namespace

Result<IeeeState> DcbClient::get(const std::string& ifname) {
  NlMsgPtr request = new_dcb_message(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname);
  auto replies = exchange(system_, ifname, request.get(), "DCB IEEE_GET");
  if (!replies) return replies.error();
  auto state = parse_ieee_get(replies->front());
  if (!state) return Error{state.error().code, ifname + ": " + state.error().message};
  return state;
}

Result<uint8_t> DcbClient::get_dcbx(const std::string& ifname) {
  NlMsgPtr request = gdcbx_message(ifname);
  auto replies = exchange(system_, ifname, request.get(), "DCB GDCBX");
  if (!replies) return replies.error();
  auto mode = parse_gdcbx(replies->front());
  if (!mode) return Error{mode.error().code, ifname + ": " + mode.error().message};
  return mode;
}

Result<void> DcbClient::set_dcbx(const std::string& ifname, uint8_t mode) {
  NlMsgPtr request = sdcbx_message(ifname, mode);
  const std::string what = "DCB SDCBX " + dcbx_mode_name(mode);
  auto replies = exchange(system_, ifname, request.get(), what);
  if (!replies) return replies.error();
  return check_sdcbx_status(replies->front(), ifname + ": " + what);
}

Result<void> DcbClient::set_pfc(const std::string& ifname, const Pfc& pfc) {
  return ieee_change(system_, ifname, DCB_CMD_IEEE_SET, "DCB set PFC",
                     [&](nl_msg* msg) { put_pfc(msg, pfc); });
}

Result<void> DcbClient::set_ets(const std::string& ifname, const Ets& ets) {
  return ieee_change(system_, ifname, DCB_CMD_IEEE_SET, "DCB set ETS",
                     [&](nl_msg* msg) { put_ets(msg, ets); });
}

Result<void> DcbClient::set_maxrate(const std::string& ifname, const Maxrate& maxrate) {
  return ieee_change(system_, ifname, DCB_CMD_IEEE_SET, "DCB set maxrate",
                     [&](nl_msg* msg) { put_maxrate(msg, maxrate); });
}

Result<void> DcbClient::set_buffer(const std::string& ifname, const Buffer& buffer) {
  return ieee_change(system_, ifname, DCB_CMD_IEEE_SET, "DCB set buffer",
                     [&](nl_msg* msg) { put_buffer(msg, buffer); });
}

Result<void> DcbClient::add_apps(const std::string& ifname, const std::vector<AppEntry>& apps) {
  if (apps.empty()) return ok();
  return ieee_change(system_, ifname, DCB_CMD_IEEE_SET, "DCB add APP entries",
                     [&](nl_msg* msg) { put_app_table(msg, apps); });
}

Result<void> DcbClient::delete_apps(const std::string& ifname, const std::vector<AppEntry>& apps) {
  if (apps.empty()) return ok();
  return ieee_change(system_, ifname, DCB_CMD_IEEE_DEL, "DCB delete APP entries",
                     [&](nl_msg* msg) { put_app_table(msg, apps); });
}

}  // namespace roced::dcb
