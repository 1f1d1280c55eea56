// SPDX-License-Identifier: Apache-2.0
#include "probe/window.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace roced::probe {

void PathWindow::add(Outcome outcome) {
  // Fates are learnt out of order (a loss only at its timeout): kept sorted by when learnt.
  if (outcome.lost) ++losses_;
  outcomes_.push_back(outcome);
  trim(outcome.at);
}

void PathWindow::answered(TimePoint at, std::chrono::nanoseconds network_rtt) {
  add({at, false, network_rtt});
}

void PathWindow::answered_untimed(TimePoint at) { add({at, false, std::nullopt}); }

void PathWindow::lost(TimePoint at) { add({at, true, std::nullopt}); }

void PathWindow::trim(TimePoint now) {
  while (!outcomes_.empty() && now - outcomes_.front().at > span_) {
    if (outcomes_.front().lost) --losses_;
    outcomes_.pop_front();
  }
}

double PathWindow::loss_ratio() const {
  return outcomes_.empty() ? 0.0
                           : static_cast<double>(losses_) / static_cast<double>(outcomes_.size());
}

std::optional<std::chrono::nanoseconds> PathWindow::rtt_quantile(double quantile) const {
  std::vector<std::chrono::nanoseconds> rtts;
  for (const Outcome& outcome : outcomes_) {
    if (outcome.rtt) rtts.push_back(*outcome.rtt);
  }
  if (rtts.empty()) return std::nullopt;
  const double clamped = std::clamp(quantile, 0.0, 1.0);
  size_t rank = static_cast<size_t>(std::ceil(clamped * static_cast<double>(rtts.size())));
  rank = std::clamp<size_t>(rank, 1, rtts.size());
  std::nth_element(rtts.begin(), rtts.begin() + static_cast<std::ptrdiff_t>(rank - 1), rtts.end());
  return rtts[rank - 1];
}

}  // namespace roced::probe
