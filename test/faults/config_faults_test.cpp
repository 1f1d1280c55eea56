// SPDX-License-Identifier: Apache-2.0
// Fault 4: the configuration file truncated, or replaced, while roced reloads it (SIGHUP).
#include <cstdio>

#include "fault_harness.hpp"

namespace roced::test {
namespace {

class ConfigFaults : public RocedUnderFault {
 protected:
  std::map<std::string, uint64_t> writes_now() const {
    exec({"ip", "link", "show", "lan2"});  // a netlink request: the node's barrier for file writes
    return read_writes(dir_);
  }
};

TEST_F(ConfigFaults, ATruncatedFileIsRefusedWithItsPlaceAndTheRunningConfigurationKept) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues wanted_values = wanted();
  const auto writes_before = writes_now();

  // Cut in the middle of a flow sequence, as a copy that ran out of disk would leave it.
  const std::string full = fault_config(25);
  const std::string cut = full.substr(0, full.find("lan4") + 2);
  write_file(config_, cut);
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  ASSERT_TRUE(eventually([&] { return contains(log(), "keeping the running configuration"); }))
      << log();
  // file:line:column, the line and column inside the cut file.
  const std::string place = config_.string() + ":";
  const auto at = log().find(place);
  ASSERT_NE(at, std::string::npos) << log();
  int line = 0, column = 0;
  EXPECT_EQ(std::sscanf(log().c_str() + at + place.size(), "%d:%d", &line, &column), 2) << log();
  EXPECT_GE(line, 4) << log();
  EXPECT_GT(column, 0) << log();

  // Nothing written, every port as it was.
  std::this_thread::sleep_for(1s);  // a few drift checks: they must not act on the cut file
  const auto writes_after = writes_now();
  EXPECT_EQ(writes_after.at("total"), writes_before.at("total"));
  for (const auto& netdev : kPorts) EXPECT_EQ(read_port(netdev), wanted_values) << netdev;
  expect_still_serving();
}

TEST_F(ConfigFaults, AFileReplacedDuringReloadsGivesTheOldOrTheNewProfileNeverAMix) {
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << log();
  const PortValues old_values = wanted();

  // Two complete files that differ in two settings; each replacement is a rename (how editors
  // and configuration tools write), racing with a SIGHUP each time.
  std::string other = fault_config(25);
  other.replace(other.find("mtu: 9000"), 9, "mtu: 4200");
  const fs::path old_file = dir_ / "old.yaml", new_file = dir_ / "new.yaml";
  write_file(old_file, fault_config(10));
  write_file(new_file, other);
  for (int round = 0; round < 40; ++round) {
    const fs::path& source = round % 2 == 0 ? new_file : old_file;
    fs::copy_file(source, dir_ / "next.yaml", fs::copy_options::overwrite_existing);
    ASSERT_EQ(::kill(pid_, SIGHUP), 0);
    fs::rename(dir_ / "next.yaml", config_);
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 5 * 7));
  }
  // The last file in place is the old profile: one more reload settles on it.
  ASSERT_EQ(::kill(pid_, SIGHUP), 0);
  ASSERT_TRUE(eventually([&] { return all_in_sync() && read_port("lan5") == old_values; }))
      << status().dump(2) << log();
  EXPECT_FALSE(contains(log(), "reload of")) << "a reload failed:\n" << log();
  for (const auto& netdev : kPorts) EXPECT_EQ(read_port(netdev), old_values) << netdev;
  expect_still_serving();
}

}  // namespace
}  // namespace roced::test
