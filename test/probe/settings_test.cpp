// SPDX-License-Identifier: Apache-2.0
#include "probe/settings.hpp"

#include <gtest/gtest.h>

namespace roced::probe {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> fields(const ProbeSettings& settings) {
  std::vector<std::string> out;
  for (const ProbeProblem& problem : settings.validate()) out.push_back(problem.field);
  return out;
}

TEST(ProbeSettings, OffByDefaultAndUsableAsShipped) {
  const ProbeSettings settings;
  EXPECT_FALSE(settings.enabled);
  EXPECT_TRUE(settings.validate().empty());
}

TEST(ProbeSettings, OnWithoutPeersSaysWhatToDo) {
  ProbeSettings settings;
  settings.enabled = true;
  const auto problems = settings.validate();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].field, "peers");
  EXPECT_NE(problems[0].message.find("names no peer"), std::string::npos);
}

TEST(ProbeSettings, EachBadPeerIsNamedByItsPlaceInTheList) {
  ProbeSettings settings;
  settings.enabled = true;
  settings.peers = {{"10.0.0.1", "leaf-1"},
                    {"10.0.0.300", "leaf-1"},
                    {"fe80::1", "leaf 2"},
                    {"10.0.0.1", "leaf-1"}};
  EXPECT_EQ(fields(settings),
            (std::vector<std::string>{"peers[1].address", "peers[2].group", "peers[3].address"}));
  EXPECT_EQ(settings.validate()[0].message, "'10.0.0.300' is not an IPv4 or IPv6 address");
  EXPECT_EQ(settings.validate()[2].message, "10.0.0.1 is listed twice");
}

TEST(ProbeSettings, RangesAreChecked) {
  ProbeSettings settings;
  settings.rate = 0;
  settings.budget = 1e9;
  settings.loss_ratio = 1.5;
  settings.rtt_p99 = 0us;
  settings.window = 2s;
  settings.timeout = 5ms;
  settings.q_key = 0x80000001;
  EXPECT_EQ(fields(settings), (std::vector<std::string>{"rate", "budget", "loss_ratio", "rtt_p99",
                                                        "window", "timeout", "q_key"}));
  settings = {};
  settings.window = 5s;
  settings.timeout = 5s;
  EXPECT_EQ(fields(settings), (std::vector<std::string>{"timeout"}));
}

}  // namespace
}  // namespace roced::probe
