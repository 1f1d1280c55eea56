// SPDX-License-Identifier: Apache-2.0
#pragma once
// The probe's payload on the wire, in a UD send's data (after the GRH a UD receive buffer
// starts with). R-Pingmesh's exchange (SIGCOMM 2024, and yuuki/rpingmesh's six timestamps): the
// prober sends a probe; the responder answers it at once (the first answer, whose arrival the
// prober times) and then sends a second answer carrying when its NIC received the probe and
// when it sent the first answer, which it only knows once that send has completed. Both clocks
// stay on their own side: only differences taken on one host are ever used.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace roced::probe {

enum class MessageKind : uint8_t { Probe = 1, FirstAnswer = 2, SecondAnswer = 3 };

struct ProbeMessage {
  MessageKind kind = MessageKind::Probe;
  uint64_t sequence = 0;     // the prober's, echoed by both answers
  uint64_t sent_ns = 0;      // the prober's clock when it posted the probe, echoed
  uint64_t received_ns = 0;  // answers: the responder's clock at the probe's receive completion
  uint64_t answered_ns = 0;  // second answer: the responder's at the first answer's completion
  bool operator==(const ProbeMessage&) const = default;
};

inline constexpr size_t kMessageBytes = 40;
using MessageBytes = std::array<uint8_t, kMessageBytes>;

MessageBytes encode(const ProbeMessage& message);
// The message, or why these bytes are not one of ours (a responder answers nothing else): the
// error names what was wrong, for a counter's label and the debug log.
struct DecodeError {
  std::string reason;
};
std::optional<ProbeMessage> decode(std::span<const uint8_t> bytes, DecodeError* error = nullptr);

}  // namespace roced::probe
