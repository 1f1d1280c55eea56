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
#include "rdma/gid.hpp"
#include "port/gid_owners.hpp"

namespace roced::cli {
namespace {

constexpr const char* kNcclUsage =
    "usage: rocectl [--sim DIR] nccl-env [--config FILE] [--pods]\n"
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
    "With --pods, for jobs in pods on macvlan over the ports (each pod's GID index is its own):\n"
    "  no NCCL_IB_GID_INDEX; NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY (AF_INET or "
    "AF_INET6,\n"
    "  from roce.gid_family) and an NCCL_IB_ADDR_RANGE of the pod's own address, which the pod's\n"
    "  shell reads: by these NCCL 2.21 and later picks the pod's own GID.\n"
    "Use: eval \"$(rocectl nccl-env)\".\n"
    "\n"
    "options:\n"
    "  --config FILE  the configuration (default /etc/roced/roced.yaml)\n"
    "  --pods         the variables for jobs in pods, not on the host\n"
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

// Pods on macvlan over the ports, seen by their GID entries: netdevs this namespace lacks. The
// whole table is read (the plan stops at the host's own entry), once per port.
struct PodGids {
  size_t entries = 0;
  size_t ports = 0;
  std::set<std::string> netdevs;
  std::string names() const {
    std::string out;
    for (const auto& name : netdevs) out += (out.empty() ? "" : ", ") + name;
    return out;
  }
};

PodGids find_pod_gids(System& system, const std::vector<const plan::PortPlan*>& ports) {
  PodGids pods;
  auto owners = GidOwners::of(system);
  for (const auto* port : ports) {
    auto table = rdma::read_gid_table(*system.files, port->port.rdma_device, port->port.rdma_port);
    if (!table) continue;
    owners.mark(*table);
    const auto foreign = rdma::foreign_entries(*system.files, *table);
    pods.entries += foreign.count;
    pods.ports += foreign.count > 0 ? 1 : 0;
    pods.netdevs.insert(foreign.netdevs.begin(), foreign.netdevs.end());
  }
  return pods;
}

// A pod sees the whole table, the host's and every other pod's entries included: upstream's
// rdma_query_gid_table (core/cache.c) does not filter by namespace. NCCL 2.21 and later, with
// IB_GID_INDEX at its default -1, keeps the first entry of IB_ROCE_VERSION_NUM whose address is
// of IB_ADDR_FAMILY and inside IB_ADDR_RANGE (src/transport/net_ib ncclIbGetGidIndex): only a
// range of the pod's own address makes that entry the pod's. NVIDIA's ib_core refuses another
// namespace's GID outright (rdma_check_gid_user_access: ENODEV when the QP is connected).
void print_pod_exports(const PodGids& pods, const std::set<std::string>& families) {
  std::cout << "# NCCL_IB_GID_INDEX left unset: each pod's RoCE v2 GID has an index of its own, "
               "which NCCL (2.21 and later) finds by version, address family and range\n"
            << "export NCCL_IB_ROCE_VERSION_NUM=2\n";
  if (families.size() != 1) {
    std::cout << "# NCCL_IB_ADDR_FAMILY and NCCL_IB_ADDR_RANGE left unset: roce.gid_family "
                 "differs between ports\n";
    return;
  }
  const bool ipv6 = *families.begin() == "ipv6";
  std::cout << "export NCCL_IB_ADDR_FAMILY=" << (ipv6 ? "AF_INET6" : "AF_INET") << "\n";
  const std::string netdev = pods.netdevs.size() == 1 ? *pods.netdevs.begin() : "net1";
  std::cout << "# A pod sees every pod's GID entries and the host's; NCCL takes the first in its "
               "range, so the range is the pod's own address, read in the pod"
            << (pods.netdevs.size() == 1 ? "" : " (its netdev on the rail; net1 assumed)") << ":\n"
            << "export NCCL_IB_ADDR_RANGE=\"$(ip -o -" << (ipv6 ? "6" : "4") << " addr show dev "
            << netdev << " scope global | awk '{split($4, a, \"/\"); "
            << "print a[1] \"/" << (ipv6 ? "128" : "32") << "\"; exit}')\"\n";
}

std::string pod_note(const PodGids& pods) {
  if (pods.entries == 0) return {};
  return "# " + std::to_string(pods.entries) + " GID entries on " + std::to_string(pods.ports) +
         " of the ports belong to netdevs in other network namespaces (" + pods.names() +
         "): pods on macvlan.\n# The index above is the host's; for jobs in pods: rocectl "
         "nccl-env --pods\n";
}

}  // namespace

int nccl_env_command(const Context& context, Args cli_args) {
  std::string config_path = "/etc/roced/roced.yaml";
  bool for_pods = false;
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kNcclUsage;
      return kExitOk;
    }
    if (cli_args.flag("--pods")) {
      for_pods = true;
    } else if (cli_args.option("--config", value, error)) {
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
  std::set<std::string> families;
  for (const auto* port : rdma_ports) {
    hca += (hca.empty() ? "=" : ",") + port->port.rdma_device + ":" +
           std::to_string(port->port.rdma_port);
    indexes.insert(port->roce_v2_gid_index);
    tos.insert(port->desired.roce.tos);
    families.insert(port->desired.roce.gid_family);
  }
  std::cout << "export NCCL_IB_HCA=" << hca << "\n";
  const PodGids pods = find_pod_gids(system, rdma_ports);
  if (for_pods) {
    print_pod_exports(pods, families);
  } else if (indexes.size() == 1 && *indexes.begin()) {
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
  if (!for_pods) std::cout << pod_note(pods);
  return kExitOk;
}

}  // namespace roced::cli
