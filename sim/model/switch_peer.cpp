// SPDX-License-Identifier: Apache-2.0
#include "sim/model/switch_peer.hpp"

#include <cstdio>

namespace roce_sim {
namespace {

class Writer {
 public:
  void u8(uint8_t v) { bytes.push_back(v); }
  void u16(uint16_t v) {
    u8(static_cast<uint8_t>(v >> 8));
    u8(static_cast<uint8_t>(v));
  }
  void raw(const std::string& s) { bytes.insert(bytes.end(), s.begin(), s.end()); }
  void raw(const std::array<uint8_t, 6>& a) { bytes.insert(bytes.end(), a.begin(), a.end()); }
  void oui(uint32_t oui) {
    u8(static_cast<uint8_t>(oui >> 16));
    u8(static_cast<uint8_t>(oui >> 8));
    u8(static_cast<uint8_t>(oui));
  }
  // 7-bit type, 9-bit length (802.1AB 8.4.1; CEE sub-TLVs use the same header).
  void tlv(uint8_t type, const Writer& body) {
    u16(static_cast<uint16_t>(type << 9 | (body.bytes.size() & 0x1ff)));
    bytes.insert(bytes.end(), body.bytes.begin(), body.bytes.end());
  }
  std::vector<uint8_t> bytes;
};

void nibbles(Writer& w, const std::array<uint8_t, 8>& values) {
  for (size_t p = 0; p < 8; p += 2) {
    w.u8(static_cast<uint8_t>((values[p] & 0x0f) << 4 | (values[p + 1] & 0x0f)));
  }
}

Writer ieee_tlvs_into(Writer frame, const SwitchPeer& peer) {
  constexpr uint32_t kOui8021 = 0x0080c2;
  if (peer.ets) {  // 802.1Qaz D.2.9: willing, CBS, max TCs; prio->TC; bandwidth; TSA
    Writer w;
    w.oui(kOui8021);
    w.u8(0x09);
    w.u8(static_cast<uint8_t>((peer.ets->willing ? 0x80 : 0) | 0));
    nibbles(w, peer.ets->prio_tc);
    for (const uint8_t bw : peer.ets->tc_bw) w.u8(bw);
    for (const uint8_t tsa : peer.ets->tsa) w.u8(tsa);
    frame.tlv(127, w);
  }
  if (peer.pfc) {  // D.2.11: willing, MBC, capability; enable bitmap
    Writer w;
    w.oui(kOui8021);
    w.u8(0x0b);
    w.u8(static_cast<uint8_t>((peer.pfc_willing ? 0x80 : 0) | 8));
    w.u8(*peer.pfc);
    frame.tlv(127, w);
  }
  if (!peer.dscp.empty() || !peer.udp_ports.empty()) {
    // D.2.12: reserved; then per entry priority(3) reserved(2) selector(3), protocol(16).
    Writer w;
    w.oui(kOui8021);
    w.u8(0x0c);
    w.u8(0);
    for (const auto& [dscp, priority] : peer.dscp) {
      w.u8(static_cast<uint8_t>(priority << 5 | 5));
      w.u16(dscp);
    }
    for (const auto& [port, priority] : peer.udp_ports) {
      w.u8(static_cast<uint8_t>(priority << 5 | 3));
      w.u16(port);
    }
    frame.tlv(127, w);
  }
  return frame;
}

// The CEE DCBX TLV (OUI 00-1B-21 subtype 2): a control sub-TLV, then priority groups and PFC
// features with operating/max version 0, enabled, and the willing bit.
Writer cee_tlv_into(Writer frame, const SwitchPeer& peer) {
  Writer w;
  w.oui(0x001b21);
  w.u8(0x02);
  Writer control;
  control.u8(0);
  control.u8(0);
  control.u16(0);
  control.u16(1);  // sequence 1
  control.u16(0);
  control.u16(0);  // acknowledged 0
  w.tlv(1, control);
  const uint8_t flags = static_cast<uint8_t>(0x80 | (peer.pfc_willing ? 0x40 : 0));
  if (peer.ets) {
    Writer pg;
    pg.u8(0);
    pg.u8(0);
    pg.u8(flags);
    pg.u8(0);
    nibbles(pg, peer.ets->prio_tc);
    for (const uint8_t bw : peer.ets->tc_bw) pg.u8(bw);
    pg.u8(8);
    w.tlv(2, pg);
  }
  if (peer.pfc) {
    Writer pfc;
    pfc.u8(0);
    pfc.u8(0);
    pfc.u8(flags);
    pfc.u8(0);
    pfc.u8(*peer.pfc);
    pfc.u8(8);
    w.tlv(3, pfc);
  }
  frame.tlv(127, w);
  return frame;
}

}  // namespace

void SwitchPeerChange::apply_to(SwitchPeer& peer) const {
  if (system_name) peer.system_name = *system_name;
  if (port) peer.port = *port;
  if (pfc) peer.pfc = *pfc;
  if (willing) peer.pfc_willing = *willing;
  if (dscp) peer.dscp = *dscp;
  if (udp_ports) peer.udp_ports = *udp_ports;
  if (ets_bandwidth || prio_tc || ets_tsa) {
    SwitchEts ets = peer.ets.value_or(SwitchEts{});
    if (ets_bandwidth) ets.tc_bw = *ets_bandwidth;
    if (prio_tc) ets.prio_tc = *prio_tc;
    if (ets_tsa) {
      ets.tsa = *ets_tsa;
    } else if (!peer.ets) {
      for (size_t tc = 0; tc < 8; ++tc) ets.tsa[tc] = 2;  // ETS on every class
    }
    peer.ets = ets;
  }
  if (willing && peer.ets) peer.ets->willing = *willing;
  if (max_frame_size) peer.max_frame_size = *max_frame_size;
  if (dcbx) peer.dcbx = *dcbx;
  if (ttl) peer.ttl = *ttl;
  if (interval_s) peer.interval_s = *interval_s;
}

std::array<uint8_t, 6> mac_bytes(const std::string& text) {
  std::array<unsigned, 6> v{};
  std::array<uint8_t, 6> out{};
  if (std::sscanf(text.c_str(), "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) ==
      6) {
    for (size_t i = 0; i < 6; ++i) out[i] = static_cast<uint8_t>(v[i]);
  }
  return out;
}

std::vector<uint8_t> lldp_frame(const SwitchPeer& peer, const std::string& source_mac,
                                std::optional<uint16_t> ttl) {
  Writer frame;
  frame.raw(std::array<uint8_t, 6>{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e});
  frame.raw(mac_bytes(source_mac));
  frame.u16(0x88cc);
  Writer chassis;
  chassis.u8(4);  // MAC address
  chassis.raw(mac_bytes(peer.chassis_mac));
  frame.tlv(1, chassis);
  Writer port;
  port.u8(5);  // interface name
  port.raw(peer.port);
  frame.tlv(2, port);
  Writer time_to_live;
  time_to_live.u16(ttl.value_or(peer.ttl));
  frame.tlv(3, time_to_live);
  Writer description;
  description.raw(peer.port);
  frame.tlv(4, description);
  Writer name;
  name.raw(peer.system_name);
  frame.tlv(5, name);
  if (peer.dcbx == SwitchDcbx::Cee) frame = cee_tlv_into(std::move(frame), peer);
  if (peer.dcbx == SwitchDcbx::Ieee) frame = ieee_tlvs_into(std::move(frame), peer);
  if (peer.max_frame_size) {  // 802.3 Clause 79.3.4
    Writer w;
    w.oui(0x00120f);
    w.u8(0x04);
    w.u16(*peer.max_frame_size);
    frame.tlv(127, w);
  }
  frame.tlv(0, Writer{});
  while (frame.bytes.size() < 60) frame.u8(0);
  return std::move(frame.bytes);
}

}  // namespace roce_sim
