// SPDX-License-Identifier: Apache-2.0
// The health module on roce-sim's node in this process: each managed uplink's PCIe link read from
// the node's sysfs, a retrain below the NIC's capability found (and cleared by a retrain back), an
// unreadable attribute said as such, and the metric families a scrape serves.
#include "daemon/health/health_module.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "in_process_node.hpp"
#include "sim/model/scenario.hpp"
#include "telemetry/exposition.hpp"

namespace roced::health {
namespace {

const std::vector<PciPort> kUplinks = {{"lan2", "0000:17:00.0"}, {"lan3", "0000:3d:00.0"}};

class Health : public test::InProcessNode {
 protected:
  void SetUp() override {
    InProcessNode::SetUp();
    module_ = std::make_unique<HealthModule>(
        system_, [] { return kUplinks; }, time_);
  }
  void TearDown() override {
    module_.reset();
    InProcessNode::TearDown();
  }
  void play(const std::string& events) {
    node_->play(roce_sim::parse_scenario_yaml("name: t\nevents:\n" + events, "t.yaml"));
  }
  std::string scrape() {
    telemetry::ExpositionWriter out;
    module_->collect(out);
    return out.take();
  }
  std::vector<std::string> finding_ports() {
    std::vector<std::string> ports;
    for (const auto& found : module_->findings()) ports.push_back(found.subject);
    return ports;
  }

  std::unique_ptr<HealthModule> module_;
};

TEST_F(Health, AFreshNodeIsAsBuilt) {
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const std::string text = scrape();
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan2\",pci=\"0000:17:00.0\"} 16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_pcie_link_speed_transfers_per_second{netdev=\"lan3\",pci=\"0000:3d:"
                      "00.0\"} 32000000000"),
            std::string::npos)
      << text;
}

TEST_F(Health, ALinkRetrainedAtEightLanesIsFoundAndClearsWhenItTrainsBack) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan3, width: 8}\n");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan3"});
  const auto found = module_->findings().front();
  EXPECT_EQ(found.id, "pcie_link_degraded");
  EXPECT_EQ(found.found, "32.0 GT/s x8");
  EXPECT_EQ(found.wanted, "32.0 GT/s x16");
  const std::string text = scrape();
  EXPECT_NE(text.find("roced_finding{netdev=\"lan3\",id=\"pcie_link_degraded\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan3\",pci=\"0000:3d:00.0\"} 8"),
            std::string::npos)
      << text;

  play("  - {at: 0s, kind: pcie_retrain, port: lan3}\n");
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
}

// Training never settles above what the endpoint takes: the node refuses such a retrain.
TEST_F(Health, ARetrainAboveTheNicIsSkippedByTheNode) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan2, speed: 64.0}\n");
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const auto log = node_->scenario_log();
  EXPECT_TRUE(std::any_of(log.begin(), log.end(), [](const std::string& line) {
    return line.find("is more than the NIC takes") != std::string::npos;
  })) << testing::PrintToString(log);
}

TEST_F(Health, ALowerGenerationIsFound) {
  play("  - {at: 0s, kind: pcie_retrain, port: lan2, speed: 16.0}\n");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  EXPECT_EQ(module_->findings().front().found, "16.0 GT/s x16");
}

// A missing attribute (a function without a PCIe capability: pci_dev_attrs_are_visible) or one
// the kernel cannot read says so, and the scrape serves what was read, no guess.
TEST_F(Health, AMissingAttributeCannotTellAndServesNoGuess) {
  std::filesystem::remove(node_->dir() / "sys/devices/pci0000:00/0000:17:00.0/current_link_width");
  module_->check();
  ASSERT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  const auto found = module_->findings().front();
  EXPECT_EQ(found.verdict, finding::Verdict::CannotTell);
  EXPECT_NE(found.text.find("current_link_width"), std::string::npos) << found.text;
  const std::string text = scrape();
  EXPECT_EQ(text.find("roce_pcie_link_width{netdev=\"lan2\""), std::string::npos) << text;
  EXPECT_NE(text.find("roce_pcie_link_max_width{netdev=\"lan2\""), std::string::npos) << text;
}

// A function with none of the four is not PCIe: nothing to judge, nothing served.
TEST_F(Health, AFunctionWithoutAPcieLinkHasNoFinding) {
  for (const char* name :
       {"current_link_speed", "current_link_width", "max_link_speed", "max_link_width"}) {
    std::filesystem::remove(node_->dir() / "sys/devices/pci0000:00/0000:17:00.0" / name);
  }
  module_->check();
  EXPECT_TRUE(module_->findings().empty());
  const std::string text = scrape();
  EXPECT_EQ(text.find("{netdev=\"lan2\""), std::string::npos) << text;
  EXPECT_NE(text.find("roce_pcie_link_width{netdev=\"lan3\""), std::string::npos) << text;
}

// Every kInterval on the injected clock, once started: a retrain after the first reading is
// found by the next one, not before.
TEST_F(Health, TheTaskReadsAgainEveryInterval) {
  module_->start();
  ASSERT_TRUE(time_.until_waiting(1));  // the first reading made, the task waiting on the clock
  play("  - {at: 1s, kind: pcie_retrain, port: lan2, width: 4}\n");
  time_.advance(HealthModule::kInterval - std::chrono::seconds(1));
  EXPECT_TRUE(module_->findings().empty());  // retrained, not read again yet
  ASSERT_TRUE(time_.advance_until([&] { return !module_->findings().empty(); },
                                  std::chrono::milliseconds(100)));
  EXPECT_EQ(finding_ports(), std::vector<std::string>{"lan2"});
  module_->stop();
}

}  // namespace
}  // namespace roced::health
