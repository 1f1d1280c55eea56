// SPDX-License-Identifier: Apache-2.0
#include "watchdog/poll_budget.hpp"

#include <algorithm>
#include <cmath>

namespace roced::watchdog {

namespace {

constexpr double kSmoothing = 0.5;  // weight of the newest window

double nanoseconds(Clock::duration d) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
}

// `ns` nanoseconds, rounded up to a whole millisecond.
Clock::duration whole_ms(double ns) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(ns / 1e6)));
}

}  // namespace

PollBudget::PollBudget(Clock::duration configured, double cpu_share, double firmware_share)
    : configured_(configured),
      cpu_share_(cpu_share),
      firmware_share_(firmware_share),
      interval_(configured) {}

bool PollBudget::after_round(const RoundCost& cost) {
  // A window's rounds are summed: one round's cost is at the mercy of the scheduler, a second's
  // is what the reads take.
  window_.cpu_ns += nanoseconds(cost.cpu);
  window_.read_ns += nanoseconds(cost.slowest_read);
  window_.reads_ns += nanoseconds(cost.reads);
  window_.elapsed += interval_;
  ++window_.rounds;
  if (!cost.slowest_port.empty()) slowest_port_ = cost.slowest_port;
  if (window_.elapsed < kWindow) return false;
  const auto rounds = static_cast<double>(window_.rounds);
  // Smoothed over windows as well (a fifth per window), from zero: the first rounds read the
  // ports' names and cost more than those after them.
  cpu_ns_ += kSmoothing * (window_.cpu_ns / rounds - cpu_ns_);
  read_ns_ += kSmoothing * (window_.read_ns / rounds - read_ns_);
  reads_ns_ += kSmoothing * (window_.reads_ns / rounds - reads_ns_);
  window_ = {};

  const double for_cpu = cpu_share_ > 0 ? cpu_ns_ / cpu_share_ : 0;
  const double for_firmware = firmware_share_ > 0 ? read_ns_ / firmware_share_ : 0;
  const Clock::duration ceiling = std::max<Clock::duration>(configured_, kCeiling);
  // Unclamped, so that an interval just above the configured one comes back once the cost fits.
  const Clock::duration wanted = whole_ms(std::max(for_cpu, for_firmware));
  const Clock::duration needed = std::clamp(wanted, configured_, ceiling);
  const Clock::duration before = interval_;
  // A band between rising (a tenth over) and falling (a fifth under): a cost that hovers at the
  // budget does not move the interval to and fro.
  if (wanted * 10 > interval_ * 11 || wanted * 5 <= interval_ * 4) interval_ = needed;
  if (interval_ == configured_) {
    limit_ = BudgetLimit::none;
  } else {
    limit_ = for_cpu >= for_firmware ? BudgetLimit::cpu : BudgetLimit::firmware;
  }
  return interval_ != before;
}

Clock::duration PollBudget::cpu_per_round() const {
  return std::chrono::nanoseconds(static_cast<int64_t>(cpu_ns_));
}

Clock::duration PollBudget::detection_bound(Clock::duration detection_time,
                                            Clock::duration interval) const {
  return std::max(detection_time, 2 * interval) + interval + round_reads();
}

Clock::duration PollBudget::round_reads() const {
  return std::chrono::nanoseconds(static_cast<int64_t>(reads_ns_));
}

Clock::duration PollBudget::slowest_read() const {
  return std::chrono::nanoseconds(static_cast<int64_t>(read_ns_));
}

std::string_view budget_limit_name(BudgetLimit limit) {
  return kBudgetLimitNames.name(limit, "none");
}

}  // namespace roced::watchdog
