// SPDX-License-Identifier: Apache-2.0
#include "telemetry/sampler.hpp"

#include <optional>

#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "port/gid_owners.hpp"
#include "port/status.hpp"
#include "rdma/gid.hpp"
#include "rdma/hw_counters.hpp"

namespace roced::telemetry {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Times `read` and records it as source `name` of `sample`; `read` returns false on failure.
template <typename Read>
void timed(PortSample& sample, const std::string& name, Read read) {
  const auto start = SteadyClock::now();
  const bool ok = read();
  sample.sources[name] = SourceOutcome{ok, SteadyClock::now() - start};
}

bool is_rocev2_of_family(const rdma::GidEntry& entry, const std::string& netdev,
                         const std::string& family) {
  if (entry.type != "RoCE v2" || entry.ndev != netdev) return false;
  const bool ipv4 = rdma::ipv4_of_mapped_gid(entry.gid).has_value();
  return family == "ipv6" ? !ipv4 && entry.gid.rfind("fe80", 0) != 0 : ipv4;
}

// Names and values of one read (they cannot disagree), all or those `kept` by index. A duplicated
// name (drivers do emit some) keeps its first value, as `ethtool -S` shows it first.
void copy_stats(const sampling::StatsReading& reading, const std::vector<size_t>* kept,
                std::map<std::string, uint64_t>& out) {
  const auto& names = *reading.names;
  const auto& values = reading.values;
  if (kept != nullptr) {
    for (size_t i : *kept) {
      if (i < values.size() && i < names.size()) out.emplace(names[i], values[i]);
    }
    return;
  }
  for (size_t i = 0; i < values.size() && i < names.size(); ++i) out.emplace(names[i], values[i]);
}

}  // namespace

PortSample sample_port(System& system, const DiscoveredPort& port, const SampleOptions& options) {
  PortSample sample;
  sample.netdev = port.netdev;
  sample.rdma_device = port.rdma_device;
  sample.rdma_port = port.rdma_port;
  sample.driver = port.driver;
  sample.pci = port.pci;
  sample.gid_family = options.gid_family;
  sample.at = SteadyClock::now();
  EthtoolClient ethtool(system);

  // A bond has no ethtool statistics (bond_ethtool_ops): its slaves' counters are theirs.
  if (port.role != PortRole::Bond) {
    timed(sample, "ethtool", [&] {
      std::optional<sampling::StatsReading> own;
      const sampling::StatsReading* reading = options.stats;
      if (reading == nullptr) {
        // The string set is read with the values: mlx5 adds and drops the per-priority pause
        // names when PFC changes, so names kept from before could mislabel values.
        auto read = sampling::PortStats(system, port.netdev, real_time()).read();
        if (!read) {
          sample.errors.push_back("ethtool stats: " + read.error().message);
          return false;
        }
        own = std::move(*read);
        reading = &*own;
      }
      copy_stats(*reading, options.stats_kept, sample.ethtool);
      if (options.firmware) {
        if (auto info = ethtool.driver_info(port.netdev)) {
          sample.firmware = info->firmware;
          const auto tree = detect_driver(system, port, Field<DriverInfo>::of(*info));
          sample.driver_tree = std::string(driver::flavour_row(tree.value->flavour).name);
          sample.driver_tree_version = tree.value->version;
        }
      }
      return true;
    });
  }

  // No RDMA device is not an error: the port simply has no hw_counters and no GID table.
  if (!port.rdma_device.empty()) {
    // Read on every scrape, not from the watchdog (which does not read them). The kernel keeps
    // the port's counters for RDMA_HW_STATS_DEFAULT_LIFESPAN (10 ms; drivers/infiniband/core/
    // sysfs.c update_hw_stats), so a scrape's reads of every file cost one refresh: on mlx5
    // QUERY_Q_COUNTER, QUERY_CONG_STATISTICS and a PPCNT (hw/mlx5/counters.c do_get_hw_stats),
    // three firmware commands against a statistics read's thirty. RDMA netlink costs the same
    // refresh in one request instead of a file each (NodeSampler reads it for every port).
    if (options.read_rdma && options.rdma_counters) {
      const bool ok = options.rdma_counters->ok();
      if (ok) {
        sample.rdma = **options.rdma_counters;
        if (options.keep_hw_counter) {
          std::erase_if(sample.rdma,
                        [&](const auto& entry) { return !options.keep_hw_counter(entry.first); });
        }
      } else {
        sample.errors.push_back(options.rdma_counters->error().message);
      }
      sample.sources["rdma"] = SourceOutcome{ok, options.rdma_took};
    } else if (options.read_rdma) {
      timed(sample, "rdma", [&] {
        auto counters = [&]() -> Result<std::map<std::string, uint64_t>> {
          if (options.hw_counter_names) {
            return rdma::read_hw_counters(*system.files, port.rdma_device, port.rdma_port,
                                          *options.hw_counter_names);
          }
          auto names = rdma::list_hw_counters(*system.files, port.rdma_device, port.rdma_port);
          if (!names) return names.error();
          if (options.keep_hw_counter) {
            std::erase_if(*names,
                          [&](const std::string& name) { return !options.keep_hw_counter(name); });
          }
          return rdma::read_hw_counters(*system.files, port.rdma_device, port.rdma_port, *names);
        }();
        if (!counters) {
          sample.errors.push_back("hw_counters " + port.rdma_device + "/" +
                                  std::to_string(port.rdma_port) + ": " + counters.error().message);
          return false;
        }
        sample.rdma = std::move(*counters);
        return true;
      });
    }
    if (options.gid) {
      timed(sample, "gid", [&] {
        auto owners = GidOwners::of(system);
        auto table = rdma::read_gid_table_until(
            *system.files, port.rdma_device, port.rdma_port, [&](const rdma::GidEntry& entry) {
              return is_rocev2_of_family(entry, port.netdev, options.gid_family) &&
                     !owners.elsewhere(entry);
            });
        if (!table) {
          sample.errors.push_back("GID table: " + table.error().message);
          return false;
        }
        owners.mark(*table);
        const auto entry = options.gid_family == "ipv6"
                               ? rdma::roce_v2_ipv6_entry(*table, port.netdev)
                               : rdma::roce_v2_ipv4_entry(*table, port.netdev);
        if (entry) sample.rocev2_gid_index = entry->index;
        return true;
      });
    }
  }

  if (options.read_link) {
    timed(sample, "link", [&] {
      auto link =
          options.link ? Result<LinkInfo>(*options.link) : LinkClient(system).get(port.netdev);
      if (!link) {
        sample.errors.push_back("link: " + link.error().message);
        return false;
      }
      sample.link_known = true;
      sample.link_up = link->admin_up && link->carrier;
      sample.mtu = link->mtu;
      sample.speed_mbps = link_speed(system, port.netdev);
      return true;
    });
  }
  return sample;
}

}  // namespace roced::telemetry
