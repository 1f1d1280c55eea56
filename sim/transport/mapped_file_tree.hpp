// SPDX-License-Identifier: Apache-2.0
#pragma once
// A file tree mounted elsewhere: a roce-sim node's DIR, or a capture of a real machine's sysfs.

#include <filesystem>
#include <vector>

#include "os/local_transports.hpp"

namespace roce_sim {

// Real absolute paths mapped onto directories: the longest matching prefix wins; a path no prefix
// matches goes to `fallback_root` / path. Reads and writes are the kernel tree's own, and debugfs
// keeps its lockdown rule: while the tree's sys/kernel/security/lockdown names integrity or
// confidentiality, a debugfs file with any write bit in its mode cannot be opened at all (EPERM),
// as fs/debugfs/file.c debugfs_locked_down refuses it even to root.
class MappedFileTree final : public roced::LocalFileTree {
 public:
  struct Mapping {
    std::filesystem::path real_prefix;  // "/sys/kernel/config"
    std::filesystem::path target;       // "DIR/config"
  };
  MappedFileTree(std::vector<Mapping> mappings, std::filesystem::path fallback_root);

  std::filesystem::path resolve(const std::filesystem::path& real_path) const override;
  // The kernel's debugfs rule under lockdown applies to both.
  roced::Result<std::string> read(const std::filesystem::path& real_path) const override;
  std::vector<roced::Result<std::string>> read_each(
      const std::filesystem::path& real_dir, const std::vector<std::string>& names) const override;
  roced::Result<void> write(const std::filesystem::path& real_path,
                            const std::string& text) override;

 private:
  std::vector<Mapping> mappings_;  // longest prefix first
  std::filesystem::path fallback_root_;
};

}  // namespace roce_sim
