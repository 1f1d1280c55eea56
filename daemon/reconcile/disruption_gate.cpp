// SPDX-License-Identifier: Apache-2.0
#include "daemon/reconcile/disruption_gate.hpp"

#include <utility>

namespace roced::reconcile {

DisruptionGate::Slot::Slot(Slot&& other) noexcept
    : gate_(std::exchange(other.gate_, nullptr)),
      netdev_(std::move(other.netdev_)),
      waited_(other.waited_) {}

DisruptionGate::Slot& DisruptionGate::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    if (gate_ != nullptr) gate_->leave(netdev_);
    gate_ = std::exchange(other.gate_, nullptr);
    netdev_ = std::move(other.netdev_);
    waited_ = other.waited_;
  }
  return *this;
}

DisruptionGate::Slot::~Slot() {
  if (gate_ != nullptr) gate_->leave(netdev_);
}

DisruptionGate::Slot DisruptionGate::enter(
    const std::string& netdev, const std::function<bool()>& stopping,
    const std::function<void(const std::set<std::string>& holders)>& on_wait) {
  std::unique_lock lock(mutex_);
  const auto free = [&] { return static_cast<int>(inside_.size()) < limit_; };
  // In the order they came: a port that waited longest goes next, as the log said it would.
  const bool waited = !free() || !queue_.empty();
  if (waited) {
    const uint64_t ticket = next_ticket_++;
    queue_.push_back(ticket);
    if (on_wait) {
      const std::set<std::string> holders = inside_;
      lock.unlock();  // the listener logs; it must not hold up the ports that leave meanwhile
      on_wait(holders);
      lock.lock();
    }
    time_.wait(lock, changed_, [&] { return (free() && queue_.front() == ticket) || stopping(); });
    const bool turn = free() && queue_.front() == ticket;
    std::erase(queue_, ticket);
    changed_.notify_all();  // the next in line may be free to go too
    if (!turn) return {};
  }
  inside_.insert(netdev);
  return Slot(this, netdev, waited);
}

void DisruptionGate::leave(const std::string& netdev) {
  {
    std::lock_guard lock(mutex_);
    inside_.erase(netdev);
    stalled_.erase(netdev);
  }
  changed_.notify_all();
}

void DisruptionGate::mark_stalled(const std::string& netdev) {
  std::lock_guard lock(mutex_);
  if (inside_.count(netdev) != 0) stalled_.insert(netdev);
}

bool DisruptionGate::stalled() const {
  std::lock_guard lock(mutex_);
  return !stalled_.empty();
}

void DisruptionGate::set_limit(int limit) {
  {
    std::lock_guard lock(mutex_);
    limit_ = limit;
  }
  changed_.notify_all();
}

void DisruptionGate::wake_all() {
  { std::lock_guard lock(mutex_); }
  changed_.notify_all();
}

std::set<std::string> DisruptionGate::holders() const {
  std::lock_guard lock(mutex_);
  return inside_;
}

}  // namespace roced::reconcile
