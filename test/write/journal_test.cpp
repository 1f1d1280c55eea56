// SPDX-License-Identifier: Apache-2.0
// The journal (each change's undo recorded before it is made, undone newest first) and the APP
// table's update, on a fake port that keeps the DSCP entries as mlx5 does.
#include "write/journal.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <string>
#include <vector>

namespace roced::write {
namespace {

// A port that logs every write's words, refuses the kinds it is told to, and keeps a DSCP table
// as mlx5 does: an add replaces the DSCP's entry (mlx5e_dcbnl_ieee_setapp), a delete of an entry
// it does not hold is ENOENT.
class FakePort final : public Port {
 public:
  std::vector<std::string> log;
  std::map<std::string_view, int> refuse;  // kind -> errno
  std::vector<dcb::AppEntry> table;
  int table_reads = 0;

  Result<void> write(const Write& request) override {
    log.push_back(text(request));
    if (auto it = refuse.find(kind(request)); it != refuse.end()) {
      return Error{it->second, "refused"};
    }
    if (const auto* add = std::get_if<AppAdd>(&request)) {
      for (const auto& app : add->apps) {
        std::erase_if(table, [&](const dcb::AppEntry& e) { return e.protocol == app.protocol; });
        table.push_back(app);
      }
    }
    if (const auto* del = std::get_if<AppDelete>(&request)) {
      for (const auto& app : del->apps) {
        if (std::erase(table, app) == 0) return Error{ENOENT, "no such entry"};
      }
    }
    return {};
  }
  Result<std::vector<dcb::AppEntry>> dscp_apps() override {
    ++table_reads;
    return table;
  }
};

TEST(Journal, UndoesNewestFirst) {
  Journal journal;
  journal.record("MTU 1500", Mtu{9000}.undo(1500));
  journal.record("stall prevention", StallPrevention{500}.undo(0xffff));
  journal.record("DCBX", DcbxMode{0x09}.undo(0x0c));
  FakePort port;
  const auto results = journal.undo_all(port);
  EXPECT_EQ(port.log, (std::vector<std::string>{"DCBX mode 0x0d", "DCBX mode 0x00",
                                                "PFC stall prevention auto", "MTU 1500"}));
  ASSERT_EQ(results.size(), 3u);
  for (const auto& result : results) EXPECT_TRUE(result.ok());
  EXPECT_TRUE(journal.empty());
}

// An entry stops at its first refused write; the entries before it are still undone, and each
// result is reported against its own entry.
TEST(Journal, ARefusedUndoStopsItsEntryOnly) {
  Journal journal;
  journal.record("MTU", Mtu{9000}.undo(1500));
  journal.record("DCBX", DcbxMode{0x09}.undo(0x0c));
  FakePort port;
  port.refuse["dcbx"] = EINVAL;
  const auto results = journal.undo_all(port);
  EXPECT_EQ(port.log, (std::vector<std::string>{"DCBX mode 0x0d", "MTU 1500"}));
  EXPECT_TRUE(results[0].ok());
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].error().code, EINVAL);
}

TEST(Journal, AnUndoThatCouldNotBeMadeIsENODATA) {
  Journal journal;
  journal.record("ETS", Undo::refused("ETS was not read before the change"));
  FakePort port;
  const auto results = journal.undo_all(port);
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].error().code, ENODATA);
  EXPECT_EQ(results[0].error().message, "ETS was not read before the change");
  EXPECT_TRUE(port.log.empty());
}

// A change refused whole is forgotten; one the kernel may apply in part stays journalled.
TEST(Journal, ForgetLastDropsOnlyTheLast) {
  Journal journal;
  journal.record("MTU", Mtu{9000}.undo(1500));
  journal.record("PFC", Pfc{dcb::Pfc{}}.undo(dcb::Pfc{}));
  journal.forget_last();
  ASSERT_EQ(journal.size(), 1u);
  EXPECT_EQ(journal.entries()[0].what, "MTU");
}

TEST(Journal, UnwindHandsEachEntryItsIndex) {
  Journal journal;
  journal.record("a", Undo::none());
  journal.record("b", Undo::none());
  std::vector<std::string> seen;
  journal.unwind([&](const Entry& entry, size_t index) {
    seen.push_back(entry.what + std::to_string(index));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"b1", "a0"}));
  EXPECT_TRUE(journal.empty());
}

// Adds first (DSCP trust never passes through PCP), then deletes what is left over under the
// priority it reads after the add.
TEST(DscpApps, AddsFirstThenDeletesWhatIsLeft) {
  FakePort port;
  port.table = {{5, 5, 26}, {5, 1, 10}};
  const std::vector<dcb::AppEntry> target = {{5, 3, 26}, {5, 0, 46}};
  ASSERT_TRUE(set_dscp_apps(port, target).ok());
  EXPECT_EQ(port.log,
            (std::vector<std::string>{"APP table: add DSCP 26 -> priority 3, DSCP 46 -> priority 0",
                                      "APP table: delete DSCP 10 -> priority 1"}));
  EXPECT_EQ(port.table.size(), 2u);
  EXPECT_EQ(port.table_reads, 2);
}

TEST(DscpApps, NothingToDoWritesNothing) {
  FakePort port;
  port.table = {{5, 3, 26}};
  ASSERT_TRUE(set_dscp_apps(port, port.table).ok());
  EXPECT_TRUE(port.log.empty());
}

// The APP table's undo brings a replaced entry back, which a delete of the added one would not.
TEST(DscpApps, TheUndoOfAnAddBringsTheReplacedEntryBack) {
  FakePort port;
  port.table = {{5, 5, 26}};
  const std::vector<dcb::AppEntry> before = port.table;
  Journal journal;
  const AppAdd add{{{5, 3, 26}, {5, 3, 46}}};
  journal.record("APP table", add.undo(before));
  ASSERT_TRUE(port.write(add).ok());
  const auto results = journal.undo_all(port);
  ASSERT_TRUE(results[0].ok());
  EXPECT_EQ(port.table, before);
}

}  // namespace
}  // namespace roced::write
