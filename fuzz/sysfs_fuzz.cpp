// SPDX-License-Identifier: Apache-2.0
// The sysfs/configfs/debugfs readers, over a file tree described by the input
// (fuzz/support/memory_file_tree.hpp): port discovery (class/net, device and driver links,
// gid_attrs/ndevs), RDMA hw_counters and counters, the GID table, ECN/DCQCN in both driver
// flavours and the rdma_cm defaults, as the status model and the telemetry sampler read them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/support/check.hpp"
#include "fuzz/support/memory_file_tree.hpp"
#include "port/discovery.hpp"
#include "rdma/ecn.hpp"
#include "rdma/ecn_knobs.hpp"
#include "rdma/gid.hpp"
#include "rdma/hw_counters.hpp"
#include "rdma/rdma_cm.hpp"

using roced::fuzz::require;
using roced::fuzz::require_explained;
namespace rdma = roced::rdma;

namespace {

void read_rdma_port(const roced::FileTree& files, const std::string& device, int port,
                    const std::string& netdev) {
  auto counters = rdma::read_hw_counters(files, device, port);
  require_explained(counters);
  if (counters) {
    std::vector<std::string> names;
    for (const auto& [name, value] : *counters) names.push_back(name);
    auto again = rdma::read_hw_counters(files, device, port, names);
    require(again.ok() && again->size() == counters->size(), "a listing read again reads alike");
  }
  require_explained(rdma::read_decimal_files(files, std::filesystem::path("/sys/class/infiniband") /
                                                        device / "ports" / std::to_string(port) /
                                                        "counters"));
  auto table = rdma::read_gid_table(files, device, port);
  require_explained(table);
  if (table) {
    for (const auto& entry : *table) {
      (void)rdma::compact_gid(entry.gid);
      (void)rdma::ipv4_of_mapped_gid(entry.gid);
    }
    (void)rdma::roce_v2_ipv4_entry(*table, netdev);
    (void)rdma::roce_v2_ipv6_entry(*table, netdev);
    const auto foreign = rdma::foreign_entries(files, *table);
    require(foreign.count <= table->size() && foreign.netdevs.size() <= foreign.count,
            "foreign entries are entries");
    const auto slots = rdma::gid_table_slots(files, device, port);
    require(!slots || *slots >= table->size(), "a table holds its entries");
  }
  auto cm = rdma::read_rdma_cm(files, device, port);
  require_explained(cm);
  if (cm) require(cm->effective_tos() >= 0 && cm->effective_tos() <= 255, "a ToS is a byte");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const roced::fuzz::MemoryFileTree files(
      std::string_view(reinterpret_cast<const char*>(data), size));

  auto inventory = roced::discover_ports(files, {});
  require_explained(inventory);
  if (inventory) {
    for (const auto* group : {&inventory->ports, &inventory->other_rdma}) {
      for (const auto& port : *group) {
        require_explained(roced::describe_netdev(files, port.netdev));
        auto ecn = rdma::read_ecn(files, port.pci, port.netdev);
        require_explained(ecn);
        if (ecn) {
          (void)rdma::knobs_by_upstream_name(*ecn);
          (void)ecn->cnp_dscp();
          (void)ecn->cnp_priority();
        }
        if (!port.rdma_device.empty()) {
          read_rdma_port(files, port.rdma_device, port.rdma_port, port.netdev);
        }
      }
    }
  }
  // Every RDMA device and port, discovered or not (captures of other machines' sysfs).
  if (auto devices = files.list("/sys/class/infiniband")) {
    for (const auto& device : *devices) {
      auto ports = files.list(std::filesystem::path("/sys/class/infiniband") / device / "ports");
      if (!ports) continue;
      for (const auto& name : *ports) {
        if (name.size() == 1 && name[0] >= '1' && name[0] <= '9') {
          read_rdma_port(files, device, name[0] - '0', "");
        }
      }
    }
  }
  return 0;
}
