// SPDX-License-Identifier: Apache-2.0
// The port device over a System: the status reads, and each write through its own description
// (write/write.hpp: DCB netlink, rtnetlink, ethtool, the files of rdma_cm configfs and the ECN
// knobs). Every rtnetlink request of the port goes over one socket (plan::planning_view).
#include "daemon/apply/port_device.hpp"
#include "daemon/plan/planning_system.hpp"
#include "write/write.hpp"

namespace roced::apply {

namespace {

class SystemPortDevice final : public PortDevice {
 public:
  SystemPortDevice(System& system, DiscoveredPort port)
      : system_(plan::planning_view(system)), port_(std::move(port)) {}

  PortStatus read() override {
    // What plan_port compares, nothing more: no counters or GID table.
    StatusOptions options;
    options.hw_counters = false;
    options.gid_table = false;
    return read_port_status(system_, port_, options);
  }

  PortStatus read_part(const PortStatus& before, StatusPart part) override {
    PortStatus status = before;
    refresh_port_status(system_, port_, part, status);
    return status;
  }

  Result<std::vector<dcb::AppEntry>> dscp_apps() override {
    write::Target target{system_, port_};
    return write::read_dscp_apps(target);
  }

  // Each write's own kernel call (write/write.cpp).
  Result<void> write(const write::Write& request) override {
    write::Target target{system_, port_};
    return write::perform(request, target);
  }

 private:
  System system_;
  DiscoveredPort port_;
};

}  // namespace

std::unique_ptr<PortDevice> system_port_device(System& system, const DiscoveredPort& port) {
  return std::make_unique<SystemPortDevice>(system, port);
}

}  // namespace roced::apply
