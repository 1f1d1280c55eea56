// SPDX-License-Identifier: Apache-2.0
#include "health/counter_window.hpp"

#include <algorithm>

namespace roced::health {

void CounterWindow::add(TimePoint at, uint64_t counter, bool own) {
  if (!counter_) {
    if (steps_.empty()) first_at_ = at;  // else restored or rebased: the span so far stands
  } else if (at > last_at_) {
    const CounterStep step = counter_step(*counter_, counter, width_);
    steps_.push_back({at, step.delta, std::chrono::duration<double>(at - last_at_).count(), own});
  }
  counter_ = counter;
  last_at_ = at;
  while (!steps_.empty() && steps_.front().at <= at - span_) steps_.pop_front();
}

void CounterWindow::restore(std::deque<Step> steps) {
  if (!steps_.empty() || steps.empty()) return;
  steps_ = std::move(steps);
  first_at_ = steps_.front().at - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(steps_.front().seconds));
}

std::optional<double> CounterWindow::last_rate() const {
  if (steps_.empty() || steps_.back().at != last_at_ || steps_.back().seconds <= 0) {
    return std::nullopt;
  }
  const Step& last = steps_.back();
  return last.own ? 0.0 : static_cast<double>(last.counted) / last.seconds;
}

uint64_t CounterWindow::total() const {
  uint64_t sum = 0;
  for (const Step& step : steps_) sum += step.own ? 0 : step.counted;
  return sum;
}

uint64_t CounterWindow::own_total() const {
  uint64_t sum = 0;
  for (const Step& step : steps_) sum += step.own ? step.counted : 0;
  return sum;
}

std::chrono::seconds CounterWindow::covered() const {
  if (!counter_) return {};
  const auto since = std::min<std::chrono::steady_clock::duration>(last_at_ - first_at_, span_);
  return std::chrono::duration_cast<std::chrono::seconds>(since);
}

}  // namespace roced::health
