// SPDX-License-Identifier: Apache-2.0
#pragma once
// A roce-sim server in a scratch directory for one test: started in SetUp (ready once its pid
// file exists), stopped and removed in TearDown. Override node_file() / scenario_file() to run
// another node or a scenario.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "exec_image.hpp"
#include "test/support/build_paths.hpp"

namespace roced::test {

class SimNode : public ::testing::Test {
 protected:
  // The node file to run; empty = the embedded default node (lan2..lan5).
  virtual std::string node_file() const { return {}; }
  // A scenario to run from the start; empty = none (a steady node).
  virtual std::string scenario_file() const { return {}; }
  // Every port's link training after a PFC toggle, in ms; none = the node's (seconds). At once
  // by default: these tests run on real time, and roced waits for each flapped port's carrier
  // before it flaps the next; link training is modelled on virtual time (InProcessNode).
  virtual std::optional<uint32_t> link_training_ms() const { return 0; }
  // Sets only from clients with CAP_NET_ADMIN, as the kernel takes them (--enforce-capabilities).
  virtual bool enforce_capabilities() const { return false; }

  void SetUp() override {
    // In memory when there is a tmpfs, as sysfs is: on a disk the simulator's 10 Hz file refresh
    // costs journal writes.
    char shm_pattern[] = "/dev/shm/roced-sim-test-XXXXXX";
    char tmp_pattern[] = "/tmp/roced-sim-test-XXXXXX";
    char* made = ::mkdtemp(shm_pattern);
    if (made == nullptr) made = ::mkdtemp(tmp_pattern);
    ASSERT_NE(made, nullptr);
    dir_ = made;
    std::vector<std::string> args = {ROCE_SIM_BINARY, "run", "--dir", dir_.string(), "--quiet"};
    if (!node_file().empty()) {
      args.push_back("--node");
      args.push_back(node_file());
    }
    if (!scenario_file().empty()) {
      args.push_back("--scenario");
      args.push_back(scenario_file());
    }
    if (const auto training = link_training_ms()) {
      args.push_back("--link-training");
      args.push_back(std::to_string(*training));
    }
    if (enforce_capabilities()) args.push_back("--enforce-capabilities");
    const ExecImage image(args);
    server_ = ::fork();
    ASSERT_GE(server_, 0);
    if (server_ == 0) {
      image.exec();
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(dir_ / "roce-sim.pid")) {
      int status = 0;
      ASSERT_EQ(::waitpid(server_, &status, WNOHANG), 0) << "roce-sim exited during start-up";
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "roce-sim did not become ready";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  void TearDown() override {
    if (server_ > 0) {
      ::kill(server_, SIGTERM);
      int status = 0;
      ::waitpid(server_, &status, 0);
    }
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  pid_t server_ = -1;
};

}  // namespace roced::test
