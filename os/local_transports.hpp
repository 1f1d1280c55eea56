// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernel's own ethtool ioctl and file tree, behind real_system() (os/open_system.hpp).

#include <filesystem>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "os/system.hpp"
#include "os/unique_fd.hpp"

namespace roced {

// "lan2: ethtool command 0x1d", the context of an ethtool call's error.
std::string ethtool_call_context(std::string_view ifname, std::span<const uint8_t> buffer);

// ioctl(SIOCETHTOOL) on an AF_INET datagram socket, as ethtool(8) does.
class KernelEthtoolIoctl final : public EthtoolIoctl {
 public:
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override;

 private:
  std::mutex mutex_;
  UniqueFd fd_;  // opened on first use
};

// sysfs, configfs and debugfs through open/read/write/readdir on resolve(path). Here resolve() is
// the path itself; a tree mounted elsewhere (a captured or simulated node) overrides it.
class LocalFileTree : public FileTree {
 public:
  std::filesystem::path resolve(const std::filesystem::path& real_path) const override;
  Result<std::string> read(const std::filesystem::path& real_path) const override;
  // openat() under one O_PATH descriptor of the directory.
  std::vector<Result<std::string>> read_each(const std::filesystem::path& real_dir,
                                             const std::vector<std::string>& names) const override;
  Result<void> write(const std::filesystem::path& real_path, const std::string& text) override;
  Result<std::vector<std::string>> list(const std::filesystem::path& real_path) const final;
  bool exists(const std::filesystem::path& real_path) const final;
  Result<void> make_dir(const std::filesystem::path& real_path) final;
  Result<std::filesystem::path> read_link(const std::filesystem::path& real_path) const final;
};

}  // namespace roced
