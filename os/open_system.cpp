// SPDX-License-Identifier: Apache-2.0
#include "os/open_system.hpp"

#include <dlfcn.h>

#include <array>
#include <cerrno>
#include <memory>
#include <string>
#include <system_error>

#include "os/local_transports.hpp"
#include "os/netlink_socket.hpp"
#include "os/packet_socket.hpp"

namespace roced {

System real_system() {
  System system;
  system.open_rtnl = [] { return KernelNetlinkSocket::open(); };
  system.open_rdma_netlink = [] { return KernelNetlinkSocket::open(NETLINK_RDMA); };
  system.open_genl = [] { return KernelNetlinkSocket::open(NETLINK_GENERIC); };
  system.ethtool = std::make_unique<KernelEthtoolIoctl>();
  system.files = std::make_unique<LocalFileTree>();
  system.open_lldp = [](const std::string& netdev) { return open_lldp_packet_socket(netdev); };
  system.description = "this machine";
  return system;
}

namespace {

// Beside the executable's own tree: /usr/sbin/roced and /usr/bin/rocectl find /usr/lib/roced,
// build/bin/roced finds build/lib/roced.
Result<std::filesystem::path> sim_plugin_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return Error{error.value(), "--sim: cannot find this program's path"};
  return self.parent_path().parent_path() / "lib" / "roced" / kSimPluginFile;
}

Result<System> open_simulated(const std::filesystem::path& dir) {
  const auto plugin = sim_plugin_path();
  if (!plugin) return plugin.error();
  // Never unloaded: the System's objects and functions live in it for the process's life.
  void* handle = ::dlopen(plugin->c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    return Error{ENOENT, "--sim " + dir.string() + ": cannot load roce-sim's transports (" +
                             std::string(why != nullptr ? why : plugin->string()) +
                             "); the roce-sim package installs them"};
  }
  auto entry = reinterpret_cast<SimPluginEntry>(::dlsym(handle, kSimPluginEntry));
  if (entry == nullptr) {
    return Error{ENOEXEC, plugin->string() + ": no " + kSimPluginEntry + " (a mismatched build?)"};
  }
  System system;
  std::array<char, 512> message{};
  if (const int err = entry(dir.c_str(), &system, message.data(), message.size()); err != 0) {
    return Error{err, "--sim " + dir.string() + ": " + message.data()};
  }
  return system;
}

}  // namespace

Result<System> open_system(const SystemOptions& options) {
  if (options.sim_dir) return open_simulated(*options.sim_dir);
  return real_system();
}

}  // namespace roced
