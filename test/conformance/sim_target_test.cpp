// SPDX-License-Identifier: Apache-2.0
// The conformance cases against roce-sim's model in this process: the default node's lan2 (the
// inbox driver), fresh for every case, its link training on the simulated clock.
#include <unistd.h>

#include <filesystem>

#include "conformance.hpp"
#include "sim/inprocess/in_process_node.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node_file.hpp"

namespace roced::conformance {
namespace {

class SimPort : public PortUnderTest {
 public:
  SimPort() {
    // In memory where there is a tmpfs: a node's files are written at every start.
    char shm_pattern[] = "/dev/shm/roced-conformance-XXXXXX";
    char tmp_pattern[] = "/tmp/roced-conformance-XXXXXX";
    char* made = ::mkdtemp(shm_pattern);
    if (made == nullptr) made = ::mkdtemp(tmp_pattern);
    dir_ = made;
    node_ = std::make_unique<roce_sim::InProcessNode>(roce_sim::default_node(), dir_, &time_);
    system_ = node_->system();
  }
  ~SimPort() override {
    system_ = System{};
    node_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  System& system() override { return system_; }
  const std::string& netdev() const override { return netdev_; }
  bool writable() const override { return true; }
  bool carrier_returns() override {
    time_.advance(std::chrono::seconds(10));
    auto text = system_.files->read("/sys/class/net/" + netdev_ + "/carrier");
    return text.ok() && text->rfind('1', 0) == 0;
  }

 private:
  roce_sim::SimulatedTime time_;  // first: the node listens to it
  std::filesystem::path dir_;
  std::unique_ptr<roce_sim::InProcessNode> node_;
  System system_;
  std::string netdev_ = "lan2";
};

INSTANTIATE_TEST_SUITE_P(
    RoceSim, Mlx5Port,
    ::testing::Values(Target{"roce_sim", [] { return std::make_unique<SimPort>(); }}),
    [](const ::testing::TestParamInfo<Target>& target) { return target.param.name; });

}  // namespace
}  // namespace roced::conformance
