// SPDX-License-Identifier: Apache-2.0
#pragma once
// A connection to one of a roce-sim node's sockets (DIR/rtnl.sock, ethtool.sock, lldp.sock,
// rdma.sock): SOCK_SEQPACKET over AF_UNIX, each datagram one message (uapi/roce_sim.h).

#include <filesystem>

#include "os/result.hpp"
#include "os/unique_fd.hpp"

namespace roce_sim {

// An error names the socket: "roce-sim DIR/rtnl.sock: connect: No such file or directory".
roced::Result<roced::UniqueFd> connect_seqpacket(const std::filesystem::path& socket_path);

}  // namespace roce_sim
