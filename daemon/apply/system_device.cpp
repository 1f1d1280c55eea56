// SPDX-License-Identifier: Apache-2.0
// The port device over a System: DCB netlink (DcbClient), rtnetlink (LinkClient), the ethtool
// tunable, and the files of rdma_cm configfs and the ECN knobs. Every rtnetlink request of the
// port goes over one socket (plan::planning_view).
#include "daemon/apply/port_device.hpp"
#include "daemon/plan/planning_system.hpp"
#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "rdma/rdma_cm.hpp"

namespace roced::apply {

namespace {

class SystemPortDevice final : public PortDevice {
 public:
  SystemPortDevice(System& system, DiscoveredPort port)
      : system_(plan::planning_view(system)), port_(std::move(port)) {}

  PortStatus read() override {
    // What plan_port compares, nothing more: no driver info, counters or GID table.
    StatusOptions options;
    options.driver_info = false;
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
    auto state = dcb::DcbClient(system_).get(port_.netdev);
    if (!state) return state.error();
    std::vector<dcb::AppEntry> out;
    for (const auto& app : state->apps) {
      if (app.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp)) out.push_back(app);
    }
    return out;
  }

  Result<void> set_dcbx(uint8_t mode) override {
    return dcb::DcbClient(system_).set_dcbx(port_.netdev, mode);
  }
  Result<void> add_apps(const std::vector<dcb::AppEntry>& apps) override {
    return dcb::DcbClient(system_).add_apps(port_.netdev, apps);
  }
  Result<void> delete_apps(const std::vector<dcb::AppEntry>& apps) override {
    return dcb::DcbClient(system_).delete_apps(port_.netdev, apps);
  }
  Result<void> set_ets(const dcb::Ets& ets) override {
    return dcb::DcbClient(system_).set_ets(port_.netdev, ets);
  }
  Result<void> set_maxrate(const dcb::Maxrate& maxrate) override {
    return dcb::DcbClient(system_).set_maxrate(port_.netdev, maxrate);
  }
  Result<void> set_pfc(const dcb::Pfc& pfc) override {
    return dcb::DcbClient(system_).set_pfc(port_.netdev, pfc);
  }
  Result<void> set_buffer(const dcb::Buffer& buffer) override {
    return dcb::DcbClient(system_).set_buffer(port_.netdev, buffer);
  }
  Result<void> set_mtu(uint32_t mtu) override {
    return LinkClient(system_).set_mtu(port_.netdev, mtu);
  }
  Result<void> set_stall_prevention(uint16_t raw) override {
    return EthtoolClient(system_).set_pfc_prevention_timeout(port_.netdev, raw);
  }
  Result<void> set_global_pause(const PauseParams& pause) override {
    return EthtoolClient(system_).set_pause(port_.netdev, pause);
  }
  Result<void> set_ecn_enable(const std::string& point, int priority, bool enabled) override {
    return rdma::write_ecn_enable(*system_.files, port_.netdev, point, priority, enabled);
  }
  Result<void> set_ecn_knob(rdma::EcnFlavour flavour, const std::string& upstream_name,
                            uint64_t value) override {
    return rdma::write_ecn_knob(*system_.files, flavour, port_.knob_function(), port_.netdev,
                                upstream_name, value);
  }
  Result<void> make_rdma_cm_group() override {
    return rdma::make_rdma_cm_group(*system_.files, port_.rdma_device, port_.rdma_port);
  }
  Result<void> set_rdma_cm_mode(const std::string& mode) override {
    return rdma::write_rdma_cm_mode(*system_.files, port_.rdma_device, port_.rdma_port, mode);
  }
  Result<void> set_rdma_cm_tos(int tos) override {
    return rdma::write_rdma_cm_tos(*system_.files, port_.rdma_device, port_.rdma_port, tos);
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
