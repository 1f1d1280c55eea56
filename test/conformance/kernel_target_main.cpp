// SPDX-License-Identifier: Apache-2.0
// The conformance cases against this machine's kernel: the test module's port in the VM, or a
// real ConnectX port.
//
//   ROCED_CONFORMANCE_NETDEV=ens1f0np0 conformance_kernel      read-only: changing cases skip
//   ROCED_CONFORMANCE_WRITE=1           also the cases that change the port (not on a live one)
//   ROCED_CONFORMANCE_FRESH='cmd'       a shell command run before each case that gives the port
//                                       its driver's starting state (the VM reloads the module)
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "conformance.hpp"
#include "os/open_system.hpp"

namespace roced::conformance {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

class KernelPort : public PortUnderTest {
 public:
  KernelPort() : system_(real_system()), netdev_(env("ROCED_CONFORMANCE_NETDEV")) {}
  System& system() override { return system_; }
  const std::string& netdev() const override { return netdev_; }
  bool writable() const override { return env("ROCED_CONFORMANCE_WRITE") == "1"; }
  bool carrier_returns() override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    for (;;) {
      auto text = system_.files->read("/sys/class/net/" + netdev_ + "/carrier");
      if (text.ok() && text->rfind('1', 0) == 0) return true;
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  System system_;
  std::string netdev_;
};

std::unique_ptr<PortUnderTest> open_kernel_port() {
  if (const std::string fresh = env("ROCED_CONFORMANCE_FRESH"); !fresh.empty()) {
    if (std::system(fresh.c_str()) != 0) {
      ADD_FAILURE() << "ROCED_CONFORMANCE_FRESH failed: " << fresh;
      return nullptr;
    }
  }
  auto port = std::make_unique<KernelPort>();
  if (port->writable() && !port->carrier_returns()) {
    ADD_FAILURE() << port->netdev() << ": no carrier";
    return nullptr;
  }
  return port;
}

INSTANTIATE_TEST_SUITE_P(Kernel, Mlx5Port, ::testing::Values(Target{"kernel", open_kernel_port}),
                         [](const ::testing::TestParamInfo<Target>& target) {
                           return target.param.name;
                         });

}  // namespace
}  // namespace roced::conformance

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (roced::conformance::env("ROCED_CONFORMANCE_NETDEV").empty()) {
    std::fprintf(stderr, "conformance_kernel: set ROCED_CONFORMANCE_NETDEV to the port to test\n");
    return 2;
  }
  return RUN_ALL_TESTS();
}
