// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/sim_file_tree.hpp"

#include <roce_sim.h>

#include <array>
#include <cstring>
#include <utility>

namespace roce_sim {

SimFileTree::SimFileTree(std::vector<MappedFileTree::Mapping> mappings,
                         std::filesystem::path fallback_root, std::filesystem::path server_socket)
    : files_(std::move(mappings), std::move(fallback_root)), server_(std::move(server_socket)) {}

std::filesystem::path SimFileTree::resolve(const std::filesystem::path& real_path) const {
  return files_.resolve(real_path);
}

roced::Result<std::string> SimFileTree::read(const std::filesystem::path& real_path) const {
  return files_.read(real_path);
}

roced::Result<void> SimFileTree::write(const std::filesystem::path& real_path,
                                       const std::string& text) {
  auto written = files_.write(real_path, text);
  if (!written) return written;
  return taken(real_path);
}

roced::Result<std::vector<std::string>> SimFileTree::list(
    const std::filesystem::path& real_path) const {
  return files_.list(real_path);
}

bool SimFileTree::exists(const std::filesystem::path& real_path) const {
  return files_.exists(real_path);
}

roced::Result<void> SimFileTree::make_dir(const std::filesystem::path& real_path) {
  auto made = files_.make_dir(real_path);
  if (!made) return made;
  return taken(real_path);
}

roced::Result<std::filesystem::path> SimFileTree::read_link(
    const std::filesystem::path& real_path) const {
  return files_.read_link(real_path);
}

roced::Result<void> SimFileTree::taken(const std::filesystem::path& real_path) {
  std::array<uint8_t, sizeof(uint32_t)> request{};
  const uint32_t cmd = ROCE_SIM_ETHTOOL_SYNC_FILES;
  std::memcpy(request.data(), &cmd, sizeof cmd);
  auto answered = server_.call("", request, request.size());
  if (!answered) {
    return roced::Error{answered.error().code, real_path.string() +
                                                   ": written, but roce-sim did not confirm it: " +
                                                   answered.error().message};
  }
  return roced::ok();
}

}  // namespace roce_sim
