// SPDX-License-Identifier: Apache-2.0
#pragma once
// How many ports may be in a disruptive apply at once (daemon.disruptive_ports_at_once): a PFC
// mask change flaps the link (mlx5_toggle_port_link), an MTU change rebuilds the channels, and a
// GPU node's rails must never all go down together. A worker holds a slot from the start of its
// apply until the port has its carrier back (the applier waits for it, and when carrier_timeout
// passes without it the worker keeps the slot until a check reads the carrier), so the next port
// is flapped only once the one before it carries traffic again. Storm actions do not take a slot:
// the port they act on is already not carrying traffic.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>

#include "util/time_source.hpp"

namespace roced::reconcile {

class DisruptionGate {
 public:
  explicit DisruptionGate(TimeSource& time, int limit = 1) : time_(time), limit_(limit) {}

  // A slot: released when it goes out of scope. Empty when the wait was given up (stopping).
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot();
    explicit operator bool() const { return gate_ != nullptr; }
    bool waited() const { return waited_; }  // another port held the slots first

   private:
    friend class DisruptionGate;
    Slot(DisruptionGate* gate, std::string netdev, bool waited)
        : gate_(gate), netdev_(std::move(netdev)), waited_(waited) {}
    DisruptionGate* gate_ = nullptr;
    std::string netdev_;
    bool waited_ = false;
  };

  // Waits on the clock for a slot for `netdev`, or until `stopping()` (after wake_all()). Ports
  // get slots in the order they asked.
  // `on_wait` is told once, with the ports that hold the slots, when it has to wait.
  Slot enter(const std::string& netdev, const std::function<bool()>& stopping,
             const std::function<void(const std::set<std::string>& holders)>& on_wait = {});
  // `netdev` holds its slot past its apply, its carrier lost: start-up need not wait for the
  // ports queued behind it (they wait on, but roced is ready). Ends when the slot is left.
  void mark_stalled(const std::string& netdev);
  bool stalled() const;
  void set_limit(int limit);  // a reload; ports inside keep their slot
  void wake_all();            // a stop: waiters look at `stopping` again
  std::set<std::string> holders() const;

 private:
  void leave(const std::string& netdev);

  TimeSource& time_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  int limit_;
  std::set<std::string> inside_;
  std::set<std::string> stalled_;  // of inside_
  std::deque<uint64_t> queue_;     // the waiting ports' tickets, first come first
  uint64_t next_ticket_ = 0;
};

}  // namespace roced::reconcile
