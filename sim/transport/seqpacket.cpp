// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/seqpacket.hpp"

#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace roce_sim {

roced::Result<roced::UniqueFd> connect_seqpacket(const std::filesystem::path& socket_path) {
  const std::string what = "roce-sim " + socket_path.string();
  roced::UniqueFd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return roced::Error::from_errno(errno, what + ": socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = socket_path.string();
  if (path.size() >= sizeof(addr.sun_path)) {
    return roced::Error{ENAMETOOLONG, what + ": path too long"};
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) < 0) {
    return roced::Error::from_errno(errno, what + ": connect");
  }
  return fd;
}

}  // namespace roce_sim
