// SPDX-License-Identifier: Apache-2.0
// The conformance cases against roce-sim's model in this process, on every driver tree it
// models: the first port of the default node (Debian's 6.1) and of the Debian 6.12, MLNX_OFED and
// nic-kernel nodes, fresh for every case, its link training on the simulated clock.
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "conformance.hpp"
#include "driver/traits.hpp"
#include "sim/inprocess/in_process_node.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node_file.hpp"
#include "test/support/build_paths.hpp"

namespace roced::conformance {
namespace {

class SimPort : public PortUnderTest {
 public:
  // `node_file` empty: the default node. `modelled`: the traits the node models where roced
  // cannot tell them from what the node shows (nic-kernel); unset: as roced tells them.
  SimPort(const std::string& node_file, std::string netdev,
          std::optional<driver::Traits> modelled = std::nullopt)
      : netdev_(std::move(netdev)), modelled_(modelled) {
    // In memory where there is a tmpfs: a node's files are written at every start.
    char shm_pattern[] = "/dev/shm/roced-conformance-XXXXXX";
    char tmp_pattern[] = "/tmp/roced-conformance-XXXXXX";
    char* made = ::mkdtemp(shm_pattern);
    if (made == nullptr) made = ::mkdtemp(tmp_pattern);
    dir_ = made;
    node_ = std::make_unique<roce_sim::InProcessNode>(
        node_file.empty()
            ? roce_sim::default_node()
            : roce_sim::load_node_file(std::string(ROCED_SIM_NODES) + "/" + node_file),
        dir_, &time_);
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
  driver::Traits traits() override { return modelled_ ? *modelled_ : PortUnderTest::traits(); }

 private:
  roce_sim::SimulatedTime time_;  // first: the node listens to it
  std::filesystem::path dir_;
  std::unique_ptr<roce_sim::InProcessNode> node_;
  System system_;
  std::string netdev_;
  std::optional<driver::Traits> modelled_;
};

Target sim_target(std::string name, std::string node_file, std::string netdev,
                  std::optional<driver::Traits> modelled = std::nullopt) {
  return Target{std::move(name),
                [=] { return std::make_unique<SimPort>(node_file, netdev, modelled); }};
}

// roce-sim's nic-kernel node: the newest tree, on firmware with PCAM cable_length and QCAM's u16
// rate caps (sim/model/port_spec.hpp traits_of).
driver::Traits nic_kernel_as_modelled() {
  driver::Traits traits = driver::flavour_row(driver::Flavour::NicKernel).traits;
  traits.maxrate = driver::Maxrate::U16;
  return traits;
}

INSTANTIATE_TEST_SUITE_P(
    RoceSim, Mlx5Port,
    ::testing::Values(sim_target("debian_6_1", "", "lan2"),
                      sim_target("debian_6_12", "dual-port-debian-6.12.yaml", "ens1f0np0"),
                      sim_target("mlnx_ofed", "dual-port-ofed.yaml", "ens1f0np0"),
                      sim_target("nic_kernel", "dual-port-nic-kernel.yaml", "ens1f0np0",
                                 nic_kernel_as_modelled())),
    [](const ::testing::TestParamInfo<Target>& target) { return target.param.name; });

}  // namespace
}  // namespace roced::conformance
