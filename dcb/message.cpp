// SPDX-License-Identifier: Apache-2.0
// DCB message framing (struct dcbmsg + DCB_ATTR_IFNAME) and the reply checks shared by every
// object: dcb_doit builds the reply, dcbnl_ieee_fill / dcbnl_ieee_set fill it.
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "dcb/codec.hpp"

namespace roced::dcb {

NlMsgPtr new_dcb_message(uint16_t type, uint8_t cmd, const std::string& ifname) {
  dcbmsg header{};
  header.dcb_family = AF_UNSPEC;
  header.cmd = cmd;
  NlMsgPtr msg = new_request(type, 0, &header, sizeof(header));
  nla_put_string(msg.get(), DCB_ATTR_IFNAME, ifname.c_str());  // NUL included, as dcb(8) does
  return msg;
}

NlMsgPtr ieee_message(uint8_t cmd, const std::string& ifname,
                      const std::function<void(nl_msg*)>& put_feature) {
  NlMsgPtr msg = new_dcb_message(RTM_SETDCB, cmd, ifname);
  nlattr* ieee = nla_nest_start(msg.get(), DCB_ATTR_IEEE);
  put_feature(msg.get());
  nla_nest_end(msg.get(), ieee);
  return msg;
}

Result<void> parse_dcb_reply(const NlMessage& reply, nlattr** tb) {
  // libnl's parser takes a mutable header but does not write to it.
  auto* header = const_cast<nlmsghdr*>(reply.header());
  if ((header->nlmsg_type != RTM_GETDCB && header->nlmsg_type != RTM_SETDCB) ||
      !nlmsg_valid_hdr(header, sizeof(dcbmsg))) {
    return Error{EBADMSG, "unexpected reply type " + std::to_string(header->nlmsg_type)};
  }
  if (int err = nlmsg_parse(header, sizeof(dcbmsg), tb, DCB_ATTR_MAX, nullptr); err < 0) {
    return Error{EBADMSG, std::string("malformed DCB reply: ") + nl_geterror(err)};
  }
  return ok();
}

int errno_from_status(uint8_t status) { return status == 0 ? 0 : 256 - status; }

Result<void> check_ieee_status(const NlMessage& reply, const std::string& what) {
  nlattr* tb[DCB_ATTR_MAX + 1] = {};
  if (auto parsed = parse_dcb_reply(reply, tb); !parsed) {
    return Error{parsed.error().code, what + ": " + parsed.error().message};
  }
  uint8_t status = 0;
  if (!attr_u8(tb[DCB_ATTR_IEEE], status)) {
    return Error{EBADMSG, what + ": reply without the DCB_ATTR_IEEE status byte"};
  }
  if (status != 0) return Error::from_errno(errno_from_status(status), what);
  return ok();
}

Result<IeeeState> parse_ieee_get(const NlMessage& reply) {
  nlattr* tb[DCB_ATTR_MAX + 1] = {};
  if (auto parsed = parse_dcb_reply(reply, tb); !parsed) return parsed.error();
  IeeeState state;
  if (tb[DCB_ATTR_IEEE] == nullptr) return Error{EBADMSG, "IEEE_GET reply without DCB_ATTR_IEEE"};
  // Attributes newer than these headers (APP_TRUST_TABLE, REWR_TABLE) are above the max: skipped.
  nlattr* ieee[DCB_ATTR_IEEE_MAX + 1] = {};
  if (int err = nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], nullptr); err < 0) {
    return Error{EBADMSG, std::string("malformed DCB_ATTR_IEEE: ") + nl_geterror(err)};
  }
  if (ieee[DCB_ATTR_IEEE_ETS] != nullptr) {
    auto ets = parse_ets(ieee[DCB_ATTR_IEEE_ETS]);
    if (!ets) return ets.error();
    state.ets = *ets;
  }
  if (ieee[DCB_ATTR_IEEE_PFC] != nullptr) {
    auto pfc = parse_pfc(ieee[DCB_ATTR_IEEE_PFC]);
    if (!pfc) return pfc.error();
    state.pfc = *pfc;
  }
  if (ieee[DCB_ATTR_IEEE_MAXRATE] != nullptr) {
    auto rate = parse_maxrate(ieee[DCB_ATTR_IEEE_MAXRATE]);
    if (!rate) return rate.error();
    state.maxrate = *rate;
  }
  if (ieee[DCB_ATTR_DCB_BUFFER] != nullptr) {
    auto buffer = parse_buffer(ieee[DCB_ATTR_DCB_BUFFER]);
    if (!buffer) return buffer.error();
    state.buffer = *buffer;
  }
  if (ieee[DCB_ATTR_IEEE_APP_TABLE] != nullptr) {
    auto apps = parse_app_table(ieee[DCB_ATTR_IEEE_APP_TABLE]);
    if (!apps) return apps.error();
    state.apps = std::move(*apps);
  }
  uint8_t dcbx = 0;
  if (attr_u8(tb[DCB_ATTR_DCBX], dcbx)) state.dcbx = dcbx;
  return state;
}

}  // namespace roced::dcb
