// SPDX-License-Identifier: Apache-2.0
#include "rdma/hw_counters.hpp"

#include <cerrno>
#include <charconv>

namespace roced::rdma {

bool is_absent_error(const Error& error) {
  return error.code == ENOENT || error.code == EACCES || error.code == EOPNOTSUPP ||
         error.code == EINVAL || error.code == ENOTDIR || error.code == ENODATA;
}

namespace {

std::filesystem::path hw_counters_dir(const std::string& device, int port) {
  return std::filesystem::path("/sys/class/infiniband") / device / "ports" / std::to_string(port) /
         "hw_counters";
}

Result<std::map<std::string, uint64_t>> read_named_decimal_files(
    const FileTree& files, const std::filesystem::path& dir,
    const std::vector<std::string>& names) {
  std::map<std::string, uint64_t> values;
  auto texts = files.read_each(dir, names);
  for (size_t i = 0; i < names.size() && i < texts.size(); ++i) {
    const std::string& name = names[i];
    auto& text = texts[i];
    if (!text) {
      // A listed file that refuses to be read is a counter lost, not one the device lacks:
      // reported (the caller's source fails), never a silently missing series.
      const bool refused = text.error().code == EACCES || text.error().code == EPERM;
      if ((is_absent_error(text.error()) && !refused) || text.error().code == EISDIR) continue;
      return text.error();
    }
    std::string_view digits = *text;
    while (!digits.empty() && (digits.back() == '\n' || digits.back() == ' ')) {
      digits.remove_suffix(1);
    }
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
      continue;  // not a counter (a sub-directory or a text attribute)
    }
    values.emplace(name, value);
  }
  return values;
}

}  // namespace

Result<std::map<std::string, uint64_t>> read_decimal_files(const FileTree& files,
                                                           const std::filesystem::path& dir) {
  auto names = files.list(dir);
  if (!names) {
    if (is_absent_error(names.error())) return std::map<std::string, uint64_t>{};
    return names.error();
  }
  return read_named_decimal_files(files, dir, *names);
}

Result<std::vector<std::string>> list_hw_counters(const FileTree& files, const std::string& device,
                                                  int port) {
  auto names = files.list(hw_counters_dir(device, port));
  if (!names && is_absent_error(names.error())) return std::vector<std::string>{};
  return names;
}

Result<std::map<std::string, uint64_t>> read_hw_counters(const FileTree& files,
                                                         const std::string& device, int port) {
  return read_decimal_files(files, hw_counters_dir(device, port));
}

Result<std::map<std::string, uint64_t>> read_hw_counters(const FileTree& files,
                                                         const std::string& device, int port,
                                                         const std::vector<std::string>& names) {
  return read_named_decimal_files(files, hw_counters_dir(device, port), names);
}

}  // namespace roced::rdma
