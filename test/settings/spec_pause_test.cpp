// SPDX-License-Identifier: Apache-2.0
// The global_pause row: a fresh port's 802.3x pause is a change to off, a port PFC already turned
// it off on is in sync, an absent key leaves it alone, and the undo writes back what was read.
#include <gtest/gtest.h>

#include "../plan/observed.hpp"
#include "daemon/settings/spec_link.hpp"

namespace roced::settings {
namespace {

Planned plan_pause(const config::Profile& want, const PortStatus& have) {
  Planned found;
  row(Setting::GlobalPause).plan(have.port, want, have, found);
  return found;
}

TEST(GlobalPauseRow, PauseOnIsAChangeToOff) {
  PortStatus have = test::in_sync_status();
  have.global_pause = Field<PauseParams>::of(PauseParams{false, true, true});
  const Planned found = plan_pause(config::default_profile(), have);
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].setting, Setting::GlobalPause);
  EXPECT_EQ(found.changes[0].now, "on");
  EXPECT_EQ(found.changes[0].wanted, "off");
  EXPECT_FALSE(found.changes[0].disruptive);
}

TEST(GlobalPauseRow, PauseOffIsInSyncAndOneDirectionIsNot) {
  PortStatus have = test::in_sync_status();
  EXPECT_TRUE(plan_pause(config::default_profile(), have).changes.empty());
  have.global_pause = Field<PauseParams>::of(PauseParams{false, false, true});
  const Planned found = plan_pause(config::default_profile(), have);
  ASSERT_EQ(found.changes.size(), 1u);
  EXPECT_EQ(found.changes[0].now, "tx only");
}

TEST(GlobalPauseRow, AnAbsentKeyLeavesPauseAlone) {
  config::Profile want = config::default_profile();
  want.global_pause.reset();
  PortStatus have = test::in_sync_status();
  have.global_pause = Field<PauseParams>::of(PauseParams{false, true, true});
  EXPECT_FALSE(row(Setting::GlobalPause).manages(want));
  EXPECT_TRUE(plan_pause(want, have).changes.empty());
}

TEST(GlobalPauseRow, AnUnreadablePauseIsAReadErrorNotAChange) {
  PortStatus have = test::in_sync_status();
  have.global_pause = Field<PauseParams>::failed("cannot read global pause: EIO", EIO);
  const Planned found = plan_pause(config::default_profile(), have);
  EXPECT_TRUE(found.changes.empty());
  EXPECT_FALSE(found.error.empty());
}

// The write is off in both directions; the undo is what the plan read, autonegotiation included.
class RecordingDevice : public PortDevice {
 public:
  std::vector<PauseParams> pauses;
  PortStatus read() override { return {}; }
  Result<std::vector<dcb::AppEntry>> dscp_apps() override { return std::vector<dcb::AppEntry>{}; }
  Result<void> write(const write::Write& request) override {
    if (const auto* pause = std::get_if<write::GlobalPause>(&request)) {
      pauses.push_back(pause->pause);
    }
    return {};
  }
};

TEST(GlobalPauseRow, TheUndoWritesBackWhatWasRead) {
  PortStatus observed = test::in_sync_status();
  observed.global_pause = Field<PauseParams>::of(PauseParams{true, true, false});
  const config::Profile want = config::default_profile();
  const auto writes =
      feature_row(Feature::GlobalPause).writes(WriteCtx{observed.port, want, observed, {}});
  ASSERT_TRUE(writes.has_value());
  RecordingDevice device;
  const WriteOptions options;
  Writer writer(device, options);
  ASSERT_TRUE(writes->apply(writer));
  ASSERT_TRUE(write::perform(writes->undo, writer));
  ASSERT_EQ(device.pauses.size(), 2u);
  EXPECT_EQ(device.pauses[0], (PauseParams{false, false, false}));
  EXPECT_EQ(device.pauses[1], (PauseParams{true, true, false}));
}

}  // namespace
}  // namespace roced::settings
