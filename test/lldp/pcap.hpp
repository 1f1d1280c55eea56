// SPDX-License-Identifier: Apache-2.0
#pragma once
// The classic pcap file format (as libpcap writes it, either byte order): enough to read tcpdump's
// test captures and to write frames for tcpdump to decode.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace roced::test {

inline std::vector<std::vector<uint8_t>> read_pcap(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  if (bytes.size() < 24) throw std::runtime_error(path.string() + ": no pcap header");
  const bool swapped = bytes[0] == 0xa1 && bytes[1] == 0xb2;  // big-endian file
  auto u32 = [&](size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      v |= uint32_t{bytes[at + (swapped ? 3 - i : i)]} << (8 * i);
    }
    return v;
  };
  if (u32(20) != 1) throw std::runtime_error(path.string() + ": not an Ethernet capture");
  std::vector<std::vector<uint8_t>> frames;
  for (size_t at = 24; at + 16 <= bytes.size();) {
    const size_t captured = u32(at + 8);
    at += 16;
    const size_t take = std::min(captured, bytes.size() - at);
    frames.emplace_back(bytes.begin() + static_cast<long>(at),
                        bytes.begin() + static_cast<long>(at + take));
    at += take;
  }
  return frames;
}

inline void write_pcap(const std::filesystem::path& path,
                       const std::vector<std::vector<uint8_t>>& frames) {
  std::ofstream out(path, std::ios::binary);
  auto u32 = [&](uint32_t v) { out.write(reinterpret_cast<const char*>(&v), 4); };
  auto u16 = [&](uint16_t v) { out.write(reinterpret_cast<const char*>(&v), 2); };
  u32(0xa1b2c3d4);
  u16(2);
  u16(4);
  u32(0);
  u32(0);
  u32(65535);
  u32(1);  // LINKTYPE_ETHERNET
  uint32_t second = 0;
  for (const auto& frame : frames) {
    u32(++second);
    u32(0);
    u32(static_cast<uint32_t>(frame.size()));
    u32(static_cast<uint32_t>(frame.size()));
    out.write(reinterpret_cast<const char*>(frame.data()), static_cast<long>(frame.size()));
  }
}

}  // namespace roced::test
