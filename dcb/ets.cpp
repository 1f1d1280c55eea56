// SPDX-License-Identifier: Apache-2.0
// ETS: struct ieee_ets in DCB_ATTR_IEEE_ETS (59 bytes).
#include <linux/dcbnl.h>

#include <cstring>

#include "dcb/codec.hpp"

namespace roced::dcb {

void put_ets(nl_msg* msg, const Ets& ets) {
  ieee_ets wire{};
  wire.willing = ets.willing ? 1 : 0;
  wire.ets_cap = ets.ets_cap;
  wire.cbs = ets.cbs ? 1 : 0;
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) {
    wire.tc_tx_bw[i] = ets.tc_tx_bw[i];
    wire.tc_rx_bw[i] = ets.tc_rx_bw[i];
    wire.tc_tsa[i] = static_cast<uint8_t>(ets.tc_tsa[i]);
    wire.prio_tc[i] = ets.prio_tc[i];
    wire.tc_reco_bw[i] = ets.tc_reco_bw[i];
    wire.tc_reco_tsa[i] = static_cast<uint8_t>(ets.tc_reco_tsa[i]);
    wire.reco_prio_tc[i] = ets.reco_prio_tc[i];
  }
  nla_put(msg, DCB_ATTR_IEEE_ETS, sizeof(wire), &wire);
}

Result<Ets> parse_ets(const nlattr* attr) {
  if (nla_len(attr) < static_cast<int>(sizeof(ieee_ets))) {
    return Error{EBADMSG, "DCB_ATTR_IEEE_ETS shorter than struct ieee_ets"};
  }
  ieee_ets wire{};
  std::memcpy(&wire, nla_data(attr), sizeof(wire));
  Ets ets;
  ets.willing = wire.willing != 0;
  ets.ets_cap = wire.ets_cap;
  ets.cbs = wire.cbs != 0;
  for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; ++i) {
    ets.tc_tx_bw[i] = wire.tc_tx_bw[i];
    ets.tc_rx_bw[i] = wire.tc_rx_bw[i];
    ets.tc_tsa[i] = static_cast<Tsa>(wire.tc_tsa[i]);
    ets.prio_tc[i] = wire.prio_tc[i];
    ets.tc_reco_bw[i] = wire.tc_reco_bw[i];
    ets.tc_reco_tsa[i] = static_cast<Tsa>(wire.tc_reco_tsa[i]);
    ets.reco_prio_tc[i] = wire.reco_prio_tc[i];
  }
  return ets;
}

}  // namespace roced::dcb
