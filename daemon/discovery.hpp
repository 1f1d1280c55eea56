#pragma once
// Discovery: which netdevs are mlx5 ports, and which RDMA device and port each one is.
// Everything comes from sysfs through the FileTree, so the same code walks the real /sys and a
// simulated node's DIR/sys.

#include <string>
#include <vector>

#include "netlink/system.hpp"

namespace roced {

struct DiscoveredPort {
  std::string netdev;
  std::string driver;       // basename of /sys/class/net/<if>/device/driver; empty if virtual
  std::string pci;          // basename of /sys/class/net/<if>/device; empty if virtual
  std::string rdma_device;  // "mlx5_0"; empty when the port has no RDMA device
  int rdma_port = 0;        // 1-based; 0 without an RDMA device
  bool is_mlx5() const { return driver == "mlx5_core"; }
};

struct Inventory {
  // The ports to report: every mlx5 port, or exactly the requested ones (any driver) in the
  // order asked for.
  std::vector<DiscoveredPort> ports;
  // RDMA-capable ports of another driver, kept for later (not managed).
  std::vector<DiscoveredPort> other_rdma;
  std::vector<std::string> missing;  // requested names that are no netdev here
};

// `requested` empty: all mlx5 ports. Fails only when /sys/class/net cannot be listed.
Result<Inventory> discover_ports(const FileTree& files, const std::vector<std::string>& requested);

// One netdev, whatever its driver; ENODEV when /sys/class/net/<netdev> does not exist.
Result<DiscoveredPort> describe_netdev(const FileTree& files, const std::string& netdev);

}  // namespace roced
