// SPDX-License-Identifier: Apache-2.0
#pragma once
// How often the storm watchdog may poll so that its reads stay within their budget: a share of
// one core (the CPU time a round of reads takes) and a share of each port's firmware command
// time (an mlx5 ETHTOOL_GSTATS is some 30 register reads one after another, holding the port's
// state lock: the read's wall time is the port's command interface kept busy). Judged once a
// second of polling, on the rounds' mean cost: the interval is the configured one unless that
// cost, smoothed, needs a longer one; it rises once the smoothed cost
// needs a tenth more and comes back down only when it leaves room for a fifth less, so a cost
// that hovers at the budget does not make it flap.

#include <chrono>
#include <string>
#include <string_view>

#include "util/enum_names.hpp"
#include "watchdog/pause_counters.hpp"

namespace roced::watchdog {

enum class BudgetLimit { none, cpu, firmware };
inline constexpr auto kBudgetLimitNames = enum_names<BudgetLimit>(
    {{BudgetLimit::none, "none"}, {BudgetLimit::cpu, "cpu"}, {BudgetLimit::firmware, "firmware"}});
static_assert(kBudgetLimitNames.covers<BudgetLimit::firmware>(), "name every BudgetLimit");

// What one round of reads cost.
struct RoundCost {
  Clock::duration cpu{0};           // the loop thread's CPU time in the round
  Clock::duration slowest_read{0};  // the longest one port's statistics read took
  std::string slowest_port;
  Clock::duration reads{0};  // all the round's reads, one after another
};

class PollBudget {
 public:
  // The longest interval the budget may set: the longest poll_interval the configuration takes.
  static constexpr std::chrono::milliseconds kCeiling{1000};
  // How much polling the budget judges at a time.
  static constexpr std::chrono::seconds kWindow{1};

  // `cpu_share`, `firmware_share`: fractions (0.05 = 5 %).
  PollBudget(Clock::duration configured, double cpu_share, double firmware_share);

  // Takes a round's cost; true when the interval changed (at most once per kWindow of rounds).
  bool after_round(const RoundCost& cost);

  Clock::duration configured() const { return configured_; }
  Clock::duration interval() const { return interval_; }
  BudgetLimit limit() const { return limit_; }  // what set the interval (none: the configuration)
  Clock::duration cpu_per_round() const;        // smoothed
  Clock::duration slowest_read() const;         // smoothed
  Clock::duration round_reads() const;          // smoothed: the round's reads end to end
  const std::string& slowest_port() const { return slowest_port_; }
  // How late a storm may be detected at `interval`: it needs detection_time and two stormed
  // polls, its last poll may begin up to an interval after that, and reads the port up to a
  // round's reads later.
  Clock::duration detection_bound(Clock::duration detection_time, Clock::duration interval) const;
  double cpu_share() const { return cpu_share_; }
  double firmware_share() const { return firmware_share_; }

 private:
  Clock::duration configured_;
  double cpu_share_;
  double firmware_share_;
  Clock::duration interval_;
  BudgetLimit limit_ = BudgetLimit::none;
  struct Window {
    double cpu_ns = 0, read_ns = 0, reads_ns = 0;
    Clock::duration elapsed{0};
    int rounds = 0;
  };
  Window window_;       // the rounds since the last judgement
  double cpu_ns_ = 0;   // per round, smoothed over windows, from zero
  double read_ns_ = 0;  // likewise
  double reads_ns_ = 0;
  std::string slowest_port_;
};

std::string_view budget_limit_name(BudgetLimit limit);  // "none", "cpu", "firmware"

}  // namespace roced::watchdog
