// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the probes of one path (a local port to a peer) saw over the last `span`: how many were
// sent and answered, and the network RTT of those answered. A probe counts when its fate is
// known: answered, or lost once its timeout passed, so a probe still in flight never reads as
// a loss.
#include <chrono>
#include <cstddef>
#include <deque>
#include <optional>

namespace roced::probe {

class PathWindow {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit PathWindow(std::chrono::seconds span) : span_(span) {}

  void answered(TimePoint at, std::chrono::nanoseconds network_rtt);
  // Answered, with times that could not be trusted (probe/rtt.hpp): no loss, no RTT.
  void answered_untimed(TimePoint at);
  void lost(TimePoint at);
  // Forgets what is older than the span before `now`.
  void trim(TimePoint now);

  size_t probes() const { return outcomes_.size(); }
  size_t losses() const { return losses_; }
  double loss_ratio() const;
  // The RTT below which `quantile` of the timed answers lie (nearest rank); empty without any.
  std::optional<std::chrono::nanoseconds> rtt_quantile(double quantile) const;

 private:
  struct Outcome {
    TimePoint at;
    bool lost;
    std::optional<std::chrono::nanoseconds> rtt;
  };
  void add(Outcome outcome);

  std::chrono::seconds span_;
  std::deque<Outcome> outcomes_;  // in time order
  size_t losses_ = 0;
};

}  // namespace roced::probe
