// SPDX-License-Identifier: Apache-2.0
// DCBX mode: DCB_CMD_GDCBX / DCB_CMD_SDCBX with a u8 DCB_ATTR_DCBX (dcbnl_getdcbx, dcbnl_setdcbx).
#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include "dcb/codec.hpp"

namespace roced::dcb {

NlMsgPtr gdcbx_message(const std::string& ifname) {
  return new_dcb_message(RTM_GETDCB, DCB_CMD_GDCBX, ifname);
}

NlMsgPtr sdcbx_message(const std::string& ifname, uint8_t mode) {
  NlMsgPtr msg = new_dcb_message(RTM_SETDCB, DCB_CMD_SDCBX, ifname);
  nla_put_u8(msg.get(), DCB_ATTR_DCBX, mode);
  return msg;
}

}  // namespace roced::dcb

namespace roced::dcb {

Result<uint8_t> parse_gdcbx(const NlMessage& reply) {
  nlattr* tb[DCB_ATTR_MAX + 1] = {};
  if (auto parsed = parse_dcb_reply(reply, tb); !parsed) return parsed.error();
  uint8_t mode = 0;
  if (!attr_u8(tb[DCB_ATTR_DCBX], mode)) return Error{EBADMSG, "GDCBX reply without DCB_ATTR_DCBX"};
  return mode;
}

Result<void> check_sdcbx_status(const NlMessage& reply, const std::string& what) {
  nlattr* tb[DCB_ATTR_MAX + 1] = {};
  if (auto parsed = parse_dcb_reply(reply, tb); !parsed) return parsed.error();
  uint8_t status = 0;
  if (!attr_u8(tb[DCB_ATTR_DCBX], status)) {
    return Error{EBADMSG, what + ": reply without DCB_ATTR_DCBX status"};
  }
  // setdcbx() returns a u8 verdict, not an errno: the driver refused the mode (mlx5 refuses
  // LLD_MANAGED, and a mode without the HOST bit unless it means "firmware").
  if (status != 0) return Error{EINVAL, what + ": the driver refused the DCBX mode"};
  return ok();
}

}  // namespace roced::dcb
