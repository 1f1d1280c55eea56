// SPDX-License-Identifier: Apache-2.0
#include "sim/server/write_counter.hpp"

#include <fstream>
#include <stdexcept>
#include <utility>

namespace roce_sim::server {

namespace fs = std::filesystem;

WriteCounter::WriteCounter(fs::path file, std::vector<std::string> netdevs)
    : file_(std::move(file)), netdevs_(std::move(netdevs)) {
  for (const std::string& netdev : netdevs_) per_port_[netdev] = 0;
}

void WriteCounter::count(const std::string& netdev) {
  ++total_;
  if (auto it = per_port_.find(netdev); it != per_port_.end()) {
    ++it->second;
    touched_.insert(netdev);
  } else {
    touched_unknown_ = true;
  }
  dirty_ = true;
}

std::optional<std::set<std::string>> WriteCounter::take_touched() {
  const bool unknown = std::exchange(touched_unknown_, false);
  std::set<std::string> touched = std::exchange(touched_, {});
  if (unknown) return std::nullopt;
  return touched;
}

void WriteCounter::flush() {
  if (!dirty_) return;
  write_file();
  dirty_ = false;
}

void WriteCounter::write_file() {
  std::string text = "total " + std::to_string(total_) + "\n";
  for (const std::string& netdev : netdevs_) {
    text += netdev + " " + std::to_string(per_port_.at(netdev)) + "\n";
  }
  const fs::path temp = file_.parent_path() / ("." + file_.filename().string() + ".tmp");
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + temp.string());
  }
  fs::rename(temp, file_);
}

}  // namespace roce_sim::server
