// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's node in the test's own process (sim/inprocess) for one test: made in SetUp, its files
// in a scratch directory (in memory when there is a tmpfs), removed in TearDown, on a clock the
// test advances (time_). Override node_file() to run another node. Link roce_sim_inprocess.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "os/system.hpp"
#include "sim/inprocess/in_process_node.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node_file.hpp"

namespace roced::test {

class InProcessNode : public ::testing::Test {
 protected:
  // The node file to run; empty = the embedded default node (lan2..lan5).
  virtual std::string node_file() const { return {}; }
  // Changes the node's ports before the node starts. Links train at once (link_training_ms 0)
  // unless this sets otherwise: a test about training sets it and moves the clock through it.
  virtual void adjust(std::vector<roce_sim::PortSpec>& specs) const { (void)specs; }

  void SetUp() override {
    char shm_pattern[] = "/dev/shm/roced-inprocess-XXXXXX";
    char tmp_pattern[] = "/tmp/roced-inprocess-XXXXXX";
    char* made = ::mkdtemp(shm_pattern);
    if (made == nullptr) made = ::mkdtemp(tmp_pattern);
    ASSERT_NE(made, nullptr);
    dir_ = made;
    auto specs =
        node_file().empty() ? roce_sim::default_node() : roce_sim::load_node_file(node_file());
    for (auto& spec : specs) {
      if (!spec.link_training_ms) spec.link_training_ms = 0;
    }
    adjust(specs);
    node_ = std::make_unique<roce_sim::InProcessNode>(std::move(specs), dir_, &time_);
    system_ = node_->system();
  }
  void TearDown() override {
    system_ = System{};
    node_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  roce_sim::SimulatedTime time_;  // declared first: the node listens to it
  std::filesystem::path dir_;
  std::unique_ptr<roce_sim::InProcessNode> node_;
  System system_;
};

}  // namespace roced::test
