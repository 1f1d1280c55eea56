// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "os/result.hpp"

namespace roced::service {

// Tells when the configuration file's content changed, for --watch-config: inotify on the file's
// directory and on its target's (a Kubernetes ConfigMap volume swaps a "..data" symlink in the
// mounted directory, an editor renames a new file over the old, Ansible's copy does the same).
// Directories, not the file: a watch on the file itself follows the replaced inode, not the name.
class ConfigWatch {
 public:
  static Result<ConfigWatch> open(const std::filesystem::path& config_path);
  ~ConfigWatch();
  ConfigWatch(ConfigWatch&& other) noexcept;
  ConfigWatch& operator=(ConfigWatch&&) = delete;
  ConfigWatch(const ConfigWatch&) = delete;
  ConfigWatch& operator=(const ConfigWatch&) = delete;

  int fd() const { return fd_; }
  // After poll(2) saw fd() readable: drains the events and answers whether the file now reads
  // differently from the last time it was read here (a rewrite with the same bytes, or a
  // kubelet resync, is no change).
  bool changed();

 private:
  ConfigWatch(int fd, std::filesystem::path path);
  void watch_directories();
  std::optional<std::string> read_content() const;

  int fd_ = -1;
  std::filesystem::path path_;
  std::optional<std::string> content_;  // nullopt while the file cannot be read
};

}  // namespace roced::service
