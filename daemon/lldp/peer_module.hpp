// SPDX-License-Identifier: Apache-2.0
#pragma once
// The peer watch as one of the service's modules: it listens before the ports are first checked
// (the switch sends at once when a link comes up, and the first apply flaps each port's link),
// on each managed port with a cable of its own, compares again whenever the reconciler reports a
// port, and offers the switch's differences as findings and its peers as metric families. It
// takes no section: its ports follow the reconciler's.

#include <optional>
#include <string>

#include "daemon/lldp/peer_watch.hpp"
#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::lldp {

class PeerModule final : public module::Module {
 public:
  PeerModule(System& system, reconcile::Reconciler& reconciler);

  PeerWatch& watch() { return watch_; }
  // "leaf1 Ethernet1/1" for the switch port at `netdev`'s other end; empty when none is heard.
  std::string switch_port(const std::string& netdev) const;

  std::string_view name() const override { return "peer-watch"; }
  module::Stage stage() const override { return module::Stage::BeforePorts; }
  std::vector<module::Section> sections() const override { return {}; }
  void start() override { watch_.start(); }
  void stop() override { watch_.stop(); }
  void reconfigure(const config::Config&, const config::Config&) override {}
  std::vector<finding::Finding> findings() const override;
  void collect(telemetry::ExpositionWriter& out) override;

 private:
  PeerWatch watch_;
};

}  // namespace roced::lldp
