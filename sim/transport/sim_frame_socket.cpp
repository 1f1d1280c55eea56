// SPDX-License-Identifier: Apache-2.0
#include "sim/transport/sim_frame_socket.hpp"

#include <roce_sim.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "os/unique_fd.hpp"
#include "sim/transport/seqpacket.hpp"

namespace roce_sim {
namespace {

using roced::Error;
using roced::Result;
using roced::UniqueFd;

class SimFrameSocket final : public roced::FrameSocket {
 public:
  SimFrameSocket(UniqueFd fd, std::string netdev)
      : fd_(std::move(fd)), netdev_(std::move(netdev)) {}
  Result<std::vector<uint8_t>> receive() override {
    std::vector<uint8_t> frame(ROCE_SIM_MAX_DATAGRAM);
    const ssize_t got = ::recv(fd_.get(), frame.data(), frame.size(), MSG_DONTWAIT);
    if (got < 0) {
      if (errno == EAGAIN || errno == EINTR) return std::vector<uint8_t>{};
      return Error::from_errno(errno, netdev_ + ": roce-sim LLDP socket");
    }
    if (got == 0) return Error{ECONNRESET, netdev_ + ": roce-sim LLDP socket: the node stopped"};
    frame.resize(static_cast<size_t>(got));
    return frame;
  }
  int fd() const override { return fd_.get(); }

 private:
  UniqueFd fd_;
  std::string netdev_;
};

}  // namespace

Result<std::unique_ptr<roced::FrameSocket>> connect_lldp_socket(
    const std::filesystem::path& socket_path, const std::string& netdev) {
  const std::string what = netdev + ": roce-sim " + socket_path.string();
  roce_sim_lldp_bind bind{};
  if (netdev.empty() || netdev.size() >= sizeof bind.ifname) return Error{ENODEV, what};
  std::memcpy(bind.ifname, netdev.c_str(), netdev.size());
  Result<UniqueFd> fd = connect_seqpacket(socket_path);
  if (!fd) return fd.error();
  if (::send(fd->get(), &bind, sizeof bind, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof bind)) {
    return Error::from_errno(errno, what + ": bind");
  }
  return std::unique_ptr<roced::FrameSocket>(new SimFrameSocket(std::move(fd).value(), netdev));
}

}  // namespace roce_sim
