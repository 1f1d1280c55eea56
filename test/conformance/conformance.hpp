// SPDX-License-Identifier: Apache-2.0
#pragma once
// How an mlx5 port answers dcbnl and ethtool, written once (cases.cpp) and run against every
// target: roce-sim's model on the host (sim_target_test.cpp), the test kernel module in the VM,
// and a real ConnectX port, read-only unless asked (kernel_target_main.cpp). Where two targets
// disagree, one of them is wrong: the kernel sources decide which.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "driver/traits.hpp"
#include "os/system.hpp"

namespace roced::conformance {

// One port under test, in the state its driver starts in when the target can give a fresh one.
class PortUnderTest {
 public:
  virtual ~PortUnderTest() = default;
  virtual System& system() = 0;
  virtual const std::string& netdev() const = 0;
  // False for a port in use (a real NIC unless ROCED_CONFORMANCE_WRITE=1): only reads then.
  virtual bool writable() const = 0;
  // Lets the link train after a driver toggle (simulated time, or real time up to a bound);
  // true when the carrier is back.
  virtual bool carrier_returns() = 0;
  // How the port's driver tree behaves where the trees differ: as roced tells it from what the
  // host shows (driver/detect.cpp), unless the target knows better (a tree roced cannot tell).
  virtual driver::Traits traits();
};

struct Target {
  std::string name;
  std::function<std::unique_ptr<PortUnderTest>()> open;
};
inline void PrintTo(const Target& target, std::ostream* os) { *os << target.name; }

class Mlx5Port : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    port_ = GetParam().open();
    ASSERT_NE(port_, nullptr) << GetParam().name << ": no port";
  }
  PortUnderTest& port() { return *port_; }

 private:
  std::unique_ptr<PortUnderTest> port_;
};

// A case that changes the port: reported skipped (never passed) on a read-only target.
#define CONFORMANCE_REQUIRE_WRITES()                                             \
  if (!port().writable()) {                                                      \
    GTEST_SKIP() << "changes the port: set ROCED_CONFORMANCE_WRITE=1 to run it"; \
  }

}  // namespace roced::conformance
