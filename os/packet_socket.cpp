// SPDX-License-Identifier: Apache-2.0
#include "os/packet_socket.hpp"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "os/unique_fd.hpp"

namespace roced {
namespace {

constexpr uint16_t kLldpEthertype = 0x88cc;  // ETH_P_LLDP
constexpr uint8_t kNearestBridge[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};
// 802.1AB frames are small; a jumbo frame's worth leaves room and MSG_TRUNC tells the rest.
constexpr size_t kFrameRoom = 9216;

class KernelFrameSocket final : public FrameSocket {
 public:
  KernelFrameSocket(UniqueFd fd, std::string netdev)
      : fd_(std::move(fd)), netdev_(std::move(netdev)) {}
  Result<std::vector<uint8_t>> receive() override {
    std::vector<uint8_t> frame(kFrameRoom);
    const ssize_t got = ::recv(fd_.get(), frame.data(), frame.size(), MSG_DONTWAIT | MSG_TRUNC);
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return std::vector<uint8_t>{};
      return Error::from_errno(errno, netdev_ + ": LLDP socket");
    }
    frame.resize(std::min(static_cast<size_t>(got), frame.size()));
    return frame;
  }
  int fd() const override { return fd_.get(); }

 private:
  UniqueFd fd_;
  std::string netdev_;
};

// ldh [12]; jeq #0x88cc; accept the whole frame, else drop. Attached before bind so that no
// frame of another type is ever queued.
Result<void> attach_filter(int fd, const std::string& what) {
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kLldpEthertype, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0x40000),
      BPF_STMT(BPF_RET | BPF_K, 0),
  };
  sock_fprog program{static_cast<unsigned short>(std::size(code)), code};
  if (::setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0) {
    return Error::from_errno(errno, what + ": attach the LLDP filter");
  }
  return ok();
}

}  // namespace

Result<std::unique_ptr<FrameSocket>> open_lldp_packet_socket(const std::string& netdev) {
  const std::string what = netdev + ": LLDP socket";
  const unsigned index = ::if_nametoindex(netdev.c_str());
  if (index == 0) return Error::from_errno(errno, what);
  // Protocol 0 receives nothing until bind() names the ethertype and the netdev.
  UniqueFd fd(::socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Error::from_errno(errno, what);
  if (auto filtered = attach_filter(fd.get(), netdev); !filtered) return filtered.error();
  // Frames this host sends (lldpd's, if it runs) are not the switch's (Linux 4.20 on).
  const int one = 1;
  (void)::setsockopt(fd.get(), SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  sockaddr_ll address{};
  address.sll_family = AF_PACKET;
  address.sll_protocol = htons(kLldpEthertype);
  address.sll_ifindex = static_cast<int>(index);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return Error::from_errno(errno, what + ": bind");
  }
  packet_mreq membership{};
  membership.mr_ifindex = static_cast<int>(index);
  membership.mr_type = PACKET_MR_MULTICAST;
  membership.mr_alen = sizeof kNearestBridge;
  std::memcpy(membership.mr_address, kNearestBridge, sizeof kNearestBridge);
  if (::setsockopt(fd.get(), SOL_PACKET, PACKET_ADD_MEMBERSHIP, &membership, sizeof membership) !=
      0) {
    return Error::from_errno(errno, what + ": join 01:80:c2:00:00:0e");
  }
  return std::unique_ptr<FrameSocket>(new KernelFrameSocket(std::move(fd), netdev));
}

}  // namespace roced
