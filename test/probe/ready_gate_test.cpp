// SPDX-License-Identifier: Apache-2.0
// The probe loop's gate: a transport with fds is polled only after poll(2) saw one ready.
#include "daemon/probe/ready_gate.hpp"

#include <gtest/gtest.h>

namespace roced::probe_module {
namespace {

class CountingTransport : public probe::ProbeTransport {
 public:
  explicit CountingTransport(std::vector<int> fds, int& polls)
      : fds_(std::move(fds)), polls_(polls) {}
  Result<void> post(const probe::Remote&, const probe::MessageBytes&, uint32_t, uint64_t) override {
    return ok();
  }
  void poll(std::vector<probe::Completion>&) override { ++polls_; }
  std::vector<int> fds() const override { return fds_; }

 private:
  std::vector<int> fds_;
  int& polls_;
};

TEST(ReadyGate, PollsOnlyAfterOneOfItsFdsWasReady) {
  int polls = 0;
  ReadyGate gate(std::make_unique<CountingTransport>(std::vector<int>{7, 9}, polls));
  std::vector<probe::Completion> out;
  gate.poll(out);  // the first turn looks
  gate.poll(out);  // nothing seen ready since
  EXPECT_EQ(polls, 1);

  const pollfd quiet[] = {{7, POLLIN, 0}, {9, POLLIN, 0}, {11, POLLIN, POLLIN}};
  gate.open_if_ready(quiet);  // fd 11 is another transport's
  gate.poll(out);
  EXPECT_EQ(polls, 1);

  const pollfd ready[] = {{7, POLLIN, 0}, {9, POLLIN, POLLIN}};
  gate.open_if_ready(ready);
  gate.poll(out);
  gate.poll(out);
  EXPECT_EQ(polls, 2);

  gate.open();  // poll(2) itself failed: every transport is looked at
  gate.poll(out);
  EXPECT_EQ(polls, 3);
}

TEST(ReadyGate, ATransportWithoutFdsIsPolledEveryTime) {
  int polls = 0;
  ReadyGate gate(std::make_unique<CountingTransport>(std::vector<int>{}, polls));
  std::vector<probe::Completion> out;
  for (int i = 0; i < 3; ++i) gate.poll(out);
  EXPECT_EQ(polls, 3);
}

}  // namespace
}  // namespace roced::probe_module
