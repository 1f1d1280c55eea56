// SPDX-License-Identifier: Apache-2.0
// Maxrate: struct ieee_maxrate in DCB_ATTR_IEEE_MAXRATE (u64 kbit/s per TC, 0 = unlimited).
#include <linux/dcbnl.h>

#include <cstring>

#include "dcb/codec.hpp"

namespace roced::dcb {

void put_maxrate(nl_msg* msg, const Maxrate& rate) {
  ieee_maxrate wire{};
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) wire.tc_maxrate[i] = rate.tc_kbps[i];
  nla_put(msg, DCB_ATTR_IEEE_MAXRATE, sizeof(wire), &wire);
}

Result<Maxrate> parse_maxrate(const nlattr* attr) {
  if (nla_len(attr) < static_cast<int>(sizeof(ieee_maxrate))) {
    return Error{EBADMSG, "DCB_ATTR_IEEE_MAXRATE shorter than struct ieee_maxrate"};
  }
  ieee_maxrate wire{};
  std::memcpy(&wire, nla_data(attr), sizeof(wire));
  Maxrate rate;
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) rate.tc_kbps[i] = wire.tc_maxrate[i];
  return rate;
}

}  // namespace roced::dcb
