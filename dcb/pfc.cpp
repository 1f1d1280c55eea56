// SPDX-License-Identifier: Apache-2.0
// PFC: struct ieee_pfc in DCB_ATTR_IEEE_PFC (136 bytes; mlx5 reads `delay` as the cable length).
#include <linux/dcbnl.h>

#include <cstring>

#include "dcb/codec.hpp"

namespace roced::dcb {

void put_pfc(nl_msg* msg, const Pfc& pfc) {
  ieee_pfc wire{};
  wire.pfc_cap = pfc.cap;
  wire.pfc_en = pfc.enabled_mask;
  wire.mbc = pfc.mbc;
  wire.delay = pfc.delay;
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) {
    wire.requests[i] = pfc.requests[i];
    wire.indications[i] = pfc.indications[i];
  }
  nla_put(msg, DCB_ATTR_IEEE_PFC, sizeof(wire), &wire);
}

Result<Pfc> parse_pfc(const nlattr* attr) {
  if (nla_len(attr) < static_cast<int>(sizeof(ieee_pfc))) {
    return Error{EBADMSG, "DCB_ATTR_IEEE_PFC shorter than struct ieee_pfc"};
  }
  ieee_pfc wire{};
  std::memcpy(&wire, nla_data(attr), sizeof(wire));
  Pfc pfc;
  pfc.cap = wire.pfc_cap;
  pfc.enabled_mask = wire.pfc_en;
  pfc.mbc = wire.mbc;
  pfc.delay = wire.delay;
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) {
    pfc.requests[i] = wire.requests[i];
    pfc.indications[i] = wire.indications[i];
  }
  return pfc;
}

}  // namespace roced::dcb
