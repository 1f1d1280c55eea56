// SPDX-License-Identifier: Apache-2.0
// What roced says at start about the capabilities it holds.
#include "daemon/service/capability_check.hpp"

#include <gtest/gtest.h>
#include <linux/capability.h>

namespace roced::service {
namespace {

constexpr uint64_t bit(int capability) { return uint64_t{1} << capability; }

TEST(CapabilityCheck, NetAdminAndNetRawAreAllItNeeds) {
  const CapabilityCheck check = check_capabilities(bit(CAP_NET_ADMIN) | bit(CAP_NET_RAW));
  EXPECT_FALSE(check.fatal);
  EXPECT_FALSE(check.warning);
}

TEST(CapabilityCheck, WithoutNetAdminItWillNotStartAndSaysWhatItHolds) {
  const CapabilityCheck check = check_capabilities(bit(CAP_NET_RAW));
  ASSERT_TRUE(check.fatal);
  EXPECT_NE(check.fatal->find("roced needs CAP_NET_ADMIN"), std::string::npos) << *check.fatal;
  EXPECT_NE(check.fatal->find("it holds CAP_NET_RAW"), std::string::npos) << *check.fatal;
}

TEST(CapabilityCheck, WithoutNetRawItRunsWithoutListeningForLldp) {
  const CapabilityCheck check = check_capabilities(bit(CAP_NET_ADMIN));
  EXPECT_FALSE(check.fatal);
  ASSERT_TRUE(check.warning);
  EXPECT_NE(check.warning->find("CAP_NET_RAW"), std::string::npos) << *check.warning;
  EXPECT_NE(check.warning->find("not_listening"), std::string::npos) << *check.warning;
}

}  // namespace
}  // namespace roced::service
