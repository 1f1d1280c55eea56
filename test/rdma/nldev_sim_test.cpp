// SPDX-License-Identifier: Apache-2.0
// RDMA netlink against a running roce-sim: roced's reader, iproute2's `rdma` and the hw_counters
// files must agree, and a device registered again after a driver reload (a new index) is found.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "rdma/hw_counters.hpp"
#include "rdma/nldev.hpp"
#include "sim/transport/simulated_system.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced::rdma {
namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
bool eventually(F condition) {
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

// The counter values of `rdma -j statistic show link DEV/PORT`: [{"ifname":..,"port":..,NAME:N}].
CounterValues parse_rdma_tool_json(const std::string& json) {
  CounterValues values;
  static const std::regex entry(R"re("([a-z0-9_]+)":([0-9]+))re");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), entry);
       it != std::sregex_iterator(); ++it) {
    if ((*it)[1] != "port") values[(*it)[1]] = std::stoull((*it)[2]);
  }
  return values;
}

class RdmaNetlink : public test::SimNode {
 protected:
  std::string scenario_file() const override {
    return std::string(ROCED_RDMA_TEST_DATA) + "/rdma-counters.yaml";
  }
  void SetUp() override {
    test::SimNode::SetUp();
    system_ = roce_sim::simulated_system(dir_);
  }
  System system_;
};

TEST_F(RdmaNetlink, TheDeviceListNamesEveryPortsDevice) {
  auto socket = system_.open_rdma_netlink();
  ASSERT_TRUE(socket) << socket.error().message;
  auto devices = list_nldev_devices(**socket);
  ASSERT_TRUE(devices) << devices.error().message;
  std::vector<std::string> names;
  for (const auto& device : *devices) {
    names.push_back(device.name);
    EXPECT_EQ(device.ports, 1u) << device.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
}

TEST_F(RdmaNetlink, CountersAgreeWithTheFilesAndTheRdmaTool) {
  NldevCounterReader reader(system_);
  ASSERT_TRUE(reader.available());
  const std::vector<std::pair<std::string, int>> port = {{"mlx5_0", 1}};
  CounterValues from_netlink;
  // The files follow the model at 10 Hz: once the congestion is over they hold still and agree.
  const bool agreed = eventually([&] {
    auto answers = reader.read(port);
    if (!answers || answers->size() != 1 || !(*answers)[0]) return false;
    from_netlink = *(*answers)[0];
    auto from_files = read_hw_counters(*system_.files, "mlx5_0", 1);
    return from_files && *from_files == from_netlink && from_netlink["np_cnp_sent"] > 0;
  });
  ASSERT_TRUE(agreed) << "np_cnp_sent by netlink: " << from_netlink["np_cnp_sent"];
  EXPECT_EQ(from_netlink.size(), 28u);

  const auto tool = test::sim_exec(dir_, {"rdma", "-j", "statistic", "show", "link", "mlx5_0/1"});
  ASSERT_EQ(tool.exit_code, 0) << tool.err;
  EXPECT_EQ(parse_rdma_tool_json(tool.out), from_netlink) << tool.out;
}

TEST_F(RdmaNetlink, ADeviceRegisteredAgainIsFoundUnderItsNewIndex) {
  NldevCounterReader reader(system_);
  ASSERT_TRUE(reader.available());
  auto socket = system_.open_rdma_netlink();
  ASSERT_TRUE(socket);
  auto before = list_nldev_devices(**socket);
  ASSERT_TRUE(before);
  const std::vector<std::pair<std::string, int>> ports = {{"mlx5_1", 1}, {"mlx5_2", 1}};
  auto first = reader.read(ports);
  ASSERT_TRUE(first && (*first)[0]);  // the reader has learnt mlx5_1's first index, 1
  // A driver reload of lan3 registers mlx5_1 again: index 4, the next the kernel allocates.
  const auto reload = dir_ / "reload.yaml";
  std::ofstream(reload)
      << "events:\n  - {at: 0s, kind: driver_reload, port: lan3, down_for: 100ms}\n";
  const auto injected =
      test::run_command({ROCE_SIM_BINARY, "inject", dir_.string(), reload.string()});
  ASSERT_EQ(injected.exit_code, 0) << injected.err;
  const bool moved = eventually([&] {
    auto now = list_nldev_devices(**socket);
    if (!now) return false;
    for (const auto& device : *now) {
      if (device.name == "mlx5_1") return device.index == 4;
    }
    return false;
  });
  ASSERT_TRUE(moved);
  const bool read = eventually([&] {
    auto answers = reader.read(ports);
    return answers && answers->size() == 2 && (*answers)[0] && (*answers)[1] &&
           (*answers)[0]->count("np_cnp_sent");
  });
  EXPECT_TRUE(read);
}

TEST_F(RdmaNetlink, AnUnknownIndexOrPortIsTheKernelsEinval) {
  auto socket = system_.open_rdma_netlink();
  ASSERT_TRUE(socket);
  const std::vector<PortCountersRequest> requests = {
      {0, "mlx5_0", 1}, {0, "mlx5_0", 2}, {77, "mlx5_9", 1}, {1, "mlx5_0", 1}};
  auto answers = read_port_counters(**socket, requests, std::chrono::seconds(30));
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_TRUE(answers[0]);
  ASSERT_FALSE(answers[1]);
  EXPECT_EQ(answers[1].error().code, EINVAL);
  ASSERT_FALSE(answers[2]);
  EXPECT_EQ(answers[2].error().code, EINVAL);
  ASSERT_FALSE(answers[3]);  // index 1 is mlx5_1: the answer names another device
  EXPECT_EQ(answers[3].error().code, ESTALE) << answers[3].error().message;
}

}  // namespace
}  // namespace roced::rdma
