// SPDX-License-Identifier: Apache-2.0
#include "probe/wire.hpp"

namespace roced::probe {

namespace {

// "RCPR", version 1; then the kind, two bytes reserved (zero), and four 64-bit fields, all in
// network byte order. The Q_Key already keeps other UD traffic out; the magic and the checks
// below keep out what shares it by mistake.
constexpr std::array<uint8_t, 4> kMagic = {'R', 'C', 'P', 'R'};
constexpr uint8_t kVersion = 1;

void put_u64(uint8_t* at, uint64_t value) {
  for (int i = 7; i >= 0; --i) {
    at[i] = static_cast<uint8_t>(value & 0xff);
    value >>= 8;
  }
}

uint64_t get_u64(const uint8_t* at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | at[i];
  return value;
}

std::optional<ProbeMessage> refuse(DecodeError* error, const char* reason) {
  if (error != nullptr) error->reason = reason;
  return std::nullopt;
}

}  // namespace

MessageBytes encode(const ProbeMessage& message) {
  MessageBytes bytes{};
  std::copy(kMagic.begin(), kMagic.end(), bytes.begin());
  bytes[4] = kVersion;
  bytes[5] = static_cast<uint8_t>(message.kind);
  put_u64(&bytes[8], message.sequence);
  put_u64(&bytes[16], message.sent_ns);
  put_u64(&bytes[24], message.received_ns);
  put_u64(&bytes[32], message.answered_ns);
  return bytes;
}

std::optional<ProbeMessage> decode(std::span<const uint8_t> bytes, DecodeError* error) {
  if (bytes.size() < kMessageBytes) return refuse(error, "short");
  if (!std::equal(kMagic.begin(), kMagic.end(), bytes.begin())) return refuse(error, "magic");
  if (bytes[4] != kVersion) return refuse(error, "version");
  if (bytes[6] != 0 || bytes[7] != 0) return refuse(error, "reserved");
  ProbeMessage message;
  switch (bytes[5]) {
    case static_cast<uint8_t>(MessageKind::Probe):
    case static_cast<uint8_t>(MessageKind::FirstAnswer):
    case static_cast<uint8_t>(MessageKind::SecondAnswer):
      message.kind = static_cast<MessageKind>(bytes[5]);
      break;
    default:
      return refuse(error, "kind");
  }
  message.sequence = get_u64(&bytes[8]);
  message.sent_ns = get_u64(&bytes[16]);
  message.received_ns = get_u64(&bytes[24]);
  message.answered_ns = get_u64(&bytes[32]);
  // A probe carries no responder times; an answer that claims to have been sent before it was
  // received is not one a responder of ours wrote.
  if (message.kind == MessageKind::Probe &&
      (message.received_ns != 0 || message.answered_ns != 0)) {
    return refuse(error, "probe with answer times");
  }
  if (message.kind == MessageKind::SecondAnswer && message.answered_ns < message.received_ns) {
    return refuse(error, "answered before received");
  }
  return message;
}

}  // namespace roced::probe
