// SPDX-License-Identifier: Apache-2.0
// The golden apply corpus: a seeded set of cases on roce-sim's port model in this process. Each
// case starts a port from the firmware defaults, lets an earlier configuration and a foreign tool
// leave their marks on it, plans a profile against what roced reads, and applies it through a
// ScriptedDevice (some with a write refused at once, after a retry or only on the way back, or
// answered without reaching the port). The plan, the apply text, the write log and what is
// still pending afterwards are compared with test/apply/golden/apply_corpus.txt byte for byte;
// regenerate (after checking the diff is intended) with
//   ROCED_UPDATE_GOLDEN=1 ./apply_corpus_test
// Beyond the file, every case checks the applier's promises on the model: an applied port has
// nothing pending, and a rolled-back one reads as it did before.
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_dice.hpp"
#include "daemon/apply/applier.hpp"
#include "daemon/apply/port_device.hpp"
#include "daemon/plan/plan.hpp"
#include "golden.hpp"
#include "in_process_node.hpp"
#include "port/discovery.hpp"
#include "scripted_device.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/port.hpp"
#include "stepping_time.hpp"
#include "test/support/build_paths.hpp"

namespace roced::apply {
namespace {

using test::Dice;

constexpr int kCases = 200;
constexpr uint32_t kSeed = 20261126;

const std::vector<std::string> kOps = {
    "set_dcbx",           "add_apps",         "delete_apps",    "set_ets",        "set_pfc",
    "set_buffer",         "set_mtu",          "set_stall",      "set_ecn_enable", "set_knob",
    "make_rdma_cm_group", "set_rdma_cm_mode", "set_rdma_cm_tos"};

// One write refused (at once, after a retry, or only on the way back) or answered without
// reaching the port, in half of the cases.
std::string inject(Dice& dice, test::ScriptedDevice& port) {
  const uint32_t fault = dice.pick(10);
  if (fault < 5) return "none";
  const std::string& op = dice.one_of(kOps);
  switch (fault) {
    case 5:
      port.answers[op] = {EIO};
      return op + " EIO";
    case 6:
      port.answers[op] = {EBUSY, 0};
      return op + " EBUSY once";
    case 7:
      port.ignored.insert(op);
      return op + " ignored";
    case 8:
      port.answers[op] = {0, EIO};
      return op + " EIO on the second";
    default:
      port.answers["set_rdma_cm_tos"] = {EIO};
      port.answers[op] = {0, EPERM};
      return "set_rdma_cm_tos EIO, " + op + " EPERM on the second";
  }
}

// What a foreign tool (dcb, ip, ethtool, a script) changed on the port after roced's earlier
// run, through the driver's own operations.
std::string foreign_changes(Dice& dice, roce_sim::Port& port) {
  std::string done;
  if (dice.chance(25)) {
    const uint32_t mtu = dice.one_of<uint32_t>({1500, 4200, 9000});
    port.set_mtu(mtu);
    done += " mtu=" + std::to_string(mtu);
  }
  if (dice.chance(25)) {
    ieee_pfc pfc{};
    pfc.pfc_en = dice.one_of<uint8_t>({0x00, 0x08, 0x18});
    pfc.delay = dice.one_of<uint16_t>({7, 20});
    port.ieee_setpfc(pfc);
    done += " pfc=" + std::to_string(pfc.pfc_en) + "/" + std::to_string(pfc.delay) + "m";
  }
  if (dice.chance(20)) {
    const auto dscp = dice.one_of<uint16_t>({26, 46});
    const auto priority = static_cast<uint8_t>(dice.pick(8));
    port.ieee_setapp(dcb_app{IEEE_8021QAZ_APP_SEL_DSCP, priority, dscp});
    done += " dscp" + std::to_string(dscp) + "=" + std::to_string(priority);
  }
  if (dice.chance(15)) {
    const auto timeout = dice.one_of<uint16_t>({0, 500, 8000});
    port.set_pfc_prevention_tout(timeout);
    done += " stall=" + std::to_string(timeout);
  }
  if (dice.chance(10)) {
    port.setdcbx(0);
    done += " dcbx=firmware";
  }
  if (dice.chance(15)) {
    const auto rate = dice.one_of<uint32_t>({5, 10, 20});
    port.set_cc_param("rp_ai_rate", rate);
    done += " rp_ai_rate=" + std::to_string(rate);
  }
  return done.empty() ? " none" : done;
}

// wanted_profile's buffer for priority 3 (128 KiB) is smaller than the headroom a 400G port
// needs, which mlx5 refuses (ENOMEM, en/port_buffer.c update_xoff_threshold): most profiles get a
// buffer that fits, some keep the one that does not.
config::Profile fitted(Dice& dice, config::Profile profile) {
  if (profile.buffers && dice.chance(80)) profile.buffers->buffer_size[1] = 524288;
  return profile;
}

std::vector<std::string> pending_of(const plan::PortPlan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.changes) out.push_back(plan::setting_name(c.setting, c.key));
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  if (items.empty()) return "nothing";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The default node (lan2..lan5, inbox ConnectX-7) from the fixture, and the OFED node beside it.
class ApplyCorpus : public test::InProcessNode {
 protected:
  // The node's own link training (seconds): the corpus's clock steps through it.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.link_training_ms.reset();
  }
  void SetUp() override {
    test::InProcessNode::SetUp();
    ofed_ = std::make_unique<roce_sim::InProcessNode>(
        roce_sim::load_node_file(std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml"),
        dir_ / "ofed", &time_);
    ofed_system_ = ofed_->system();
  }
  void TearDown() override {
    ofed_system_ = System{};
    ofed_.reset();
    test::InProcessNode::TearDown();
  }

  std::string run_corpus();

  std::unique_ptr<roce_sim::InProcessNode> ofed_;
  System ofed_system_;
};

std::string ApplyCorpus::run_corpus() {
  Dice dice(kSeed);
  std::ostringstream out;
  ApplyOptions options;
  options.max_attempts = 3;
  options.first_backoff = std::chrono::milliseconds(0);
  test::SteppingTime clock(time_);
  options.time = &clock;  // link training passes on the nodes' clock
  for (int i = 0; i < kCases; ++i) {
    // lan2: inbox, 400G; ens1f0np0: NVIDIA's driver, host DCBX and DSCP trust from the
    // firmware; ens2np0: inbox, no stall prevention.
    const uint32_t where = dice.pick(20);
    const std::string netdev = where < 14 ? "lan2" : where < 17 ? "ens1f0np0" : "ens2np0";
    roce_sim::InProcessNode& node = where < 14 ? *node_ : *ofed_;
    System& system = where < 14 ? system_ : ofed_system_;
    node.change([&](roce_sim::Node& n) { n.find(netdev)->reset_to_firmware_defaults(); });
    auto found = describe_netdev(*system.files, netdev);
    if (!found) throw std::runtime_error(found.error().message);
    const DiscoveredPort port = *found;

    std::string earlier = "none";
    if (dice.chance(60)) {
      const config::Profile before = fitted(dice, test::wanted_profile(dice));
      auto device = system_port_device(system, port);
      earlier = outcome_name(
          apply_port_on(*device, plan::replan_port(system, port, before), options).outcome);
    }
    std::string foreign;
    node.change([&](roce_sim::Node& n) { foreign = foreign_changes(dice, *n.find(netdev)); });

    const config::Profile desired = fitted(dice, test::wanted_profile(dice));
    const plan::PortPlan port_plan = plan::replan_port(system, port, desired);
    test::ScriptedDevice device(system_port_device(system, port));
    const std::string fault = inject(dice, device);
    ApplyResult applied;
    applied.ports.push_back(apply_port_on(device, port_plan, options));
    const PortResult& result = applied.ports.front();
    const plan::PortPlan after = plan::replan_port(system, port, desired);

    plan::Plan plan;
    plan.source = "corpus";
    plan.config_path = "roced.yaml";
    plan.ports.push_back(port_plan);
    out << "== case " << i << ": " << netdev << "; earlier " << earlier << "; foreign" << foreign
        << "; fault " << fault << "\n";
    out << "plan text:\n" << plan::format_plan_text(plan);
    out << "apply text:\n" << format_apply_text(applied);
    out << "writes:";
    for (const auto& line : device.log) out << " [" << line << "]";
    out << "\npending after: " << joined(pending_of(after)) << "\n";

    const std::string where_now = "case " + std::to_string(i) + " (" + netdev + ")";
    if (result.outcome == PortResult::Outcome::Applied ||
        result.outcome == PortResult::Outcome::InSync) {
      EXPECT_EQ(pending_of(after), std::vector<std::string>{}) << where_now;
    }
    if (result.outcome == PortResult::Outcome::RolledBack) {
      EXPECT_EQ(pending_of(after), pending_of(port_plan)) << where_now;
    }
  }
  return out.str();
}

TEST_F(ApplyCorpus, MatchesTheGoldenFile) {
  test::expect_golden(std::string(ROCED_GOLDEN_DIR) + "/apply_corpus.txt", run_corpus());
}

}  // namespace
}  // namespace roced::apply
