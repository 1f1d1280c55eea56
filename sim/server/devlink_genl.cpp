// SPDX-License-Identifier: Apache-2.0
// The devlink generic netlink family's health reporter query, as net/core/devlink.c (6.1)
// answers it: devlink_nl_pre_doit finds the instance by bus and device name,
// devlink_nl_cmd_health_reporter_get_doit the reporter by name, devlink_nl_health_reporter_fill
// writes its state and counts; and its notifications (devlink_recover_notify).
#include <linux/devlink.h>
#include <linux/genetlink.h>

#include <cerrno>

#include "sim/server/ethtool_genl.hpp"
#include "sim/server/genl_internal.hpp"

namespace roce_sim::server {

namespace {

// mlx5's fw_fatal recovers (mlx5_fw_fatal_reporter_recover) with a grace period of 20 minutes
// (MLX5_REPORTER_FW_GRACEFUL_PERIOD); its fw reporter has no recover op: no period, no auto
// recovery in the answer.
constexpr uint64_t kFatalGracePeriodMs = 1'200'000;
// enum devlink_health_reporter_state (include/net/devlink.h: the kernel's, not the uapi's).
constexpr uint8_t kReporterHealthy = 0;
constexpr uint8_t kReporterError = 1;

// devlink_nl_health_reporter_fill: the instance's handle, then the reporter's nest.
void put_reporter(NlMessage& message, const Port& port, const std::string& name,
                  const Port::HealthReporter& state) {
  message.put_string(DEVLINK_ATTR_BUS_NAME, "pci");
  message.put_string(DEVLINK_ATTR_DEV_NAME, port.spec().pci_address);
  const size_t nest = message.begin_nest(DEVLINK_ATTR_HEALTH_REPORTER);
  message.put_string(DEVLINK_ATTR_HEALTH_REPORTER_NAME, name);
  message.put_u8(DEVLINK_ATTR_HEALTH_REPORTER_STATE,
                 state.healthy ? kReporterHealthy : kReporterError);
  message.put_u64(DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, state.errors);
  message.put_u64(DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, state.recoveries);
  if (name == "fw_fatal") {
    message.put_u64(DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, kFatalGracePeriodMs);
    message.put_u8(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, 1);
  }
  message.put_u8(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_DUMP, 1);  // both have a dump op
  message.end_nest(nest);
}

}  // namespace

// devlink_recover_notify: DEVLINK_CMD_HEALTH_REPORTER_RECOVER with port id and sequence 0, to
// the "config" group, for each report and each recovery.
std::vector<Outgoing> GenlService::drain_events() {
  std::vector<Outgoing> out;
  for (const Node::ReporterChange& change : node_.take_reporter_changes()) {
    Port* port = node_.find(change.netdev);
    if (port == nullptr) continue;
    const auto reporter = port->health_reporters().find(change.reporter);
    if (reporter == port->health_reporters().end()) continue;
    NlMessage message(kDevlinkFamily, 0, 0, 0);
    genlmsghdr header{};
    header.cmd = DEVLINK_CMD_HEALTH_REPORTER_RECOVER;
    header.version = DEVLINK_GENL_VERSION;
    message.put_header(header);
    put_reporter(message, *port, change.reporter, reporter->second);
    Bytes datagram;
    message.append_to(datagram);
    out.push_back(Outgoing{true, kDevlinkConfigGroup, std::move(datagram), true});
  }
  return out;
}

int GenlService::get_health_reporter(const NlRequest& request, const NlPeer& peer, Bytes& reply) {
  const AttrTable attrs = parse_attrs(genl_attrs(request.payload));
  const auto bus = attrs.find(DEVLINK_ATTR_BUS_NAME);
  const auto device = attrs.find(DEVLINK_ATTR_DEV_NAME);
  if (bus == attrs.end() || device == attrs.end()) return -EINVAL;
  Port* port = nullptr;
  if (attr_string(bus->second) == "pci") {
    for (Port* candidate : node_.ports()) {
      if (candidate->spec().pci_address == attr_string(device->second)) port = candidate;
    }
  }
  if (port == nullptr) return -ENODEV;
  const auto name = attrs.find(DEVLINK_ATTR_HEALTH_REPORTER_NAME);
  if (name == attrs.end()) return -EINVAL;
  const std::string reporter_name = attr_string(name->second);
  request_log_.push_back("devlink health reporter get pci/" + port->spec().pci_address + " " +
                         reporter_name);
  const auto reporter = port->health_reporters().find(reporter_name);
  if (reporter == port->health_reporters().end()) return -EINVAL;
  const Port::HealthReporter& state = reporter->second;

  NlMessage message = genl_reply(kDevlinkFamily, DEVLINK_CMD_HEALTH_REPORTER_GET,
                                 DEVLINK_GENL_VERSION, request, peer);
  put_reporter(message, *port, reporter_name, state);
  message.append_to(reply);
  return 0;
}

}  // namespace roce_sim::server
