#include "rdma/rdma_cm.hpp"

#include <charconv>

namespace roced::rdma {

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

}  // namespace roced::rdma
