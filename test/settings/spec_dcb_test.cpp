// SPDX-License-Identifier: Apache-2.0
// The DCB rows: what each compares (the one equality the plan and the undo check share), and how
// the generic planning turns a row's reading into a change, an unsupported setting or a read
// error.
#include "daemon/settings/spec_dcb.hpp"

#include <gtest/gtest.h>

#include <cerrno>

#include "../plan/observed.hpp"
#include "test/settings/plan_row.hpp"

namespace roced::settings {
namespace {

using test::plan_row;

TEST(DcbRows, EtsIgnoresTheBandwidthOfANonEtsTc) {
  const config::Profile want = config::default_profile();
  PortStatus have = test::in_sync_status();
  have.ets.value->tc_tx_bw[6] = 100;  // TC6 is strict: mlx5 reports 100 there
  EXPECT_TRUE(plan_row(Setting::Ets, want, have).changes.empty());
  have.ets.value->tc_tx_bw[3] = 40;
  const Planned found = plan_row(Setting::Ets, want, have);
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].setting, Setting::Ets);
}

TEST(DcbRows, DcbxComparesOnlyWhoIsInCharge) {
  const config::Profile want = config::default_profile();  // host
  PortStatus have = test::in_sync_status();
  have.dcbx.value = dcb::kDcbxHost | dcb::kDcbxVerCee;  // host, other version bits
  EXPECT_TRUE(plan_row(Setting::Dcbx, want, have).changes.empty());
  have.dcbx.value = dcb::kDcbxVerIeee;  // the firmware agent
  const Planned found = plan_row(Setting::Dcbx, want, have);
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].now, "firmware (ieee)");
  EXPECT_EQ(found.changes[0].wanted, "host");
}

TEST(DcbRows, APfcMaskChangeIsDisruptiveACableLengthChangeIsNot) {
  config::Profile want = config::default_profile();
  want.pfc_priorities = 0x18;
  want.cable_length_m = 20;
  const PortStatus have = test::in_sync_status();
  const Planned mask = plan_row(Setting::PfcPriorities, want, have);
  ASSERT_EQ(mask.changes.size(), 1u);
  EXPECT_TRUE(mask.changes[0].disruptive);
  const Planned cable = plan_row(Setting::CableLength, want, have);
  ASSERT_EQ(cable.changes.size(), 1u);
  EXPECT_FALSE(cable.changes[0].disruptive);
  // With the firmware's buffers mainline mlx5 keeps the length and sends it nowhere.
  EXPECT_EQ(cable.changes[0].wanted, "20 m (no effect unless roced manages the buffers)");
}

TEST(DcbRows, AFieldsLackDecidesUnsupportedOrReadError) {
  const config::Profile want = config::default_profile();
  PortStatus have = test::in_sync_status();
  have.pfc = Field<dcb::Pfc>::unsupported("the driver reports no PFC");
  Planned found = plan_row(Setting::PfcPriorities, want, have);
  ASSERT_EQ(found.unsupported.size(), 1u);
  EXPECT_EQ(found.unsupported[0].reason, "the driver reports no PFC");
  EXPECT_EQ(found.unsupported[0].kind, Lacking::Device);
  have.pfc = Field<dcb::Pfc>::from(Error{EIO, "RTM_GETDCB: Input/output error"}, "DCB");
  found = plan_row(Setting::PfcPriorities, want, have);
  EXPECT_TRUE(found.unsupported.empty());
  EXPECT_EQ(found.error, "cannot read DCB: RTM_GETDCB: Input/output error (EIO)");
}

TEST(DcbRows, TheDscpMapAndTheBuffersAreManagedOnlyWhenAskedFor) {
  config::Profile want = config::default_profile();
  EXPECT_FALSE(row(Setting::Buffers).manages(want));
  want.buffers = config::BufferProfile{};
  EXPECT_TRUE(row(Setting::Buffers).manages(want));
  EXPECT_TRUE(row(Setting::DscpMap).manages(want));
  want.trust = dcb::Trust::Pcp;
  EXPECT_FALSE(row(Setting::DscpMap).manages(want));
}

TEST(DcbRows, TheUndoCheckUsesTheSameEquality) {
  const config::Profile want = config::default_profile();
  const PortStatus before = test::in_sync_status();
  PortStatus now = before;
  now.ets.value->tc_tx_bw[6] = 100;
  const Ctx ctx{before.port, want, {}, now};
  EXPECT_EQ(row(Setting::Ets).restored(ctx, before, now), "");
  now.pfc.value->delay = 20;
  EXPECT_EQ(row(Setting::CableLength).restored(ctx, before, now),
            "the cable length differs from before the apply");
  EXPECT_EQ(row(Setting::PfcPriorities).restored(ctx, before, now), "");
}

}  // namespace
}  // namespace roced::settings
