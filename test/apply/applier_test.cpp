// SPDX-License-Identifier: Apache-2.0
// The applier on roce-sim's port model in this process: nothing written when in sync or
// unreadable, Setting order with one request per feature (PFC mask and cable length in one),
// transient errors retried, and a failed port put back in reverse order, each step verified by
// reading back. Faults come from a ScriptedDevice in front of the real port device; what a
// request does to the port is the model's (sim/model/port.cpp), as on the daemon's path.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>

#include "in_process_node.hpp"
#include "port/discovery.hpp"
#include "scripted_device.hpp"
#include "sim/model/port.hpp"
#include "stepping_time.hpp"
#include "test/support/build_paths.hpp"

namespace roced::apply {
namespace {

using Lines = std::vector<std::string>;
using Outcome = PortResult::Outcome;

// "setting ok attempts error" per step: one string compares all.
Lines steps_of(const std::vector<StepResult>& steps) {
  Lines out;
  for (const auto& s : steps) {
    std::string line = plan::setting_name(s.change.setting, s.change.key) + ": " + s.change.now +
                       " -> " + s.change.wanted + (s.ok ? " ok" : " FAILED") + " x" +
                       std::to_string(s.attempts);
    if (!s.error.empty()) line += " (" + s.error + ")";
    out.push_back(line);
  }
  return out;
}

// "setting ok|FAILED" per step.
Lines outcomes_of(const std::vector<StepResult>& steps) {
  Lines out;
  for (const auto& s : steps) {
    out.push_back(plan::setting_name(s.change.setting, s.change.key) + (s.ok ? " ok" : " FAILED"));
  }
  return out;
}

// lan2 of the default node, as the driver loads it (sim/model/port.cpp
// reset_to_firmware_defaults): firmware DCBX, PCP trust, vendor ETS, no PFC, MTU 1500, stall
// prevention 8 s, CNP priority not in effect, no rdma_cm group.
class Applier : public test::InProcessNode {
 protected:
  void SetUp() override {
    test::InProcessNode::SetUp();
    options.first_backoff = std::chrono::milliseconds(0);
    options.time = &clock_;  // waits for the carrier pass on the node's clock
    auto found = describe_netdev(*system_.files, netdev());
    ASSERT_TRUE(found.ok()) << found.error().message;
    port_ = *found;
    port = std::make_unique<test::ScriptedDevice>(system_port_device(system_, port_));
  }
  void TearDown() override {
    port.reset();  // its socket goes before the node
    test::InProcessNode::TearDown();
  }
  virtual std::string netdev() const { return "lan2"; }

  // The port as the planner reads it (not through the script, not counted).
  PortStatus observe() { return plan::replan_port(system_, port_, want).observed; }
  PortResult apply() { return apply(observe()); }
  PortResult apply(const PortStatus& observed) {
    port_plan = plan::plan_port(port_, want, observed);
    return apply_port_on(*port, port_plan, options);
  }
  // The profile applied without the script: the port starts in sync.
  void bring_in_sync() {
    auto device = system_port_device(system_, port_);
    const PortResult result =
        apply_port_on(*device, plan::plan_port(port_, want, device->read()), options);
    ASSERT_EQ(result.outcome, Outcome::Applied) << result.error;
  }
  // A foreign tool changes the port behind roced's back.
  void foreign(const std::function<void(roce_sim::Port&)>& change) {
    node_->change([&](roce_sim::Node& node) { change(*node.find(netdev())); });
  }
  void foreign_pfc(uint8_t mask, uint16_t cable_length) {
    foreign([&](roce_sim::Port& p) {
      ieee_pfc pfc{};
      pfc.pfc_en = mask;
      pfc.delay = cable_length;
      ASSERT_EQ(p.ieee_setpfc(pfc), 0);
    });
  }
  // What the port reads as now, planned against the profile: empty when it is in sync.
  Lines pending() {
    Lines out;
    for (const auto& c : plan::plan_port(port_, want, observe()).changes) {
      out.push_back(plan::setting_name(c.setting, c.key));
    }
    return out;
  }

  config::Profile want = config::default_profile();
  test::SteppingTime clock_{time_};
  ApplyOptions options;
  plan::PortPlan port_plan;
  DiscoveredPort port_;
  std::unique_ptr<test::ScriptedDevice> port;
};

TEST_F(Applier, InSyncPortIsNotWrittenToOrRead) {
  bring_in_sync();
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::InSync);
  EXPECT_EQ(port->log, Lines{});
  EXPECT_EQ(port->reads, 0);
  EXPECT_EQ(result.steps.size(), 0u);
  EXPECT_EQ(outcome_name(result.outcome), "in-sync");
}

TEST_F(Applier, UnreadablePortIsNotWrittenTo) {
  PortStatus observed = observe();
  observed.link = Field<LinkInfo>::from(Error{ENODEV, "lan2: RTM_GETLINK: No such device"}, "link");
  const PortResult result = apply(observed);
  EXPECT_EQ(result.outcome, Outcome::Unreadable);
  EXPECT_EQ(port->log, Lines{});
  EXPECT_EQ(port->reads, 0);
  EXPECT_NE(result.error.find("cannot read the link"), std::string::npos) << result.error;
}

TEST_F(Applier, WritesInSettingOrderOneRequestPerFeature) {
  foreign_pfc(0, 3);  // the cable length rides in the PFC message
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port->log, (Lines{
                           "set_dcbx 0x09",
                           "add_apps 64",  // trust and DSCP map: one APP table write
                           "set_ets tc3 50",
                           "set_mtu 9000",               // before PFC: Xoff counts the MTU
                           "set_pause --",               // before PFC: undone after it
                           "set_pfc mask 0x08 delay 7",  // priorities and cable length: one message
                           "set_stall 65535",
                           // Mode before priority (cong.c: mlx5_ib_set_cc_param_mask_val).
                           "set_knob np_cnp_prio_mode 0",
                           "set_knob np_cnp_prio 6",
                           "make_rdma_cm_group",
                           "set_rdma_cm_tos 106",
                       }));
  EXPECT_EQ(result.steps.size(), 11u);  // rdma_cm mode: already RoCE v2
  for (const auto& step : result.steps) {
    EXPECT_TRUE(step.ok) << plan::setting_name(step.change.setting);
    EXPECT_EQ(step.attempts, 1);
  }
  EXPECT_EQ(result.rollback.size(), 0u);
  EXPECT_EQ(pending(), Lines{});
}

TEST_F(Applier, EachStepIsVerifiedByReadingBack) {
  bring_in_sync();
  foreign([](roce_sim::Port& p) {
    ASSERT_EQ(p.set_mtu(1500), 0);
    ASSERT_EQ(p.set_pfc_prevention_tout(0), 0);
  });
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied);
  EXPECT_EQ(port->log, (Lines{"set_mtu 9000", "set_stall 65535"}));
  // One read-back per step, and the link once more: the MTU change rebuilt the channels, and
  // the applier returns once the port has its carrier.
  EXPECT_EQ(port->reads, 3);
  EXPECT_EQ(result.carrier, "back after 0 ms");
}

TEST_F(Applier, PfcCableLengthAloneKeepsTheMask) {
  bring_in_sync();
  foreign_pfc(1u << 3, 30);
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied);
  EXPECT_EQ(port->log, Lines{"set_pfc mask 0x08 delay 7"});
  EXPECT_EQ(
      steps_of(result.steps),
      Lines{"pfc.cable_length: 30 m -> 7 m (no effect unless roced manages the buffers) ok x1"});
}

TEST_F(Applier, TransientErrorsAreRetried) {
  port->answers["set_mtu"] = {EBUSY, EAGAIN};
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(std::count(port->log.begin(), port->log.end(), "set_mtu 9000"), 3);
  const auto mtu = std::find_if(result.steps.begin(), result.steps.end(), [](const auto& s) {
    return s.change.setting == plan::Setting::Mtu;
  });
  ASSERT_NE(mtu, result.steps.end());
  EXPECT_TRUE(mtu->ok);
  EXPECT_EQ(mtu->attempts, 3);
  EXPECT_EQ(pending(), Lines{});
}

TEST_F(Applier, RetriesStopAtMaxAttempts) {
  options.max_attempts = 3;
  port->answers["set_mtu"] = {EBUSY, EBUSY, EBUSY, EBUSY};
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(std::count(port->log.begin(), port->log.end(), "set_mtu 9000"), 3);
  EXPECT_EQ(steps_of(result.steps).back(), "mtu: 1500 -> 9000 FAILED x3 (EBUSY: set_mtu refused)");
}

TEST_F(Applier, FailedPortIsRolledBackInReverseOrder) {
  const PortStatus before = observe();
  port->answers["set_stall"] = {EIO};
  const PortResult result = apply(before);
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(result.error, "stall_prevention: EIO: set_stall refused");
  // Not retried (EIO is not transient), not undone (nothing was written).
  EXPECT_EQ(port->log, (Lines{
                           "set_dcbx 0x09", "add_apps 64", "set_ets tc3 50", "set_mtu 9000",
                           "set_pause --", "set_pfc mask 0x08 delay 7", "set_stall 65535",
                           "set_pfc mask 0x00 delay 7",  // turns 802.3x pause off again ...
                           "set_pause rxtx",             // ... so pause goes back after it
                           "set_mtu 1500", "set_ets tc3 100",
                           "delete_apps 64",  // the last DSCP entry takes trust back to PCP
                           "set_dcbx 0x0d",   // firmware's version bits back (with HOST) ...
                           "set_dcbx 0x00",   // ... then HOST off: firmware (cee ieee) again
                       }));
  EXPECT_EQ(outcomes_of(result.steps),
            (Lines{"dcbx ok", "trust ok", "dscp_map ok", "ets ok", "mtu ok", "global_pause ok",
                   "pfc.priorities ok", "stall_prevention FAILED"}));
  EXPECT_EQ(result.steps.back().error, "EIO: set_stall refused");
  EXPECT_EQ(outcomes_of(result.rollback), (Lines{"pfc.priorities ok", "global_pause ok", "mtu ok",
                                                 "ets ok", "trust ok", "dscp_map ok", "dcbx ok"}));
  EXPECT_EQ(result.rollback.front().change.now, "3");
  EXPECT_EQ(result.rollback.front().change.wanted, "none");
  EXPECT_EQ(result.headroom, "");  // firmware-owned buffers: nothing to recompute
  // Every DCB setting reads as before the apply.
  const PortStatus after = observe();
  EXPECT_EQ(*after.dcbx.value, *before.dcbx.value);
  EXPECT_EQ(*after.dscp_apps.value, *before.dscp_apps.value);
  EXPECT_EQ(*after.trust.value, dcb::Trust::Pcp);
  EXPECT_EQ(*after.ets.value, *before.ets.value);
  EXPECT_EQ(*after.pfc.value, *before.pfc.value);
  EXPECT_EQ(after.link.value->mtu, 1500u);
  // 802.3x pause as the firmware left it, though the PFC undo turned it off on the way.
  EXPECT_EQ(*before.global_pause.value, (PauseParams{false, true, true}));
  EXPECT_EQ(*after.global_pause.value, *before.global_pause.value);
}

TEST_F(Applier, VerifyMismatchIsAFailure) {
  bring_in_sync();
  foreign([](roce_sim::Port& p) {
    ASSERT_EQ(p.set_mtu(1500), 0);
    ASSERT_EQ(p.set_pfc_prevention_tout(8000), 0);
  });
  port->ignored.insert("set_stall");  // answers success, changes nothing
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(steps_of(result.steps),
            (Lines{"mtu: 1500 -> 9000 ok x1",
                   "stall_prevention: 8000 ms -> auto FAILED x1 (verify: reads 8000 ms after the "
                   "write (wanted auto))"}));
  // The unverified step is undone too: it may have changed something.
  EXPECT_EQ(port->log,
            (Lines{"set_mtu 9000", "set_stall 65535", "set_stall 8000", "set_mtu 1500"}));
  EXPECT_EQ(observe().link.value->mtu, 1500u);
}

TEST_F(Applier, FailedUndoIsRollbackFailedAndTheRestIsStillUndone) {
  port->answers["set_stall"] = {EIO};
  port->answers["set_pfc"] = {0, EIO};  // the apply works, the undo does not
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::RollbackFailed);
  EXPECT_EQ(outcome_name(result.outcome), "rollback-failed");
  EXPECT_EQ(outcomes_of(result.rollback),
            (Lines{"pfc.priorities FAILED", "global_pause ok", "mtu ok", "ets ok", "trust ok",
                   "dscp_map ok", "dcbx ok"}));
  EXPECT_EQ(result.rollback.front().error, "EIO: set_pfc refused");
}

TEST_F(Applier, PcpTrustDeletesEveryDscpEntry) {
  bring_in_sync();
  want.trust = dcb::Trust::Pcp;
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port->log, Lines{"delete_apps 64"});
  EXPECT_EQ(*observe().trust.value, dcb::Trust::Pcp);
}

TEST_F(Applier, DscpMapChangeWritesOnlyTheDifferingEntries) {
  bring_in_sync();
  want.dscp_map[26] = 5;
  want.dscp_map[48] = 7;
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  // mlx5 replaces a DSCP's entry on add: nothing is left over to delete.
  EXPECT_EQ(port->log, Lines{"add_apps 2"});
  EXPECT_EQ(dcb::dscp_map_from_apps(*observe().dscp_apps.value), want.dscp_map);
}

// The first DSCP entry switches mlx5 to DSCP trust, and a DSCP nobody gave an entry keeps the
// firmware's mapping, d>>3 (mlx5e_dcbnl_ieee_setapp only changes the one DSCP); dcbnl does not
// show it. A DSCP without an entry is no DSCP mapped to priority 0.
TEST_F(Applier, ADscpWithoutAnEntryIsTheFirmwaresNotPriorityZero) {
  want.dscp_map[10] = 0;  // the firmware's is 10 >> 3 = 1
  foreign([&](roce_sim::Port& p) {
    for (uint16_t dscp = 0; dscp < 64; ++dscp) {
      if (dscp == 10) continue;
      const dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, want.dscp_map[dscp], dscp};
      ASSERT_EQ(p.ieee_setapp(app), 0);
    }
  });
  node_->inspect([](roce_sim::Node& node) { ASSERT_EQ(node.find("lan2")->dscp2prio()[10], 1); });
  const plan::PortPlan planned = plan::plan_port(port_, want, observe());
  const auto change =
      std::find_if(planned.changes.begin(), planned.changes.end(),
                   [](const plan::Change& c) { return c.setting == plan::Setting::DscpMap; });
  ASSERT_NE(change, planned.changes.end()) << "DSCP 10 is mapped to 1 by the firmware";
  EXPECT_EQ(change->now, "10->fw");
  EXPECT_EQ(change->wanted, "10->0");
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  node_->inspect([](roce_sim::Node& node) { EXPECT_EQ(node.find("lan2")->dscp2prio()[10], 0); });
  EXPECT_EQ(pending(), Lines{});
}

// A part of the port that cannot be read (here ECN's debugfs) is left alone; every other setting
// is still made, and the apply is no success.
TEST_F(Applier, AnUnreadablePartDoesNotHoldBackTheOthers) {
  bring_in_sync();
  foreign([](roce_sim::Port& p) { ASSERT_EQ(p.set_mtu(1500), 0); });
  PortStatus observed = observe();
  observed.ecn = Field<rdma::EcnState>::from(Error{EIO, "read cc_params"}, "ECN/DCQCN");
  const PortResult result = apply(observed);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port->log, Lines{"set_mtu 9000"});
  EXPECT_EQ(result.unread, "cannot read ECN/DCQCN: read cc_params (EIO)");
  ApplyResult all;
  all.ports.push_back(result);
  EXPECT_FALSE(all.ok());
  EXPECT_NE(format_apply_text(all).find("not read, left as it is: cannot read ECN/DCQCN"),
            std::string::npos)
      << format_apply_text(all);
}

TEST_F(Applier, UnsupportedAndWarningsAreCarried) {
  bring_in_sync();
  want.ecn.enabled_priorities = 1u << 3;  // the inbox driver cannot
  want.mtu = 1500;
  foreign([](roce_sim::Port& p) { ASSERT_EQ(p.set_mtu(1500), 0); });
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::InSync);
  EXPECT_EQ(port->log, Lines{});
  ASSERT_EQ(result.unsupported.size(), 1u);
  EXPECT_EQ(result.unsupported[0].setting, plan::Setting::EcnPriorities);
  EXPECT_EQ(finding::texts(result.findings),
            Lines{"MTU 1500 < 4200: the RoCE path MTU drops below 4096"});
}

// With roced managing the buffers, mlx5 computes the lossless buffer's Xoff while the link is
// down after the PFC toggle (for 40 Gb/s: en/port_buffer.c calculate_xoff); the applier waits
// for the carrier and has it recomputed at 400 Gb/s.
class ManualBuffers : public Applier {
 protected:
  // The links train as the node's ports do (3 s at 400G): the wait for the carrier is the point.
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.link_training_ms.reset();
  }
  void SetUp() override {
    Applier::SetUp();
    config::BufferProfile buffers;
    buffers.prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
    buffers.buffer_size = {262144, 393216, 0, 0, 0, 0, 0, 0};
    want.buffers = buffers;
  }
  // What the firmware holds as buffer 1's Xoff threshold (not visible through dcbnl).
  uint32_t xoff_threshold() {
    uint32_t xoff = 0;
    node_->inspect([&](roce_sim::Node& node) { xoff = node.find("lan2")->buffer_xoff()[1]; });
    return xoff;
  }
  uint32_t expected_at(uint64_t speed_mbps) {
    uint32_t xoff = 0;
    node_->inspect([&](roce_sim::Node& node) { xoff = node.find("lan2")->xoff_at(speed_mbps); });
    return (393216u - xoff) / 128 * 128;
  }
};

TEST_F(ManualBuffers, XoffIsRecomputedAtLinkSpeedOnceTheCarrierIsBack) {
  const PortResult result = apply();
  ASSERT_EQ(result.outcome, Outcome::Applied) << result.error;
  // MTU first, PFC (the link toggles), buffers (written while it trains), then setpfc again.
  EXPECT_EQ(port->log[3], "set_mtu 9000");
  EXPECT_EQ(port->log[4], "set_pause --");
  EXPECT_EQ(port->log[5], "set_pfc mask 0x08 delay 7");
  EXPECT_EQ(port->log[6], "set_buffer 262144");
  EXPECT_EQ(port->log.back(), "set_pfc mask 0x08 delay 7");
  // The applier waited the link training out (as after any disruptive change), then had Xoff
  // recomputed.
  EXPECT_EQ(result.carrier, "back after 3000 ms");
  EXPECT_EQ(result.headroom, "recomputed at link speed (setpfc, unchanged)");
  EXPECT_EQ(xoff_threshold(), expected_at(400000));
  EXPECT_NE(expected_at(400000), expected_at(40000));
  EXPECT_EQ(pending(), Lines{});
}

TEST_F(ManualBuffers, NoCarrierIsReportedNotHidden) {
  foreign([](roce_sim::Port& p) { p.set_peer_carrier(false); });  // the cable is out
  const PortResult result = apply();
  ASSERT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(result.headroom.rfind("not recomputed: no carrier 15000 ms after the change", 0), 0u)
      << result.headroom;
  ASSERT_FALSE(result.findings.empty());
  EXPECT_EQ(result.findings.back().id, "headroom_not_recomputed");
  EXPECT_EQ(result.findings.back().text.rfind("headroom: no carrier", 0), 0u);
  EXPECT_EQ(xoff_threshold(), expected_at(40000));  // what mlx5 did with the link down
}

// Links that train longer than carrier_timeout: the first port applied is left without the
// carrier it had, and no other working port is flapped after it in the same apply.
class SlowLinks : public Applier {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.link_training_ms = 20000;  // carrier_timeout is 15 s
  }
};

TEST_F(SlowLinks, APortLeftWithoutCarrierHoldsTheOtherDisruptivePorts) {
  plan::Plan plan;
  for (const char* name : {"lan2", "lan3", "lan4"}) {
    auto found = describe_netdev(*system_.files, name);
    ASSERT_TRUE(found.ok()) << found.error().message;
    plan.ports.push_back(plan::replan_port(system_, *found, want));
    ASSERT_TRUE(plan.ports.back().disruptive()) << name;  // PFC off -> on toggles the link
  }
  const ApplyResult result = apply_plan(system_, plan, options);
  ASSERT_EQ(result.ports.size(), 3u);
  EXPECT_EQ(result.ports[0].outcome, Outcome::Applied) << result.ports[0].error;
  EXPECT_TRUE(result.ports[0].carrier_lost);
  EXPECT_EQ(result.ports[0].carrier, "no carrier 15000 ms after the change");
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(result.ports[i].outcome, Outcome::Held) << result.ports[i].netdev;
    EXPECT_EQ(result.ports[i].error,
              "lan2 has had no carrier since its disruptive change; apply again once it has");
    EXPECT_TRUE(result.ports[i].steps.empty());
  }
  EXPECT_FALSE(result.ok());
  // Nothing was written to the held ports: they still plan every change.
  for (size_t i = 1; i < 3; ++i) {
    const auto again = plan::replan_port(system_, plan.ports[i].port, want);
    EXPECT_EQ(again.changes.size(), plan.ports[i].changes.size()) << again.port.netdev;
  }
  const std::string text = format_apply_text(result);
  EXPECT_NE(text.find("lan3: not applied, held (lan2 has had no carrier"), std::string::npos)
      << text;
}

TEST_F(Applier, FirmwareOwnedBuffersNeedNoWaitForTheCarrier) {
  const auto before = time_.now();
  const PortResult result = apply();
  ASSERT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(result.headroom, "");
  EXPECT_EQ(time_.now(), before);  // no time passed: nothing waited
}

// A port whose firmware has no buffer commands (no PBMC/PPTB): mlx5e_dcbnl_ieee_getpfc reports
// delay 0 whatever was set, and the driver uses the cable length nowhere.
class NoBufferSupport : public Applier {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.caps.buffers = false;
  }
};

TEST_F(NoBufferSupport, CableLengthIsUnsupportedNotAChangeForever) {
  const PortResult result = apply();
  ASSERT_EQ(result.outcome, Outcome::Applied) << result.error;
  const auto cable = std::find_if(
      result.unsupported.begin(), result.unsupported.end(),
      [](const plan::Unsupported& u) { return u.setting == plan::Setting::CableLength; });
  ASSERT_NE(cable, result.unsupported.end());
  EXPECT_EQ(cable->reason,
            "this port has no buffer commands: mlx5 reads the cable length back as 0 and uses it "
            "nowhere");
  EXPECT_EQ(pending(), Lines{});
  EXPECT_EQ(port->log[5], "set_pfc mask 0x08 delay 7");  // the mask still goes
}

// A port of NVIDIA's out-of-tree driver: ECN enables per priority and DCQCN knobs under ecn/.
class OfedApplier : public Applier {
 protected:
  std::string node_file() const override {
    return std::string(ROCED_SIM_NODES) + "/dual-port-ofed.yaml";
  }
  std::string netdev() const override { return "ens1f0np0"; }
};

TEST_F(OfedApplier, EcnPrioritiesAndKnobs) {
  bring_in_sync();
  foreign([](roce_sim::Port& p) {
    p.ecn().np_enabled.fill(false);
    p.ecn().rp_enabled.fill(false);
    p.ecn().rp_enabled[3] = true;
  });
  want.ecn.enabled_priorities = 1u << 3;
  want.ecn.dcqcn["rp_ai_rate"] = 10;
  const PortResult result = apply();
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port->log, (Lines{"set_ecn_enable np 3 1", "set_knob rp_ai_rate 10"}));
  EXPECT_EQ(pending(), Lines{});
}

TEST_F(Applier, ApplyResultSummaries) {
  ApplyResult result;
  result.ports.resize(2);
  result.ports[0].outcome = Outcome::InSync;
  result.ports[1].outcome = Outcome::InSync;
  EXPECT_TRUE(result.ok());
  EXPECT_FALSE(result.changed());
  result.ports[1].outcome = Outcome::Applied;
  EXPECT_TRUE(result.ok());
  EXPECT_TRUE(result.changed());
  result.ports[0].outcome = Outcome::RolledBack;
  EXPECT_FALSE(result.ok());
  result.ports[0].outcome = Outcome::Unreadable;
  result.ports[1].outcome = Outcome::InSync;
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(result.changed());
}

// NVIDIA's own driver (the OFED flavour) refuses a cable length of 0, which a port without buffer
// commands reads back: the undo of a PFC change must not send what it read.
class OfedNoBufferSupport : public OfedApplier {
 protected:
  void adjust(std::vector<roce_sim::PortSpec>& specs) const override {
    for (auto& spec : specs) spec.caps.buffers = false;
  }
};

TEST_F(OfedNoBufferSupport, APfcChangeIsUndoneWithoutACableLengthOfZero) {
  const PortStatus before = observe();
  ASSERT_EQ(before.pfc.value->delay, 0);
  port->answers["set_rdma_cm_tos"] = {EIO};  // a step after PFC fails
  const PortResult result = apply(before);
  EXPECT_EQ(result.outcome, Outcome::RolledBack) << result.error;
  EXPECT_EQ(observe().pfc.value->enabled_mask, before.pfc.value->enabled_mask);
}

}  // namespace
}  // namespace roced::apply
