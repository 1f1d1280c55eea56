// SPDX-License-Identifier: Apache-2.0
// The link and RDMA rows: the hooks only some settings have (the MTU's warning and range refusal,
// the DCQCN knobs as instances of one keyed setting, the inbox CNP priority mode).
#include <gtest/gtest.h>

#include "../plan/observed.hpp"
#include "daemon/settings/spec_link.hpp"
#include "daemon/settings/spec_rdma.hpp"
#include "test/settings/plan_row.hpp"

namespace roced::settings {
namespace {

using test::plan_row;

TEST(LinkRows, AnMtuAboveTheLinksMaximumIsUnsupportedNotAChange) {
  config::Profile want = config::default_profile();
  want.mtu = 10000;  // the link's max_mtu is 9978
  const Planned found = plan_row(Setting::Mtu, want, test::in_sync_status());
  EXPECT_TRUE(found.changes.empty());
  ASSERT_EQ(found.unsupported.size(), 1u);
  EXPECT_EQ(found.unsupported[0].kind, Lacking::OutOfRange);
  EXPECT_EQ(found.unsupported[0].reason, "MTU 10000 is above this link's maximum 9978");
}

TEST(LinkRows, ASmallMtuIsWarnedAboutEvenWhenItIsInForce) {
  config::Profile want = config::default_profile();
  want.mtu = 1500;
  PortStatus have = test::in_sync_status();
  have.link.value->mtu = 1500;
  const Planned found = plan_row(Setting::Mtu, want, have);
  EXPECT_TRUE(found.changes.empty());
  ASSERT_EQ(found.findings.size(), 1u);
  EXPECT_EQ(found.findings[0].id, "mtu_below_roce");
  EXPECT_EQ(found.findings[0].subject, "lan2");
  EXPECT_EQ(found.findings[0].wanted, ">= 4200");
  EXPECT_EQ(found.findings[0].found, "1500");
  EXPECT_EQ(found.findings[0].text, "MTU 1500 < 4200: the RoCE path MTU drops below 4096");
}

TEST(RdmaRows, EachDcqcnKnobIsAnInstance) {
  config::Profile want = config::default_profile();
  want.ecn.dcqcn = {{"rp_ai_rate", 10}, {"rp_hai_rate", 50}};
  EXPECT_TRUE(row(Setting::Dcqcn).manages(want));
  const Planned found = plan_row(Setting::Dcqcn, want, test::in_sync_status());
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].key, "rp_ai_rate");
  EXPECT_EQ(found.changes[0].now, "5");
  ASSERT_EQ(found.unsupported.size(), 1u);
  EXPECT_EQ(found.unsupported[0].key, "rp_hai_rate");
  EXPECT_EQ(found.unsupported[0].kind, Lacking::NoKnob);
  want.ecn.dcqcn.clear();
  EXPECT_FALSE(row(Setting::Dcqcn).manages(want));
}

TEST(RdmaRows, TheCnpPriorityIsNoMatchWhileTheInboxModeIgnoresIt) {
  const config::Profile want = config::default_profile();  // priority 6
  PortStatus have = test::in_sync_status();
  have.ecn.value->np_params["np_cnp_prio_mode"] = 1;
  const Planned found = plan_row(Setting::CnpPriority, want, have);
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].now, "6 (np_cnp_prio_mode 1: not in effect)");
  EXPECT_EQ(found.changes[0].wanted, "6");
}

}  // namespace
}  // namespace roced::settings
