// SPDX-License-Identifier: Apache-2.0
#pragma once
// A roce-sim node for one benchmark run: started in a fresh scratch directory, ready once its pid
// file exists, stopped (SIGTERM) and removed on destruction.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace roced::bench {

// The firmware commands the ports of the node in `dir` have issued since they loaded (debugfs
// mlx5/<pci>/commands/*/n, as mlx5 counts them; the node rewrites them periodically).
double firmware_commands(const std::filesystem::path& dir);

class SimProcess {
 public:
  // node_file empty: roce-sim's built-in default node; scenario_file empty: none. Throws
  // std::runtime_error when the node does not become ready.
  SimProcess(const std::string& roce_sim, const std::string& node_file,
             const std::string& scenario_file = "",
             const std::vector<std::string>& extra_args = {});
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // DIR/roce-sim.writes' total: client set requests so far (docs/sim-formats.md).
  uint64_t writes_total() const;

  // Waits (real time, up to `patience`) until every netdev's sysfs carrier reads 1: a PFC change
  // flaps an mlx5 link and it trains for seconds. False when one is still down.
  bool wait_for_carrier(const std::vector<std::string>& netdevs,
                        std::chrono::milliseconds patience) const;

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
};

// Runs argv, output to /dev/null unless `output` is given; returns the exit status (127: could
// not run, 128+N: killed by signal N).
int run_program(const std::vector<std::string>& argv, std::string* output = nullptr);

}  // namespace roced::bench
