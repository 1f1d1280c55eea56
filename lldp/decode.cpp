// SPDX-License-Identifier: Apache-2.0
// The LLDPDU decoder. Every read goes through Bytes, which checks the length first; a TLV's
// fields are read from its own span, so a lying length can only make the TLV too short, which is
// reported, never a read past the frame.
#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstdio>

#include "lldp/lldpdu.hpp"

namespace roced::lldp {
namespace {

// TLV types (802.1AB-2016 Table 8-1).
enum : uint8_t {
  kEnd = 0,
  kChassisId = 1,
  kPortId = 2,
  kTtl = 3,
  kPortDescription = 4,
  kSystemName = 5,
  kSystemDescription = 6,
  kManagementAddress = 8,
  kOrganizational = 127,
};
constexpr uint32_t kOui8021 = 0x0080c2;
constexpr uint32_t kOui8023 = 0x00120f;
constexpr uint32_t kOuiCee = 0x001b21;
// 802.1Qaz Annex D subtypes.
constexpr uint8_t kEtsConfig = 0x09;
constexpr uint8_t kEtsRecommendation = 0x0a;
constexpr uint8_t kPfcConfig = 0x0b;
constexpr uint8_t kAppPriority = 0x0c;
constexpr uint8_t kMaxFrameSize = 0x04;  // 802.3 Clause 79.3.4
constexpr uint8_t kCeeDcbx = 0x02;       // the CEE (DCBX 1.01) TLV; 0x01 was CIN
// CEE sub-TLV types (ice_dcb.h ICE_CEE_SUBTYPE_*).
constexpr uint8_t kCeeControl = 1;
constexpr uint8_t kCeePriorityGroups = 2;
constexpr uint8_t kCeePfc = 3;
constexpr uint8_t kCeeApp = 4;

struct Failure {
  DropReason reason;
  std::string what;
};

// A bounds-checked view: every accessor is given the offset and answers only inside the span.
class Bytes {
 public:
  explicit Bytes(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  size_t size() const { return bytes_.size(); }
  bool has(size_t offset, size_t count) const {
    return offset <= bytes_.size() && count <= bytes_.size() - offset;
  }
  uint8_t u8(size_t at) const { return has(at, 1) ? bytes_[at] : 0; }
  uint16_t u16(size_t at) const {
    return has(at, 2) ? static_cast<uint16_t>(bytes_[at] << 8 | bytes_[at + 1]) : 0;
  }
  uint32_t u24(size_t at) const {
    return has(at, 3) ? uint32_t{bytes_[at]} << 16 | uint32_t{bytes_[at + 1]} << 8 | bytes_[at + 2]
                      : 0;
  }
  uint32_t u32(size_t at) const { return has(at, 4) ? uint32_t{u16(at)} << 16 | u16(at + 2) : 0; }
  std::span<const uint8_t> sub(size_t at, size_t count) const {
    return has(at, count) ? bytes_.subspan(at, count) : std::span<const uint8_t>{};
  }
  std::span<const uint8_t> from(size_t at) const {
    return at <= bytes_.size() ? bytes_.subspan(at) : std::span<const uint8_t>{};
  }

 private:
  std::span<const uint8_t> bytes_;
};

// Four octets of nibbles, priority 0 in the high nibble of the first (802.1Qaz D.2.9.6; CEE's
// priority group table has the same layout).
std::array<uint8_t, 8> nibbles(const Bytes& b, size_t at) {
  std::array<uint8_t, 8> out{};
  for (size_t p = 0; p < 8; ++p) {
    const uint8_t octet = b.u8(at + p / 2);
    out[p] = p % 2 == 0 ? octet >> 4 : octet & 0x0f;
  }
  return out;
}

std::array<uint8_t, 8> octets(const Bytes& b, size_t at) {
  std::array<uint8_t, 8> out{};
  for (size_t i = 0; i < 8; ++i) out[i] = b.u8(at + i);
  return out;
}

std::optional<Failure> short_tlv(const char* what, size_t have, size_t need) {
  if (have >= need) return std::nullopt;
  return Failure{DropReason::Truncated, std::string(what) + " TLV of " + std::to_string(have) +
                                            " bytes, its fields need " + std::to_string(need)};
}

std::string address_text(uint8_t family, std::span<const uint8_t> address) {
  // IANA address family numbers: 1 IPv4, 2 IPv6, 6 802 (MAC).
  char text[INET6_ADDRSTRLEN] = {};
  if (family == 1 && address.size() == 4 && inet_ntop(AF_INET, address.data(), text, sizeof text)) {
    return text;
  }
  if (family == 2 && address.size() == 16 &&
      inet_ntop(AF_INET6, address.data(), text, sizeof text)) {
    return text;
  }
  if (family == 6 && address.size() == 6) return mac_text(address);
  return display_text(address);
}

// Chassis ID and port ID: a subtype, then the ID. A MAC subtype (chassis 4, port 3) or a network
// address subtype (chassis 5, port 4) is shown as one; the rest are text.
std::string id_text(uint8_t subtype, std::span<const uint8_t> id, uint8_t mac_subtype,
                    uint8_t address_subtype) {
  if (subtype == mac_subtype && id.size() == 6) return mac_text(id);
  if (subtype == address_subtype && !id.empty()) return address_text(id[0], id.subspan(1));
  return display_text(id);
}

std::optional<Failure> read_management_address(const Bytes& b, Lldpdu& out) {
  // 802.1AB 8.5.9: string length (subtype + address, 2..32), subtype, address, interface
  // numbering subtype, interface number (4), OID length, OID.
  if (auto shortage = short_tlv("management address", b.size(), 9)) return shortage;
  const uint8_t length = b.u8(0);
  if (length < 2 || length > 32 || !b.has(1, length + size_t{6})) {
    return Failure{DropReason::Malformed, "management address of length " + std::to_string(length) +
                                              " in a TLV of " + std::to_string(b.size()) +
                                              " bytes"};
  }
  out.management_addresses.push_back(address_text(b.u8(1), b.sub(2, length - size_t{1})));
  return std::nullopt;
}

std::optional<Failure> read_ets(const Bytes& b, bool recommendation, Ets& ets) {
  // OUI 3 + subtype 1 + flags (or reserved) 1 + priority assignment 4 + bandwidth 8 + TSA 8.
  if (auto shortage =
          short_tlv(recommendation ? "ETS recommendation" : "ETS configuration", b.size(), 25)) {
    return shortage;
  }
  if (!recommendation) {
    const uint8_t flags = b.u8(4);
    ets.willing = (flags & 0x80) != 0;
    ets.cbs = (flags & 0x40) != 0;
    ets.max_tcs = flags & 0x07;
  }
  ets.prio_tc = nibbles(b, 5);
  ets.tc_bw = octets(b, 9);
  ets.tsa = octets(b, 17);
  return std::nullopt;
}

std::optional<Failure> read_pfc(const Bytes& b, Pfc& pfc) {
  if (auto shortage = short_tlv("PFC configuration", b.size(), 6)) return shortage;
  const uint8_t flags = b.u8(4);
  pfc.willing = (flags & 0x80) != 0;
  pfc.mbc = (flags & 0x40) != 0;
  pfc.cap = flags & 0x0f;
  pfc.enabled_mask = b.u8(5);
  return std::nullopt;
}

std::optional<Failure> read_app(const Bytes& b, std::vector<dcb::AppEntry>& entries) {
  // A reserved octet, then 3-octet entries: priority (3 bits), reserved (2), selector (3),
  // protocol (16). ice_dcb.c ice_parse_ieee_app_tlv reads the same layout.
  if (auto shortage = short_tlv("application priority", b.size(), 5)) return shortage;
  if ((b.size() - 5) % 3 != 0) {
    return Failure{DropReason::Malformed, "application priority TLV of " +
                                              std::to_string(b.size()) +
                                              " bytes is not a whole number of 3-byte entries"};
  }
  for (size_t at = 5; b.has(at, 3); at += 3) {
    const uint8_t head = b.u8(at);
    entries.push_back(dcb::AppEntry{static_cast<uint8_t>(head & 0x07),
                                    static_cast<uint8_t>(head >> 5), b.u16(at + 1)});
  }
  return std::nullopt;
}

CeeFeature cee_feature(const Bytes& sub) {
  // After the sub-TLV header: operating version, max version, enable/willing/error, subtype.
  const uint8_t flags = sub.u8(4);
  return CeeFeature{sub.u8(2), sub.u8(3), (flags & 0x80) != 0, (flags & 0x40) != 0,
                    (flags & 0x20) != 0};
}

std::optional<Failure> read_cee_sub(uint8_t type, const Bytes& sub, Cee& cee) {
  switch (type) {
    case kCeeControl:
      if (auto shortage = short_tlv("CEE control", sub.size(), 12)) return shortage;
      cee.oper_version = sub.u8(2);
      cee.max_version = sub.u8(3);
      cee.sequence = sub.u32(4);
      cee.acknowledged = sub.u32(8);
      return std::nullopt;
    case kCeePriorityGroups: {
      if (auto shortage = short_tlv("CEE priority groups", sub.size(), 19)) return shortage;
      CeePriorityGroups pg{cee_feature(sub), nibbles(sub, 6), octets(sub, 10), sub.u8(18)};
      cee.priority_groups = pg;
      return std::nullopt;
    }
    case kCeePfc:
      if (auto shortage = short_tlv("CEE PFC", sub.size(), 8)) return shortage;
      cee.pfc = CeePfc{cee_feature(sub), sub.u8(6), sub.u8(7)};
      return std::nullopt;
    case kCeeApp: {
      if (auto shortage = short_tlv("CEE application", sub.size(), 6)) return shortage;
      CeeApp app{cee_feature(sub), {}};
      // 6-byte entries: protocol (2), OUI's high 6 bits and the selector (1), OUI's low 16 bits
      // (2), priority map (1): ice_dcb.h struct ice_cee_app_prio.
      for (size_t at = 6; sub.has(at, 6); at += 6) {
        const uint8_t oui_sel = sub.u8(at + 2);
        app.entries.push_back(CeeAppEntry{
            sub.u16(at), static_cast<uint8_t>(oui_sel & 0x03),
            uint32_t{static_cast<uint8_t>(oui_sel >> 2)} << 16 | sub.u16(at + 3), sub.u8(at + 5)});
      }
      cee.app = std::move(app);
      return std::nullopt;
    }
    default:
      return std::nullopt;  // a later CEE feature (logical link down, ...): not compared
  }
}

std::optional<Failure> read_cee(const Bytes& b, Cee& cee) {
  // After OUI and subtype, sub-TLVs with the LLDP header layout: 7-bit type, 9-bit length.
  const Bytes body(b.from(4));
  size_t at = 0;
  while (at < body.size()) {
    if (!body.has(at, 2)) return Failure{DropReason::Truncated, "CEE sub-TLV header cut short"};
    const uint16_t header = body.u16(at);
    const size_t length = header & 0x1ff;
    if (!body.has(at + 2, length)) {
      return Failure{DropReason::Truncated,
                     "CEE sub-TLV of " + std::to_string(length) + " bytes runs past its TLV"};
    }
    // The sub-TLV's own span, header included, so offsets match the layout in ice_dcb.h.
    const Bytes sub(body.sub(at, length + 2));
    if (auto failure = read_cee_sub(static_cast<uint8_t>(header >> 9), sub, cee)) return failure;
    at += 2 + length;
  }
  return std::nullopt;
}

std::optional<Failure> read_organizational(const Bytes& b, Lldpdu& out) {
  if (auto shortage = short_tlv("organizationally specific", b.size(), 4)) return shortage;
  const uint32_t oui = b.u24(0);
  const uint8_t subtype = b.u8(3);
  if (oui == kOui8021) {
    switch (subtype) {
      case kEtsConfig:
        return read_ets(b, false, out.ets.emplace());
      case kEtsRecommendation:
        return read_ets(b, true, out.ets_recommendation.emplace());
      case kPfcConfig:
        return read_pfc(b, out.pfc.emplace());
      case kAppPriority:
        return read_app(b, out.app.emplace());
      default:
        break;
    }
  } else if (oui == kOui8023 && subtype == kMaxFrameSize) {
    if (auto shortage = short_tlv("maximum frame size", b.size(), 6)) return shortage;
    out.max_frame_size = b.u16(4);
    return std::nullopt;
  } else if (oui == kOuiCee && subtype == kCeeDcbx) {
    return read_cee(b, out.cee.emplace());
  }
  ++out.unknown_tlvs;
  return std::nullopt;
}

std::optional<Failure> read_tlv(uint8_t type, const Bytes& b, Lldpdu& out) {
  switch (type) {
    case kChassisId:
    case kPortId: {
      // 802.1AB 8.5.2/8.5.3: subtype and 1..255 bytes of ID.
      if (b.size() < 2) return Failure{DropReason::Malformed, "an empty chassis or port ID"};
      const bool chassis = type == kChassisId;
      const uint8_t subtype = b.u8(0);
      (chassis ? out.chassis_id_subtype : out.port_id_subtype) = subtype;
      (chassis ? out.chassis_id : out.port_id) =
          chassis ? id_text(subtype, b.from(1), 4, 5) : id_text(subtype, b.from(1), 3, 4);
      return std::nullopt;
    }
    case kTtl:
      if (b.size() < 2) return Failure{DropReason::Malformed, "a TTL TLV shorter than 2 bytes"};
      out.ttl = b.u16(0);
      return std::nullopt;
    case kPortDescription:
      out.port_description = display_text(b.from(0));
      return std::nullopt;
    case kSystemName:
      out.system_name = display_text(b.from(0));
      return std::nullopt;
    case kSystemDescription:
      out.system_description = display_text(b.from(0));
      return std::nullopt;
    case kManagementAddress:
      return read_management_address(b, out);
    case kOrganizational:
      return read_organizational(b, out);
    default:
      ++out.unknown_tlvs;  // system capabilities, reserved types
      return std::nullopt;
  }
}

Decoded dropped(DropReason reason, std::string what) {
  return Decoded{std::nullopt, reason, std::move(what)};
}

}  // namespace

Decoded decode_lldpdu(std::span<const uint8_t> payload) {
  const Bytes b(payload);
  Lldpdu out;
  size_t at = 0;
  int index = 0;
  constexpr std::array<uint8_t, 3> kMandatory = {kChassisId, kPortId, kTtl};
  while (true) {
    if (!b.has(at, 2)) {
      // The End TLV is mandatory, but frames padded to 60 bytes without it are common.
      if (index >= 3) break;
      return dropped(DropReason::Truncated,
                     "the LLDPDU ends before its chassis ID, port ID and TTL");
    }
    const uint16_t header = b.u16(at);
    const uint8_t type = static_cast<uint8_t>(header >> 9);
    const size_t length = header & 0x1ff;
    if (!b.has(at + 2, length)) {
      return dropped(DropReason::Truncated, "TLV type " + std::to_string(type) + " of " +
                                                std::to_string(length) +
                                                " bytes runs past the frame");
    }
    if (index < 3 && type != kMandatory[index]) {
      return dropped(DropReason::Malformed,
                     "TLV " + std::to_string(index + 1) + " is type " + std::to_string(type) +
                         ", 802.1AB wants chassis ID (1), port ID (2), TTL (3) first");
    }
    if (type == kEnd) break;
    if (index >= 3 && (type == kChassisId || type == kPortId || type == kTtl)) {
      return dropped(DropReason::Malformed, "a second TLV of type " + std::to_string(type));
    }
    if (auto failure = read_tlv(type, Bytes(b.sub(at + 2, length)), out)) {
      return dropped(failure->reason, std::move(failure->what));
    }
    at += 2 + length;
    ++index;
  }
  return Decoded{std::move(out), DropReason::Malformed, {}};
}

Decoded decode_frame(std::span<const uint8_t> frame) {
  const Bytes b(frame);
  if (!b.has(0, 14))
    return dropped(DropReason::Truncated, "a frame shorter than its Ethernet header");
  size_t type_at = 12;
  if (b.u16(type_at) == 0x8100) type_at += 4;  // one 802.1Q tag
  if (b.u16(type_at) != kEthertype) {
    return dropped(
        DropReason::NotLldp, "ethertype 0x" + [&] {
          char hex[8];
          std::snprintf(hex, sizeof hex, "%04x", b.u16(type_at));
          return std::string(hex);
        }());
  }
  Decoded decoded = decode_lldpdu(b.from(type_at + 2));
  if (decoded.lldpdu) {
    for (size_t i = 0; i < 6; ++i) decoded.lldpdu->source[i] = b.u8(6 + i);
  }
  return decoded;
}

std::string display_text(std::span<const uint8_t> bytes, size_t limit) {
  std::string text;
  const size_t count = std::min(bytes.size(), limit);
  text.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') {
      text.push_back(static_cast<char>(c));
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      text += escaped;
    }
  }
  return text;
}

std::string mac_text(std::span<const uint8_t> mac) {
  std::string text;
  for (size_t i = 0; i < mac.size(); ++i) {
    char octet[4];
    std::snprintf(octet, sizeof octet, i == 0 ? "%02x" : ":%02x", mac[i]);
    text += octet;
  }
  return text;
}

}  // namespace roced::lldp
