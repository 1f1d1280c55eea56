// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small helpers the simulated-node tests share: whole-file reads and writes, the node's write
// counter (DIR/roce-sim.writes, docs/sim-formats.md) and the lossless config most tests apply.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace roced::test {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// DIR/roce-sim.writes: "total N", then "<netdev> N" per port.
inline std::map<std::string, uint64_t> read_writes(const std::filesystem::path& sim_dir) {
  std::map<std::string, uint64_t> out;
  std::istringstream lines(read_file(sim_dir / "roce-sim.writes"));
  std::string name;
  uint64_t count = 0;
  while (lines >> name >> count) out[name] = count;
  return out;
}

// The recipe for the default node's four ports, spelled out.
inline constexpr const char* kLosslessConfig =
    "ports:\n"
    "  netdevs: [lan2, lan3, lan4, lan5]\n"
    "profile:\n"
    "  dcbx: host\n"
    "  trust: dscp\n"
    "  dscp_map: {26: 3, 48: 6}\n"
    "  pfc: {priorities: [3], cable_length: 10}\n"
    "  mtu: 9000\n"
    "  stall_prevention: auto\n"
    "  roce: {rdma_cm_mode: v2, tos: 106}\n";

}  // namespace roced::test
