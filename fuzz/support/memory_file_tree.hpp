// SPDX-License-Identifier: Apache-2.0
#pragma once
// A sysfs/configfs/debugfs tree held in memory and described by fuzz input, so the production
// readers (discovery, hw_counters, GID table, ECN, rdma_cm) parse whatever a kernel could show.
//
// The text form, one directive a line (the seed generator writes it from roce-sim's trees):
//   =/sys/class/net/lan2/mtu     a file; the lines that follow, up to the next directive, are its
//   9000                         content (newlines kept)
//   =/sys/kernel/config/rdma_cm/ a directory (trailing slash); parents are made implicitly
//   ~/sys/class/net/lan2/device ../../../devices/pci0000:00/0000:17:00.0     a symbolic link
//   !/sys/class/infiniband/mlx5_0/ports/1/gids/7 22     a file whose read fails with errno 22
// A directive is '=', '~' or '!' followed by '/'; any other line is content.

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "os/system.hpp"

namespace roced::fuzz {

class MemoryFileTree final : public FileTree {
 public:
  explicit MemoryFileTree(std::string_view description);

  std::filesystem::path resolve(const std::filesystem::path& real_path) const override;
  Result<std::string> read(const std::filesystem::path& real_path) const override;
  Result<void> write(const std::filesystem::path& real_path, const std::string& text) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& real_path) const override;
  bool exists(const std::filesystem::path& real_path) const override;
  Result<void> make_dir(const std::filesystem::path& real_path) override;
  Result<std::filesystem::path> read_link(const std::filesystem::path& real_path) const override;

 private:
  struct Entry {
    enum class Kind { File, Dir, Link, Failing } kind = Kind::Dir;
    std::string content;  // File: the text; Link: the target
    int error = 0;        // Failing: the errno a read gets
  };
  void add(const std::string& path, Entry entry);
  // Follows symbolic links in every component (the last too when follow_last); "" when a
  // component is missing or the links loop.
  std::string follow(const std::filesystem::path& path, bool follow_last) const;

  std::map<std::string, Entry> entries_;                   // normalized absolute path -> entry
  std::map<std::string, std::set<std::string>> children_;  // directory -> names
};

}  // namespace roced::fuzz
