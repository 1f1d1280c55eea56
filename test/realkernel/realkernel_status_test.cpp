// SPDX-License-Identifier: Apache-2.0
// `rocectl status` on a real kernel: a veth pair in a fresh network namespace. A veth has a link
// and an MTU but no DCB (net/dcb/dcbnl.c: dcb_doit returns -EOPNOTSUPP without dcbnl_ops), which
// must be reported per field with a clear message while the command still succeeds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

using nlohmann::json;
using test::run_command;

const std::string kRocectl = ROCECTL_BINARY;

// A network namespace with a veth pair; deleted on destruction, whatever happened.
class VethNamespace {
 public:
  VethNamespace() : name_("roced-rk-" + std::to_string(::getpid())) {
    run_command({"ip", "netns", "del", name_});  // a leftover of a crashed run with this pid
    created_ = ip({"netns", "add", name_});
  }
  ~VethNamespace() {
    if (created_) run_command({"ip", "netns", "del", name_});
  }
  VethNamespace(const VethNamespace&) = delete;
  VethNamespace& operator=(const VethNamespace&) = delete;

  bool created() const { return created_; }
  const std::string& name() const { return name_; }
  // `ip -n NS ARGS...`; the failure text goes to the test log.
  bool ip_in(std::vector<std::string> args) {
    args.insert(args.begin(), {"-n", name_});
    return ip(std::move(args));
  }

 private:
  static bool ip(std::vector<std::string> args) {
    args.insert(args.begin(), "ip");
    auto result = run_command(args);
    if (result.exit_code != 0) {
      ADD_FAILURE() << "ip command failed (" << result.exit_code << "): " << result.err;
    }
    return result.exit_code == 0;
  }
  std::string name_;
  bool created_ = false;
};

TEST(RealKernel, RunsAsRoot) {
  ASSERT_EQ(::geteuid(), 0u)
      << "the real-kernel tests create a network namespace and a veth pair: run them as root "
         "(CI does). They are not skipped without root: this failure is the report.";
}

TEST(RealKernel, VethShowsLinkAndMtuAndDcbAsUnsupported) {
  ASSERT_EQ(::geteuid(), 0u) << "needs root to create a network namespace (see RunsAsRoot)";
  VethNamespace ns;
  ASSERT_TRUE(ns.created());
  ASSERT_TRUE(ns.ip_in({"link", "add", "vethA", "type", "veth", "peer", "name", "vethB"}));
  ASSERT_TRUE(ns.ip_in({"link", "set", "vethA", "mtu", "9000"}));
  ASSERT_TRUE(ns.ip_in({"link", "set", "vethB", "up"}));
  ASSERT_TRUE(ns.ip_in({"link", "set", "vethA", "up"}));

  auto result = run_command(
      {"ip", "netns", "exec", ns.name(), kRocectl, "status", "--json", "--port", "vethA"});
  ASSERT_EQ(result.exit_code, 0) << "stderr: " << result.err << "\nstdout: " << result.out;
  const json report = json::parse(result.out);
  ASSERT_EQ(report["ports"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["ports"][0]["netdev"], "vethA");
  const json& port = report["ports"][0]["observed"];  // what rocectl read
  EXPECT_EQ(port["mlx5"], false);

  const json& link = port["link"];
  ASSERT_FALSE(link.contains("error")) << link.dump();
  EXPECT_EQ(link["mtu"], 9000);
  EXPECT_EQ(link["kind"], "veth");
  EXPECT_EQ(link["admin_up"], true);
  // Both ends are up, so the carrier is on; the state is "up" (or "lowerlayerdown" while the
  // peer comes up, which never fails the command).
  EXPECT_TRUE(link["state"] == "up" || link["state"] == "lowerlayerdown") << link.dump();

  const std::string dcb_message = "unsupported: DCB is not supported by this device (EOPNOTSUPP)";
  for (const char* field : {"dcbx", "trust", "dscp_map", "pfc", "ets"}) {
    SCOPED_TRACE(field);
    EXPECT_EQ(port[field]["error"], dcb_message) << port[field].dump();
    EXPECT_EQ(port[field]["errno"], "EOPNOTSUPP");
    EXPECT_EQ(port[field]["unsupported"], true);
  }
  EXPECT_EQ(port["driver_info"]["driver"], "veth") << port["driver_info"].dump();
  EXPECT_EQ(port["gids"]["error"], "absent: no RDMA device for vethA");

  // The text form says the same in one line, and still exits 0.
  auto text =
      run_command({"ip", "netns", "exec", ns.name(), kRocectl, "status", "--port", "vethA"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("mtu 9000"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  dcb      " + dcb_message), std::string::npos) << text.out;
}

TEST(RealKernel, NoMlx5PortInAnEmptyNamespaceIsExitOne) {
  ASSERT_EQ(::geteuid(), 0u) << "needs root to create a network namespace (see RunsAsRoot)";
  VethNamespace ns;
  ASSERT_TRUE(ns.created());
  auto result = run_command({"ip", "netns", "exec", ns.name(), kRocectl, "status"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("no mlx5 port found on this machine"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace roced
