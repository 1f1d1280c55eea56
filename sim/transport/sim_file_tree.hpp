// SPDX-License-Identifier: Apache-2.0
#pragma once
// A running roce-sim node's files as roced's FileTree. A kernel's store() (sysfs, configfs,
// debugfs) has done its work when write() returns, and configfs's mkdir has made the group's
// attributes: after each write and mkdir this tree asks the server, which takes every file write
// made before a request into the model before answering it, so a read that follows sees the
// model's answer and no refresh of the server's can land between the write and its effect.

#include <filesystem>
#include <string>
#include <vector>

#include "sim/transport/mapped_file_tree.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roce_sim {

class SimFileTree final : public roced::FileTree {
 public:
  SimFileTree(std::vector<MappedFileTree::Mapping> mappings, std::filesystem::path fallback_root,
              std::filesystem::path server_socket);

  std::filesystem::path resolve(const std::filesystem::path& real_path) const override;
  roced::Result<std::string> read(const std::filesystem::path& real_path) const override;
  std::vector<roced::Result<std::string>> read_each(
      const std::filesystem::path& real_dir, const std::vector<std::string>& names) const override {
    return files_.read_each(real_dir, names);
  }
  roced::Result<void> write(const std::filesystem::path& real_path,
                            const std::string& text) override;
  roced::Result<std::vector<std::string>> list(
      const std::filesystem::path& real_path) const override;
  bool exists(const std::filesystem::path& real_path) const override;
  roced::Result<void> make_dir(const std::filesystem::path& real_path) override;
  roced::Result<std::filesystem::path> read_link(
      const std::filesystem::path& real_path) const override;

 private:
  // Returns once the server has taken the writes made so far (ROCE_SIM_ETHTOOL_SYNC_FILES).
  roced::Result<void> taken(const std::filesystem::path& real_path);

  MappedFileTree files_;
  SimEthtoolIoctl server_;
};

}  // namespace roce_sim
