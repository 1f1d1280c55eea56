// SPDX-License-Identifier: Apache-2.0
#pragma once
// A directory laid out and updated as the kubelet's atomic writer does for a ConfigMap volume
// (pkg/volume/util/atomic_writer.go): the files live in a "..<timestamp>" directory, "..data"
// links to it, each key is a symlink "KEY -> ..data/KEY"; an update writes a new timestamped
// directory, links "..data_tmp" to it, renames that over "..data" and removes the old one.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace roced::test {

class ConfigMapDir {
 public:
  ConfigMapDir(std::filesystem::path dir, std::string key)
      : dir_(std::move(dir)), key_(std::move(key)) {}

  std::filesystem::path file() const { return dir_ / key_; }

  void publish(const std::string& content) {
    namespace fs = std::filesystem;
    const std::string generation = "..2026_12_05_" + std::to_string(++generations_);
    fs::create_directories(dir_ / generation);
    std::ofstream(dir_ / generation / key_) << content;
    const fs::path old = fs::exists(dir_ / "..data") ? fs::read_symlink(dir_ / "..data") : "";
    fs::create_symlink(generation, dir_ / "..data_tmp");
    fs::rename(dir_ / "..data_tmp", dir_ / "..data");
    if (!fs::is_symlink(file())) fs::create_symlink(fs::path("..data") / key_, file());
    if (!old.empty()) fs::remove_all(dir_ / old);
  }

 private:
  std::filesystem::path dir_;
  std::string key_;
  int generations_ = 0;
};

}  // namespace roced::test
