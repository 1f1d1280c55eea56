// SPDX-License-Identifier: Apache-2.0
// The applier on an in-memory mlx5 port: nothing written when in sync or unreadable, Setting
// order with one request per feature (PFC mask and cable length in one), transient errors
// retried, and a failed port put back in reverse order, each step verified by reading back.
#include <gtest/gtest.h>

#include "fake_port.hpp"
#include "observed.hpp"

namespace roced::apply {
namespace {

using Lines = std::vector<std::string>;
using Outcome = PortResult::Outcome;

// mlx5 as the driver loads it (sim/model reset_to_firmware_defaults): firmware DCBX, PCP trust,
// vendor ETS, no PFC, MTU 1500, stall prevention 8 s, CNP priority not in effect, no rdma_cm
// group.
PortStatus firmware_defaults() {
  PortStatus status = test::in_sync_status();
  status.dcbx.value = dcb::kDcbxVerCee | dcb::kDcbxVerIeee;
  status.dscp_apps.value = std::vector<dcb::AppEntry>{};
  status.trust.value = dcb::Trust::Pcp;
  dcb::Ets& ets = *status.ets.value;
  ets.prio_tc = {1, 0, 2, 3, 4, 5, 6, 7};
  ets.tc_tsa.fill(dcb::Tsa::Vendor);
  ets.tc_tx_bw.fill(100);
  status.pfc.value->enabled_mask = 0;
  status.link.value->mtu = 1500;
  status.stall_prevention.value = StallPrevention{8000};
  status.ecn.value->np_params["np_cnp_prio_mode"] = 1;
  status.rdma_cm.value = rdma::RdmaCmDefaults{};
  return status;
}

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

class Applier : public ::testing::Test {
 protected:
  Applier() { options.first_backoff = std::chrono::milliseconds(0); }

  PortResult apply(const PortStatus& observed) {
    port_plan = plan::plan_port(test::lan2(), want, observed);
    return apply_port_on(port, port_plan, options);
  }
  // What the port reads as now, planned against the profile: empty when it is in sync.
  Lines pending() const {
    Lines out;
    for (const auto& c : plan::plan_port(test::lan2(), want, port.state).changes) {
      out.push_back(plan::setting_name(c.setting, c.key));
    }
    return out;
  }

  config::Profile want = config::default_profile();
  ApplyOptions options;
  plan::PortPlan port_plan;
  test::FakePort port{firmware_defaults()};
};

TEST_F(Applier, InSyncPortIsNotWrittenToOrRead) {
  port.state = test::in_sync_status();
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::InSync);
  EXPECT_EQ(port.log, Lines{});
  EXPECT_EQ(port.reads, 0);
  EXPECT_EQ(result.steps.size(), 0u);
  EXPECT_EQ(outcome_name(result.outcome), "in-sync");
}

TEST_F(Applier, UnreadablePortIsNotWrittenTo) {
  PortStatus observed = port.state;
  observed.link = Field<LinkInfo>::from(Error{ENODEV, "lan2: RTM_GETLINK: No such device"}, "link");
  const PortResult result = apply(observed);
  EXPECT_EQ(result.outcome, Outcome::Unreadable);
  EXPECT_EQ(port.log, Lines{});
  EXPECT_NE(result.error.find("cannot read the link"), std::string::npos) << result.error;
}

TEST_F(Applier, WritesInSettingOrderOneRequestPerFeature) {
  port.state.pfc.value->delay = 3;  // the cable length rides in the PFC message
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port.log, (Lines{
                          "set_dcbx 0x09",
                          "add_apps 64",  // trust and DSCP map: one APP table write
                          "set_ets tc3 50",
                          "set_pfc mask 0x08 delay 7",  // priorities and cable length: one message
                          "set_mtu 9000",
                          "set_stall 65535",
                          // Mode before priority (cong.c: mlx5_ib_set_cc_param_mask_val).
                          "set_knob np_cnp_prio_mode 0",
                          "set_knob np_cnp_prio 6",
                          "make_rdma_cm_group",
                          "set_rdma_cm_tos 106",
                      }));
  EXPECT_EQ(result.steps.size(), 10u);  // rdma_cm mode: already RoCE v2
  for (const auto& step : result.steps) {
    EXPECT_TRUE(step.ok) << plan::setting_name(step.change.setting);
    EXPECT_EQ(step.attempts, 1);
  }
  EXPECT_EQ(result.rollback.size(), 0u);
  EXPECT_EQ(pending(), Lines{});
}

TEST_F(Applier, EachStepIsVerifiedByReadingBack) {
  port.state = test::in_sync_status();
  port.state.link.value->mtu = 1500;
  port.state.stall_prevention.value = StallPrevention{0};
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied);
  EXPECT_EQ(port.log, (Lines{"set_mtu 9000", "set_stall 65535"}));
  EXPECT_EQ(port.reads, 2);  // one read-back per step
}

TEST_F(Applier, PfcCableLengthAloneKeepsTheMask) {
  port.state = test::in_sync_status();
  port.state.pfc.value->delay = 30;
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied);
  EXPECT_EQ(port.log, Lines{"set_pfc mask 0x08 delay 7"});
  EXPECT_EQ(steps_of(result.steps), Lines{"pfc.cable_length: 30 m -> 7 m ok x1"});
}

TEST_F(Applier, TransientErrorsAreRetried) {
  port.answers["set_mtu"] = {EBUSY, EAGAIN};
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(std::count(port.log.begin(), port.log.end(), "set_mtu 9000"), 3);
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
  port.answers["set_mtu"] = {EBUSY, EBUSY, EBUSY, EBUSY};
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(std::count(port.log.begin(), port.log.end(), "set_mtu 9000"), 3);
  EXPECT_EQ(steps_of(result.steps).back(), "mtu: 1500 -> 9000 FAILED x3 (EBUSY: set_mtu refused)");
}

TEST_F(Applier, FailedPortIsRolledBackInReverseOrder) {
  const PortStatus before = port.state;
  port.answers["set_mtu"] = {EIO};
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(result.error, "mtu: EIO: set_mtu refused");
  // Not retried (EIO is not transient), not undone (nothing was written).
  EXPECT_EQ(port.log,
            (Lines{
                "set_dcbx 0x09", "add_apps 64", "set_ets tc3 50", "set_pfc mask 0x08 delay 7",
                "set_mtu 9000", "set_pfc mask 0x00 delay 7", "set_ets tc3 100",
                "delete_apps 64",  // the last DSCP entry takes trust back to PCP
                "set_dcbx 0x0d",   // firmware's version bits back (with HOST) ...
                "set_dcbx 0x00",   // ... then HOST off: firmware (cee ieee) again
            }));
  EXPECT_EQ(outcomes_of(result.steps), (Lines{"dcbx ok", "trust ok", "dscp_map ok", "ets ok",
                                              "pfc.priorities ok", "mtu FAILED"}));
  EXPECT_EQ(result.steps.back().error, "EIO: set_mtu refused");
  EXPECT_EQ(outcomes_of(result.rollback),
            (Lines{"pfc.priorities ok", "ets ok", "trust ok", "dscp_map ok", "dcbx ok"}));
  EXPECT_EQ(result.rollback.front().change.now, "3");
  EXPECT_EQ(result.rollback.front().change.wanted, "none");
  // Every DCB setting reads as before the apply.
  EXPECT_EQ(*port.state.dcbx.value, *before.dcbx.value);
  EXPECT_EQ(*port.state.dscp_apps.value, *before.dscp_apps.value);
  EXPECT_EQ(*port.state.trust.value, dcb::Trust::Pcp);
  EXPECT_EQ(*port.state.ets.value, *before.ets.value);
  EXPECT_EQ(*port.state.pfc.value, *before.pfc.value);
  EXPECT_EQ(port.state.link.value->mtu, 1500u);
}

TEST_F(Applier, VerifyMismatchIsAFailure) {
  port.state = test::in_sync_status();
  port.state.link.value->mtu = 1500;
  port.state.stall_prevention.value = StallPrevention{8000};
  port.ignored.insert("set_stall");  // answers success, changes nothing
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::RolledBack);
  EXPECT_EQ(steps_of(result.steps),
            (Lines{"mtu: 1500 -> 9000 ok x1",
                   "stall_prevention: 8000 ms -> auto FAILED x1 (verify: reads 8000 ms after the "
                   "write (wanted auto))"}));
  // The unverified step is undone too: it may have changed something.
  EXPECT_EQ(port.log, (Lines{"set_mtu 9000", "set_stall 65535", "set_stall 8000", "set_mtu 1500"}));
  EXPECT_EQ(port.state.link.value->mtu, 1500u);
}

TEST_F(Applier, FailedUndoIsRollbackFailedAndTheRestIsStillUndone) {
  port.answers["set_mtu"] = {EIO};
  port.answers["set_pfc"] = {0, EIO};  // the apply works, the undo does not
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::RollbackFailed);
  EXPECT_EQ(outcome_name(result.outcome), "rollback-failed");
  EXPECT_EQ(outcomes_of(result.rollback),
            (Lines{"pfc.priorities FAILED", "ets ok", "trust ok", "dscp_map ok", "dcbx ok"}));
  EXPECT_EQ(result.rollback.front().error, "EIO: set_pfc refused");
}

TEST_F(Applier, PcpTrustDeletesEveryDscpEntry) {
  port.state = test::in_sync_status();
  want.trust = dcb::Trust::Pcp;
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port.log, Lines{"delete_apps 64"});
  EXPECT_EQ(*port.state.trust.value, dcb::Trust::Pcp);
}

TEST_F(Applier, DscpMapChangeWritesOnlyTheDifferingEntries) {
  port.state = test::in_sync_status();
  want.dscp_map[26] = 5;
  want.dscp_map[48] = 7;
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  // mlx5 replaces a DSCP's entry on add: nothing is left over to delete.
  EXPECT_EQ(port.log, Lines{"add_apps 2"});
  EXPECT_EQ(dcb::dscp_map_from_apps(*port.state.dscp_apps.value), want.dscp_map);
}

TEST_F(Applier, OfedEcnPrioritiesAndKnobs) {
  port.state = test::in_sync_status();
  rdma::EcnState ofed;
  ofed.flavour = rdma::EcnFlavour::Ofed;
  ofed.np_enabled = 0;
  ofed.rp_enabled = 1u << 3;
  ofed.np_params = {{"cnp_dscp", 48}, {"cnp_802p_prio", 6}};
  ofed.rp_params = {{"rpg_ai_rate", 5}};
  port.state.ecn.value = ofed;
  want.ecn.enabled_priorities = 1u << 3;
  want.ecn.dcqcn["rp_ai_rate"] = 10;
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::Applied) << result.error;
  EXPECT_EQ(port.log, (Lines{"set_ecn_enable np 3 1", "set_knob rp_ai_rate 10"}));
}

TEST_F(Applier, UnsupportedAndWarningsAreCarried) {
  port.state = test::in_sync_status();
  want.ecn.enabled_priorities = 1u << 3;  // the inbox driver cannot
  want.mtu = 1500;
  port.state.link.value->mtu = 1500;
  const PortResult result = apply(port.state);
  EXPECT_EQ(result.outcome, Outcome::InSync);
  EXPECT_EQ(port.log, Lines{});
  ASSERT_EQ(result.unsupported.size(), 1u);
  EXPECT_EQ(result.unsupported[0].setting, plan::Setting::EcnPriorities);
  EXPECT_EQ(result.warnings, Lines{"MTU 1500 < 4200: the RoCE path MTU drops below 4096"});
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

}  // namespace
}  // namespace roced::apply
