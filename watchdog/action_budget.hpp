// SPDX-License-Identifier: Apache-2.0
#pragma once
// How many storm actions a port may take: at most N in any sliding hour. Every action on mlx5
// can cost a link flap (a PFC change) and another one to undo it, so a port whose storms keep
// coming back is held -- the caller alerts instead of acting -- until its oldest action in the
// window is an hour old. Per port, because a flap takes down every priority of the port.

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <string>

namespace roced::watchdog {

class ActionBudget {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ActionBudget(size_t max_actions, Clock::duration window = std::chrono::hours(1));

  // Whether an action on `port` at `now` stays within the budget.
  bool allow(const std::string& port, Clock::time_point now) const;
  // An action was taken on `port` at `now`.
  void record(const std::string& port, Clock::time_point now);

  // While held (the budget is spent): when the next action will be allowed.
  std::optional<Clock::time_point> held_until(const std::string& port, Clock::time_point now) const;
  // A new limit; the actions taken so far still count.
  void set_max_actions(size_t max_actions) { max_actions_ = max_actions; }
  // Actions in the window (now - window, now].
  size_t actions_in_window(const std::string& port, Clock::time_point now) const;

 private:
  size_t max_actions_;
  Clock::duration window_;
  std::map<std::string, std::deque<Clock::time_point>> actions_;  // oldest first
};

}  // namespace roced::watchdog
