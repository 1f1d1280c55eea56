// SPDX-License-Identifier: Apache-2.0
#pragma once
// DIR/roce-sim.writes: how many state-changing requests clients made, per port
// (docs/sim-formats.md, "Write counter"). It proves an idempotent re-apply writes nothing: every
// set request counts, whether it changes a value or fails. Scenario events are the world, not
// clients: never counted.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace roce_sim::server {

inline constexpr const char* kWritesFile = "roce-sim.writes";  // in DIR

class WriteCounter {
 public:
  // `netdevs`: every port of the node, in node order (absent ones included, with their counts).
  WriteCounter(std::filesystem::path file, std::vector<std::string> netdevs);

  // One client request. An unknown netdev (a request naming no port) counts in the total only.
  void count(const std::string& netdev);
  // Rewrites the file when a count changed since the last flush (write aside, then rename, so a
  // reader never sees half a file). Called before the request's reply goes out.
  void flush();

  uint64_t total() const { return total_; }
  // The ports counted since the last call, so only their files are refreshed; nullopt when a
  // request named no port (then every port's files are).
  std::optional<std::set<std::string>> take_touched();

 private:
  void write_file();
  std::filesystem::path file_;
  std::vector<std::string> netdevs_;
  std::map<std::string, uint64_t> per_port_;
  uint64_t total_ = 0;
  bool dirty_ = true;
  std::set<std::string> touched_;
  bool touched_unknown_ = false;  // the first flush creates the file with zeros
};

}  // namespace roce_sim::server
