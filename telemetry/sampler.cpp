#include "telemetry/sampler.hpp"

#include "netlink/ethtool.hpp"
#include "netlink/link.hpp"
#include "rdma/hw_counters.hpp"

namespace roced::telemetry {

PortSample sample_port(System& system, const DiscoveredPort& port) {
  PortSample sample;
  sample.netdev = port.netdev;
  sample.rdma_device = port.rdma_device;
  sample.rdma_port = port.rdma_port;
  sample.at = std::chrono::steady_clock::now();

  // The string set is fetched on every call: mlx5 adds and drops the per-priority pause names
  // when PFC changes, so cached names would mislabel values.
  if (auto stats = EthtoolClient(system).stats(port.netdev); stats.ok()) {
    // A duplicated name (drivers do emit some) keeps its first value, as `ethtool -S` shows it
    // first.
    for (const auto& counter : *stats) sample.ethtool.emplace(counter.name, counter.value);
  } else {
    sample.errors.push_back("ethtool stats: " + stats.error().message);
  }

  // No RDMA device is not an error: the port simply has no hw_counters.
  if (!port.rdma_device.empty()) {
    auto counters = rdma::read_hw_counters(*system.files, port.rdma_device, port.rdma_port);
    if (counters.ok()) {
      sample.rdma = std::move(*counters);
    } else {
      sample.errors.push_back("hw_counters " + port.rdma_device + "/" +
                              std::to_string(port.rdma_port) + ": " + counters.error().message);
    }
  }

  if (auto link = LinkClient(system).get(port.netdev); link.ok()) {
    sample.link_known = true;
    sample.link_up = link->admin_up && link->carrier;
    sample.mtu = link->mtu;
  } else {
    sample.errors.push_back("link: " + link.error().message);
  }
  return sample;
}

}  // namespace roced::telemetry
