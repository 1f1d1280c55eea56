// SPDX-License-Identifier: Apache-2.0
#pragma once
// The DCB netlink codec: roced's structs <-> dcbnl attributes (include/uapi/linux/dcbnl.h).
// One file per object, as iproute2 dcb/ does: pfc.cpp, ets.cpp, app.cpp, buffer.cpp,
// maxrate.cpp, dcbx.cpp; message framing and reply checks in message.cpp.

#include <functional>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "os/netlink_message.hpp"
#include "os/result.hpp"

namespace roced::dcb {

// ---- per object: put one DCB_ATTR_IEEE_* attribute / read one back ----
void put_pfc(nl_msg* msg, const Pfc& pfc);  // DCB_ATTR_IEEE_PFC, struct ieee_pfc
Result<Pfc> parse_pfc(const nlattr* attr);
void put_ets(nl_msg* msg, const Ets& ets);  // DCB_ATTR_IEEE_ETS, struct ieee_ets
Result<Ets> parse_ets(const nlattr* attr);
void put_maxrate(nl_msg* msg, const Maxrate& rate);  // DCB_ATTR_IEEE_MAXRATE, struct ieee_maxrate
Result<Maxrate> parse_maxrate(const nlattr* attr);
void put_buffer(nl_msg* msg, const Buffer& buffer);  // DCB_ATTR_DCB_BUFFER, struct dcbnl_buffer
Result<Buffer> parse_buffer(const nlattr* attr);
// DCB_ATTR_IEEE_APP_TABLE nest of DCB_ATTR_IEEE_APP (struct dcb_app) entries.
void put_app_table(nl_msg* msg, const std::vector<AppEntry>& apps);
Result<std::vector<AppEntry>> parse_app_table(nlattr* attr);

// ---- messages ----
// RTM_GETDCB / RTM_SETDCB with struct dcbmsg{AF_UNSPEC, cmd} and DCB_ATTR_IFNAME.
NlMsgPtr new_dcb_message(uint16_t type, uint8_t cmd, const std::string& ifname);
// DCB_CMD_IEEE_SET / IEEE_DEL carrying one feature inside DCB_ATTR_IEEE.
NlMsgPtr ieee_message(uint8_t cmd, const std::string& ifname,
                      const std::function<void(nl_msg*)>& put_feature);
NlMsgPtr gdcbx_message(const std::string& ifname);
NlMsgPtr sdcbx_message(const std::string& ifname, uint8_t mode);

// ---- replies ----
// dcbnl_ieee_fill's layout: IFNAME, IEEE{ETS, MAXRATE, PFC, BUFFER, APP_TABLE, ...}, DCBX.
Result<IeeeState> parse_ieee_get(const NlMessage& reply);
// dcbnl_ieee_set / dcbnl_ieee_del answer with u8 DCB_ATTR_IEEE = (u8)err: 0 or a negative errno
// truncated to a byte. Decodes it to an Error naming `what`.
Result<void> check_ieee_status(const NlMessage& reply, const std::string& what);
// dcbnl_getdcbx: u8 DCB_ATTR_DCBX.
Result<uint8_t> parse_gdcbx(const NlMessage& reply);
// dcbnl_setdcbx: u8 DCB_ATTR_DCBX = the driver's setdcbx() result, 0 = accepted, nonzero = refused
// (no errno: mlx5e_dcbnl_setdcbx returns 1).
Result<void> check_sdcbx_status(const NlMessage& reply, const std::string& what);

// Top-level attributes of a DCB reply (after struct dcbmsg); `tb` has DCB_ATTR_MAX + 1 slots.
Result<void> parse_dcb_reply(const NlMessage& reply, nlattr** tb);

// The errno hidden in a dcbnl status byte: (u8)(-errno) -> errno.
int errno_from_status(uint8_t status);

}  // namespace roced::dcb
