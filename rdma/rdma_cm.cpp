// SPDX-License-Identifier: Apache-2.0
#include "rdma/rdma_cm.hpp"

#include <cerrno>
#include <charconv>
#include <chrono>
#include <thread>

namespace roced::rdma {

std::string RdmaCmDefaults::effective_mode() const { return configured ? roce_mode : "RoCE v2"; }

int RdmaCmDefaults::effective_tos() const { return configured ? tos.value_or(0) : 0; }

namespace {
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }
}  // namespace

Result<RdmaCmDefaults> read_rdma_cm(const FileTree& files, const std::string& device, int port) {
  const std::filesystem::path group = std::filesystem::path("/sys/kernel/config/rdma_cm") / device;
  RdmaCmDefaults defaults;
  if (!files.exists(group)) return defaults;
  defaults.configured = true;
  const std::filesystem::path port_dir = group / "ports" / std::to_string(port);
  auto mode = files.read(port_dir / "default_roce_mode");
  if (!mode) return mode.error();
  defaults.roce_mode = first_line(*mode);
  auto tos = files.read(port_dir / "default_roce_tos");
  if (!tos) return tos.error();
  const std::string tos_text = first_line(*tos);
  int value = 0;
  const auto [end, ec] = std::from_chars(tos_text.data(), tos_text.data() + tos_text.size(), value);
  if (ec != std::errc() || end != tos_text.data() + tos_text.size() || value < 0 || value > 255) {
    return Error{EINVAL, "read " + (port_dir / "default_roce_tos").string() +
                             ": not a ToS byte: \"" + tos_text + "\""};
  }
  defaults.tos = value;
  return defaults;
}

namespace {

std::filesystem::path group_path(const std::string& device) {
  return std::filesystem::path("/sys/kernel/config/rdma_cm") / device;
}

std::filesystem::path port_path(const std::string& device, int port) {
  return group_path(device) / "ports" / std::to_string(port);
}

// How long a simulated configfs may take to fill a new group; the real one fills it at once.
constexpr auto kGroupFillTimeout = std::chrono::seconds(2);
constexpr auto kGroupFillPoll = std::chrono::microseconds(200);

}  // namespace

Result<void> make_rdma_cm_group(FileTree& files, const std::string& device, int port) {
  const auto group = group_path(device);
  if (!files.exists(group)) {
    if (auto made = files.make_dir(group); !made && made.error().code != EEXIST) return made;
  }
  const auto dir = port_path(device, port);
  const auto deadline = std::chrono::steady_clock::now() + kGroupFillTimeout;
  while (!files.exists(dir / "default_roce_mode") || !files.exists(dir / "default_roce_tos")) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{ENOENT, "mkdir " + group.string() + ": no " + dir.string() +
                               "/default_roce_mode|tos appeared (is " + device +
                               " an RDMA device?)"};
    }
    std::this_thread::sleep_for(kGroupFillPoll);
  }
  return ok();
}

Result<void> write_rdma_cm_mode(FileTree& files, const std::string& device, int port,
                                const std::string& mode) {
  return files.write(port_path(device, port) / "default_roce_mode", mode + "\n");
}

Result<void> write_rdma_cm_tos(FileTree& files, const std::string& device, int port, int tos) {
  return files.write(port_path(device, port) / "default_roce_tos", std::to_string(tos) + "\n");
}

}  // namespace roced::rdma
