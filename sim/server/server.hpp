// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's server: one Node behind DIR's sockets and file tree, driven by one epoll loop
// (single thread; the model is not thread-safe).

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace roce_sim::server {

struct RunOptions {
  std::filesystem::path dir;
  std::optional<std::filesystem::path> node_file;
  std::optional<std::filesystem::path> scenario_file;
  std::optional<double> speed;     // simulated seconds per real second
  std::optional<double> duration;  // simulated seconds
  // Every port's link training after a PFC toggle, instead of the node's (0: at once).
  std::optional<uint32_t> link_training_ms;
  bool quiet = false;
  bool verbose = false;
  // Sets from a client without CAP_NET_ADMIN in its effective set are refused with EPERM, as the
  // kernel refuses them (a node's tests run as root, where every client has it).
  bool enforce_capabilities = false;
};

// Runs until SIGTERM/SIGINT, or --duration (or, with --duration, the scenario's end).
// Returns the process exit code; prints FileError messages and exits 1 on bad input files.
int run(const RunOptions& options);

}  // namespace roce_sim::server
