// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to the applier: the port as the applier writes and reads it, one call per write
// request. SystemPortDevice speaks DCB netlink, rtnetlink, ethtool and files through a System;
// the unit tests put an in-memory port behind the same calls.

#include <memory>
#include <string>
#include <vector>

#include "daemon/apply/applier.hpp"
#include "port/status.hpp"
#include "dcb/types.hpp"
#include "rdma/ecn.hpp"

namespace roced::apply {

class PortDevice {
 public:
  virtual ~PortDevice() = default;
  // The status verification re-plans from (the planner's reads; no counters, no GID table).
  virtual PortStatus read() = 0;
  // `before` with only `part` read again: what a step's verification needs. The default reads
  // everything.
  virtual PortStatus read_part(const PortStatus& before, StatusPart part) {
    (void)before;
    (void)part;
    return read();
  }
  // The APP table's DSCP entries now (read between adding and deleting entries).
  virtual Result<std::vector<dcb::AppEntry>> dscp_apps() = 0;

  virtual Result<void> set_dcbx(uint8_t mode) = 0;
  virtual Result<void> add_apps(const std::vector<dcb::AppEntry>& apps) = 0;
  virtual Result<void> delete_apps(const std::vector<dcb::AppEntry>& apps) = 0;
  virtual Result<void> set_ets(const dcb::Ets& ets) = 0;
  virtual Result<void> set_pfc(const dcb::Pfc& pfc) = 0;
  virtual Result<void> set_buffer(const dcb::Buffer& buffer) = 0;
  virtual Result<void> set_mtu(uint32_t mtu) = 0;
  virtual Result<void> set_stall_prevention(uint16_t raw) = 0;
  virtual Result<void> set_ecn_enable(const std::string& point, int priority, bool enabled) = 0;
  virtual Result<void> set_ecn_knob(rdma::EcnFlavour flavour, const std::string& upstream_name,
                                    uint64_t value) = 0;
  virtual Result<void> make_rdma_cm_group() = 0;  // no-op when it exists
  virtual Result<void> set_rdma_cm_mode(const std::string& mode) = 0;
  virtual Result<void> set_rdma_cm_tos(int tos) = 0;
};

// The real thing (or roce-sim): every request of one port over one rtnetlink socket.
std::unique_ptr<PortDevice> system_port_device(System& system, const DiscoveredPort& port);

// apply_port on any device: the unit tests' entry point.
PortResult apply_port_on(PortDevice& device, const plan::PortPlan& port_plan,
                         const ApplyOptions& options);

}  // namespace roced::apply
