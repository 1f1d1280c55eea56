// SPDX-License-Identifier: Apache-2.0
// rocectl check's judgement of GetStatus's document, and the link, MTU and PFC that rocectl
// status shows from roced's last check.
#include "cli/health.hpp"

#include <gtest/gtest.h>

#include "cli/daemon_documents.hpp"
#include "daemon/dbus/status_document.hpp"

namespace roced {
namespace {

using Json = nlohmann::ordered_json;
using cli::Health;

reconcile::PortSnapshot port(const std::string& netdev, reconcile::PortCondition condition) {
  reconcile::PortSnapshot snapshot;
  snapshot.port.netdev = netdev;
  snapshot.port.rdma_device = "mlx5_0";
  snapshot.port.rdma_port = 1;
  snapshot.condition = condition;
  snapshot.last_check = reconcile::Clock::from_time_t(1714564800);
  snapshot.last_plan.port = snapshot.port;
  LinkInfo link;
  link.operstate = 6;  // IF_OPER_UP
  link.admin_up = true;
  link.carrier = true;
  link.mtu = 9000;
  snapshot.last_plan.observed.link = Field<LinkInfo>::of(link);
  snapshot.last_plan.observed.speed_mbps = 100000;
  dcb::Pfc pfc;
  pfc.enabled_mask = 1u << 3;
  snapshot.last_plan.observed.pfc = Field<dcb::Pfc>::of(pfc);
  return snapshot;
}

Json status_of(const std::vector<reconcile::PortSnapshot>& ports) {
  return dbus::status_to_json({"1.0", "/etc/roced/roced.yaml", "", "this machine", {}},
                              "status line", ports);
}

TEST(CheckHealth, EveryPortInSyncIsOk) {
  const auto report =
      cli::judge_health(status_of({port("lan2", reconcile::PortCondition::InSync),
                                   port("lan3", reconcile::PortCondition::InSync)}));
  EXPECT_EQ(report.health, Health::Ok);
  EXPECT_EQ(report.status_line,
            "ROCE OK - 2 ports in sync, lossless as configured | ports=2 in_sync=2 unhealthy=0");
}

TEST(CheckHealth, ADriftedPortIsCritical) {
  auto drifted = port("lan3", reconcile::PortCondition::Drifted);
  drifted.last_plan.changes.push_back({plan::Setting::PfcPriorities, "", "", "3", true, ""});
  const auto report =
      cli::judge_health(status_of({port("lan2", reconcile::PortCondition::InSync), drifted}));
  EXPECT_EQ(report.health, Health::Critical);
  EXPECT_EQ(report.status_line.rfind("ROCE CRITICAL - lan3 drifted (pfc.priorities) |", 0), 0u)
      << report.status_line;
}

TEST(CheckHealth, APendingPortIsAWarningAndNoCarrierIsCritical) {
  EXPECT_EQ(cli::judge_health(status_of({port("lan2", reconcile::PortCondition::Applying)})).health,
            Health::Warning);
  auto down = port("lan2", reconcile::PortCondition::InSync);
  down.last_plan.observed.link.value->carrier = false;
  const auto report = cli::judge_health(status_of({down}));
  EXPECT_EQ(report.health, Health::Critical);
  EXPECT_NE(report.status_line.find("lan2 has no carrier"), std::string::npos)
      << report.status_line;
}

TEST(CheckHealth, NoPortIsAWarningAndNoDaemonIsCritical) {
  EXPECT_EQ(cli::judge_health(status_of({})).health, Health::Warning);
  const auto report = cli::health_without_daemon("no roced on the system bus");
  EXPECT_EQ(report.health, Health::Critical);
  EXPECT_EQ(report.status_line.rfind("ROCE CRITICAL - roced is not running", 0), 0u);
  EXPECT_THROW(cli::judge_health(Json::object()), nlohmann::json::exception);
}

// While roced runs, status still shows what an operator looks for first: link, speed, MTU, PFC.
TEST(DaemonStatusText, ShowsLinkSpeedMtuAndPfc) {
  const std::string text =
      cli::format_daemon_status_text(status_of({port("lan2", reconcile::PortCondition::InSync)}));
  EXPECT_NE(text.find("  link     up 100 Gb/s, mtu 9000, pfc 3\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace roced
