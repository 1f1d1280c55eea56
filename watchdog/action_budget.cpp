// SPDX-License-Identifier: Apache-2.0
#include "watchdog/action_budget.hpp"

#include <algorithm>
#include <vector>

namespace roced::watchdog {

ActionBudget::ActionBudget(size_t max_actions, Clock::duration window)
    : max_actions_(max_actions), window_(window) {}

size_t ActionBudget::actions_in_window(const std::string& port, Clock::time_point now) const {
  const auto found = actions_.find(port);
  if (found == actions_.end()) return 0;
  // An action exactly one window old has left it.
  return static_cast<size_t>(
      std::count_if(found->second.begin(), found->second.end(),
                    [&](Clock::time_point at) { return at > now - window_ && at <= now; }));
}

bool ActionBudget::allow(const std::string& port, Clock::time_point now) const {
  return actions_in_window(port, now) < max_actions_;
}

void ActionBudget::record(const std::string& port, Clock::time_point now) {
  auto& times = actions_[port];
  // Kept sorted even if the caller's times arrive out of order, so the oldest is at the front.
  times.insert(std::upper_bound(times.begin(), times.end(), now), now);
  while (!times.empty() && times.front() <= now - window_) times.pop_front();
}

std::optional<ActionBudget::Clock::time_point> ActionBudget::held_until(
    const std::string& port, Clock::time_point now) const {
  if (allow(port, now)) return std::nullopt;
  const auto found = actions_.find(port);
  if (max_actions_ == 0 || found == actions_.end()) return Clock::time_point::max();  // never
  // The window frees a slot when the action that fills it from below turns one window old.
  const size_t in_window = actions_in_window(port, now);
  std::vector<Clock::time_point> recent;
  for (const auto at : found->second) {
    if (at > now - window_ && at <= now) recent.push_back(at);
  }
  return recent[in_window - max_actions_] + window_;
}

}  // namespace roced::watchdog
