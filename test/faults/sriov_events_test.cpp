// SPDX-License-Identifier: Apache-2.0
// SR-IOV changed under a running roced (roce-sim's vfs event: sriov_numvfs written on lan2, whose
// e-switch is in switchdev mode): VFs and their representors come and go with new ifindexes while
// roced selects its ports by a glob their names match. It writes none of them and keeps its four
// ports in sync.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "fault_harness.hpp"
#include "test/support/build_paths.hpp"

namespace roced::test {
namespace {

class SriovAtRunTime : public RocedUnderFault {
 protected:
  // The default node with two VFs on lan2 in switchdev mode, written beside the node's files.
  std::string node_file() const override {
    std::ifstream in(std::string(ROCED_SIM_NODES) + "/default.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::string node = text.str();
    const size_t lan2 = node.find("netdev: lan2\n");
    const size_t addresses = node.find("addresses:", lan2);
    if (lan2 == std::string::npos || addresses == std::string::npos) return {};
    const size_t line_start = node.rfind('\n', addresses) + 1;
    const std::string indent = node.substr(line_start, addresses - line_start);
    node.insert(node.find('\n', addresses) + 1,
                indent + "vfs: 2\n" + indent + "eswitch: switchdev\n");
    const std::string path = dir_.string() + "/node.yaml";
    std::ofstream(path) << node;
    return path;
  }
  void SetUp() override {
    RocedUnderFault::SetUp();
    if (HasFatalFailure()) return;
    std::string config = fault_config();
    config.replace(config.find("[lan2, lan3, lan4, lan5]"), 24, "[\"lan*\"]");
    write_file(config_, config);
  }
  bool exists(const std::string& netdev) const {
    return std::filesystem::exists(dir_ / "sys/class/net" / netdev);
  }
  // Events reach roced in order: once a foreign change to lan3 after them is corrected, roced
  // has handled the links that came and went before it.
  void await_roced_past_link_events() {
    const std::string series = "roce_config_corrections_total{netdev=\"lan3\",setting=\"mtu\"}";
    const double before = metric(scrape(), series).value_or(0);
    const auto played =
        inject("events: [{at: 0s, kind: foreign_tool, port: lan3, set: {mtu: 1500}}]\n");
    ASSERT_EQ(played.exit_code, 0) << played.err;
    ASSERT_TRUE(eventually([&] { return metric(scrape(), series).value_or(0) > before; }))
        << scrape() << log();
    ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2) << log();
  }
};

TEST_F(SriovAtRunTime, VfsAndRepresentorsThatComeAndGoAreNeverWritten) {
  const std::vector<std::string> functions = {"lan2v0", "lan2v1", "lan2npf0vf0", "lan2npf0vf1"};
  for (const auto& name : functions) ASSERT_TRUE(exists(name)) << name;
  start_roced();
  ASSERT_TRUE(eventually([&] { return all_in_sync(); })) << status().dump(2) << log();

  ASSERT_EQ(inject("events: [{at: 0s, kind: vfs, port: lan2, count: 0}]\n").exit_code, 0);
  ASSERT_TRUE(eventually([&] {
    return std::none_of(functions.begin(), functions.end(),
                        [&](const std::string& name) { return exists(name); });
  }));
  EXPECT_TRUE(eventually(
      [&] { return read_file(dir_ / "sys/bus/pci/devices/0000:17:00.0/sriov_numvfs") == "0\n"; }));
  ASSERT_NO_FATAL_FAILURE(await_roced_past_link_events());

  ASSERT_EQ(inject("events: [{at: 0s, kind: vfs, port: lan2, count: 2}]\n").exit_code, 0);
  ASSERT_TRUE(eventually([&] {
    return std::all_of(functions.begin(), functions.end(),
                       [&](const std::string& name) { return exists(name); });
  }));
  EXPECT_TRUE(eventually(
      [&] { return read_file(dir_ / "sys/bus/pci/devices/0000:17:00.0/sriov_numvfs") == "2\n"; }));
  ASSERT_NO_FATAL_FAILURE(await_roced_past_link_events());

  auto writes = read_writes(dir_);
  for (const auto& name : functions) {
    EXPECT_EQ(writes[name], 0u) << name << " was written";
    EXPECT_FALSE(contains(log(), name + ": ")) << log();
  }
  EXPECT_EQ(status().at("ports").size(), 4u) << status().dump(2);
  expect_still_serving();
}

// A VF named in ports.netdevs that appears later (sriov_numvfs written) is configured, and the
// status stops listing it as missing when it appears, not at the next drift check (an hour
// here): "said again when that changes".
class NamedVfAppearsLater : public SriovAtRunTime {
 protected:
  void SetUp() override {
    SriovAtRunTime::SetUp();
    if (HasFatalFailure()) return;
    std::string config = fault_config();
    config.replace(config.find("300ms"), 5, "1h");
    config.replace(config.find("[lan2, lan3, lan4, lan5]"), 24, "[lan2, lan3, lan4, lan5, lan2v1]");
    write_file(config_, config);
  }
  // Every port roced manages in sync, and `count` of them.
  bool in_sync(size_t count) const {
    const Json all = status();
    if (all.is_null() || all.at("ports").size() != count) return false;
    return std::all_of(all.at("ports").begin(), all.at("ports").end(),
                       [](const Json& port) { return port.at("condition") == "in-sync"; });
  }
  bool unmatched(const std::string& text) const {
    const Json doc = status();
    if (doc.is_null()) return false;
    for (const auto& entry : doc.at("unmatched")) {
      if (contains(entry.get<std::string>(), text)) return true;
    }
    return false;
  }
};

TEST_F(NamedVfAppearsLater, IsConfiguredAndNoLongerListedAsMissing) {
  ASSERT_EQ(inject("events: [{at: 0s, kind: vfs, port: lan2, count: 0}]\n").exit_code, 0);
  ASSERT_TRUE(eventually([&] { return !exists("lan2v1"); }));
  start_roced();
  ASSERT_TRUE(eventually([&] { return in_sync(4); })) << status().dump(2) << log();
  EXPECT_TRUE(unmatched("lan2v1")) << status().dump(2);

  ASSERT_EQ(inject("events: [{at: 0s, kind: vfs, port: lan2, count: 2}]\n").exit_code, 0);
  ASSERT_TRUE(eventually([&] { return in_sync(5); })) << status().dump(2) << log();
  EXPECT_FALSE(unmatched("lan2v1")) << status().dump(2);
}

}  // namespace
}  // namespace roced::test
