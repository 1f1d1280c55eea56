// SPDX-License-Identifier: Apache-2.0
#include "daemon/lldp/peer_module.hpp"

#include "daemon/lldp/peer_metrics.hpp"
#include "daemon/log/log.hpp"

namespace roced::lldp {

namespace {

// Each managed port with a cable of its own: a bond's LLDP arrives on its slaves (each a port
// here), and VFs, representors, sub-functions and upper devices share their port's.
std::vector<std::string> cabled_ports(const reconcile::Reconciler& reconciler) {
  std::vector<std::string> netdevs;
  for (const auto& snapshot : reconciler.snapshot()) {
    if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
    if (snapshot.port.role != PortRole::Uplink) continue;
    netdevs.push_back(snapshot.port.netdev);
  }
  return netdevs;
}

}  // namespace

PeerModule::PeerModule(System& system, reconcile::Reconciler& reconciler)
    : watch_(system, [&reconciler] { return cabled_ports(reconciler); }) {
  watch_.on_notice([](const PeerNotice& notice) {
    log::port(notice.mismatch ? spdlog::level::warn : spdlog::level::info, notice.netdev, "lldp",
              "{}", notice.text);
  });
  // A port just set or changed: compare it with its switch as it is now. The reconciler's
  // threads end (stop) before this module stops, as the modules stop in reverse order.
  reconciler.on_event([this](const reconcile::PortEvent& event) {
    if (event.kind != reconcile::PortEvent::Kind::Vanished) watch_.recheck(event.netdev);
  });
}

std::string PeerModule::switch_port(const std::string& netdev) const {
  const auto peer = watch_.peer(netdev);
  return peer && peer->neighbour ? peer->switch_port() : std::string();
}

std::vector<finding::Finding> PeerModule::findings() const {
  std::vector<finding::Finding> all;
  for (const auto& peer : watch_.snapshot()) {
    all.insert(all.end(), peer.report.findings.begin(), peer.report.findings.end());
  }
  return all;
}

void PeerModule::collect(telemetry::ExpositionWriter& out) {
  add_peer_families(out, watch_.snapshot());
}

}  // namespace roced::lldp
