// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's FrameSocket on a roce-sim node: a connection to DIR/lldp.sock bound to one netdev, on
// which the server sends the simulated switch's LLDP frames (uapi/roce_sim.h).

#include <filesystem>
#include <memory>
#include <string>

#include "os/system.hpp"

namespace roce_sim {

roced::Result<std::unique_ptr<roced::FrameSocket>> connect_lldp_socket(
    const std::filesystem::path& socket_path, const std::string& netdev);

}  // namespace roce_sim
