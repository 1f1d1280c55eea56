// SPDX-License-Identifier: Apache-2.0
// rocectl nccl-env: the NCCL variables that point jobs at the ports roced manages, as shell
// `export` lines (eval "$(rocectl nccl-env)").
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/load_config.hpp"
#include "cli/open_node.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"

namespace roced::cli {
namespace {

constexpr const char* kNcclUsage =
    "usage: rocectl [--sim DIR] nccl-env [--config FILE]\n"
    "\n"
    "Prints the NCCL variables for the ports the configuration selects, as shell exports:\n"
    "  NCCL_IB_HCA        the ports' RDMA devices and ports, \"=mlx5_0:1,mlx5_1:1,...\"; the "
    "leading\n"
    "                     '=' makes NCCL match names exactly (without it mlx5_1 also matches "
    "mlx5_10)\n"
    "  NCCL_IB_GID_INDEX  the RoCE v2 GID index of the configured family (roce.gid_family), "
    "only\n"
    "                     when it is the same on every port; otherwise a comment says why it "
    "is left\n"
    "                     out and NCCL picks each port's RoCE v2 GID itself\n"
    "  NCCL_IB_TC         the configured RoCE ToS byte (roce.tos), e.g. 106 = DSCP 26 + ECT(0)\n"
    "Use: eval \"$(rocectl nccl-env)\".\n"
    "\n"
    "options:\n"
    "  --config FILE  the configuration (default /etc/roced/roced.yaml)\n"
    "  --sim DIR      read the simulated node in DIR instead of this machine\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 ok, 1 error (invalid configuration, no selected port with an RDMA "
    "device).\n";

// "lan2 3, lan3 5, lan4 none"
std::string per_port_indexes(const std::vector<const plan::PortPlan*>& ports) {
  std::string out;
  for (const auto* port : ports) {
    if (!out.empty()) out += ", ";
    out += port->port.netdev + " " +
           (port->roce_v2_gid_index ? std::to_string(*port->roce_v2_gid_index) : "none");
  }
  return out;
}

}  // namespace

int nccl_env_command(const Context& context, Args cli_args) {
  std::string config_path = "/etc/roced/roced.yaml";
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kNcclUsage;
      return kExitOk;
    }
    if (cli_args.option("--config", value, error)) {
      if (!error.empty() || value.empty()) return usage_error("--config needs a file", kNcclUsage);
      config_path = value;
    } else {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for nccl-env", kNcclUsage);
    }
  }
  const auto config = load_config(config_path);
  if (!config) return kExitError;
  std::optional<System> node = open_node(context);
  if (!node) return kExitError;
  System& system = *node;
  const plan::Plan plan = plan::make_plan(system, *config);
  if (!plan.error.empty()) {
    std::cerr << "rocectl: " << plan.error << "\n";
    return kExitError;
  }

  std::vector<const plan::PortPlan*> rdma_ports;
  for (const auto& port : plan.ports) {
    if (port.port.rdma_device.empty()) {
      std::cout << "# " << port.port.netdev << " has no RDMA device: not in NCCL_IB_HCA\n";
    } else {
      rdma_ports.push_back(&port);
    }
  }
  if (rdma_ports.empty()) {
    std::cerr << "rocectl: " << config_path << " selects no port with an RDMA device on "
              << system.description << "\n";
    return kExitError;
  }

  std::string hca;
  std::set<std::optional<int>> indexes;
  std::set<int> tos;
  for (const auto* port : rdma_ports) {
    hca += (hca.empty() ? "=" : ",") + port->port.rdma_device + ":" +
           std::to_string(port->port.rdma_port);
    indexes.insert(port->roce_v2_gid_index);
    tos.insert(port->desired.roce.tos);
  }
  std::cout << "export NCCL_IB_HCA=" << hca << "\n";
  if (indexes.size() == 1 && *indexes.begin()) {
    std::cout << "export NCCL_IB_GID_INDEX=" << **indexes.begin() << "\n";
  } else {
    const bool missing = indexes.count(std::nullopt) > 0;
    std::cout << "# NCCL_IB_GID_INDEX left unset: "
              << (missing ? "a port has no RoCE v2 GID of the configured family"
                          : "the RoCE v2 GID index differs between ports")
              << " (" << per_port_indexes(rdma_ports) << ")\n";
  }
  if (tos.size() == 1) {
    std::cout << "export NCCL_IB_TC=" << *tos.begin() << "\n";
  } else {
    std::cout << "# NCCL_IB_TC left unset: the configured roce.tos differs between ports\n";
  }
  return kExitOk;
}

}  // namespace roced::cli
