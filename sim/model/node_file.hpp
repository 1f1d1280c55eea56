// SPDX-License-Identifier: Apache-2.0
#pragma once
// The node description file: which mlx5 NICs and ports the simulated node has
// (docs/sim-formats.md).

#include <filesystem>
#include <string>
#include <vector>

#include "sim/model/file_error.hpp"
#include "sim/model/port_spec.hpp"

namespace roce_sim {

// Reads and validates a node description; throws FileError naming file, line, column and field.
std::vector<PortSpec> load_node_file(const std::filesystem::path& path);

// The same from text held in memory; file_name only appears in error messages.
std::vector<PortSpec> parse_node_yaml(const std::string& text, const std::string& file_name);

// sim/nodes/default.yaml as it was at build time (embedded; one source of truth): four ConnectX-7
// ports lan2..lan5 on mlx5_0..mlx5_3.
std::vector<PortSpec> default_node();
const std::string& default_node_yaml();

}  // namespace roce_sim
