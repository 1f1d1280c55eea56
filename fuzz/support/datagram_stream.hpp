// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fuzz input as the replies a transport would receive: a stream of datagrams, each a u32
// little-endian length and that many bytes (the last one cut short by the end of the input). The
// seed generator (fuzz/seed_gen.cpp) writes the same framing from roce-sim's real answers.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace roced::fuzz {

class DatagramStream {
 public:
  explicit DatagramStream(std::span<const uint8_t> input) : rest_(input) {}

  // The next datagram; nullopt once the input is used up.
  std::optional<std::vector<uint8_t>> next() {
    if (rest_.size() < 4) return std::nullopt;
    const size_t declared =
        size_t{rest_[0]} | size_t{rest_[1]} << 8 | size_t{rest_[2]} << 16 | size_t{rest_[3]} << 24;
    rest_ = rest_.subspan(4);
    const size_t length = declared < rest_.size() ? declared : rest_.size();
    std::vector<uint8_t> datagram(rest_.begin(), rest_.begin() + static_cast<long>(length));
    rest_ = rest_.subspan(length);
    return datagram;
  }

 private:
  std::span<const uint8_t> rest_;
};

// The inverse, for the seed generator.
inline void append_datagram(std::vector<uint8_t>& stream, std::span<const uint8_t> datagram) {
  const auto length = static_cast<uint32_t>(datagram.size());
  for (int shift = 0; shift < 32; shift += 8)
    stream.push_back(static_cast<uint8_t>(length >> shift));
  stream.insert(stream.end(), datagram.begin(), datagram.end());
}

}  // namespace roced::fuzz
