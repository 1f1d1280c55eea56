// SPDX-License-Identifier: Apache-2.0
// The reconciler's event thread: netlink notifications (links, DCB, addresses) mark ports dirty,
// the drift timer re-reads every port, netdevs that appear are picked up, a broken or overrun
// event socket makes every port be read again.
#include <poll.h>

#include <algorithm>
#include <array>

#include "daemon/reconcile/netlink_events.hpp"
#include "daemon/reconcile/reconciler_impl.hpp"

namespace roced::reconcile {

namespace {

// The event thread's longest sleep: how often it beats its heartbeat (stop() wakes it at once).
constexpr std::chrono::milliseconds kEventPoll{1000};
// A netdev announced before its sysfs entry exists is looked for this often.
constexpr std::chrono::milliseconds kAppearPoll{50};
// After the event socket failed, it is reopened this often.
constexpr std::chrono::seconds kReopenDelay{1};

// Whether the selected ports changed: the ports.netdevs entries that select nothing are then
// looked at again, so that a VF that appeared is no longer reported missing.
bool ports_came_or_went(const std::vector<PortEvent>& events) {
  return std::any_of(events.begin(), events.end(), [](const PortEvent& event) {
    return event.kind == PortEvent::Kind::Appeared || event.kind == PortEvent::Kind::Vanished;
  });
}

}  // namespace

void Reconciler::Impl::announce_and_recount(const std::vector<PortEvent>& events) {
  announce(events);
  if (ports_came_or_went(events)) {
    report_unmatched(unmatched_selection(*system_.files, *current_config()));
  }
}

void Reconciler::Impl::event_loop() {
  TimeSource& time = *options_.time;
  auto next_drift_check = time.now() + current_config()->daemon.drift_check_interval;
  auto next_reopen = time.now();
  while (!stopping_) {
    event_heartbeat_ = time.now().time_since_epoch().count();
    ports_.reap();
    std::vector<PortEvent> events;
    if (ports_.awaiting_appearance()) {
      ports_.look_for_appearing(*current_config(), time.now(), events);
    }
    announce_and_recount(events);
    events.clear();

    auto now = time.now();
    const auto interval = current_config()->daemon.drift_check_interval;
    if (interval.count() > 0 && now >= next_drift_check) {
      resync(true, true, false);
      next_drift_check = now + interval;
    } else if (interval.count() <= 0) {
      next_drift_check = now + kEventPoll;
    }
    auto timeout = std::min<std::chrono::milliseconds>(
        kEventPoll, std::chrono::duration_cast<std::chrono::milliseconds>(next_drift_check - now) +
                        std::chrono::milliseconds(1));
    if (ports_.awaiting_appearance()) timeout = std::min(timeout, kAppearPoll);
    if (const auto follow_up = ports_.follow_up_gids(now)) {
      timeout = std::min(timeout, std::chrono::duration_cast<std::chrono::milliseconds>(
                                      *follow_up - now + std::chrono::milliseconds(1)));
    }
    timeout = std::max(timeout, std::chrono::milliseconds(1));

    if (!socket_) {
      if (now >= next_reopen) {
        auto opened = open_event_socket(system_);
        if (opened) {
          socket_ = std::move(*opened);
          resync(true, true, false);  // what happened while deaf
        } else {
          log(LogLevel::Error, {}, "netlink events: " + opened.error().message);
          next_reopen = now + kReopenDelay;
        }
      }
      if (!socket_) {
        wait_for_news(timeout);
        continue;
      }
    }
    if (!wait_for_news(timeout)) continue;
    auto datagram = socket_->receive(std::chrono::milliseconds(0));
    if (!datagram) {
      // ENOBUFS: notifications were lost; anything else: the socket is broken. Either way
      // every port is re-read, as nothing can be known of what was missed.
      log(LogLevel::Warn, {}, "netlink events: " + datagram.error().message);
      if (datagram.error().code != ENOBUFS) {
        socket_.reset();
        next_reopen = time.now() + kReopenDelay;
      }
      resync(true, true, false);
      continue;
    }
    const auto received = time.now();
    for (const auto& event : parse_notifications(*datagram)) ports_.handle(event, received, events);
    announce_and_recount(events);
  }
}

bool Reconciler::Impl::wait_for_news(std::chrono::milliseconds timeout) {
  std::array<pollfd, 2> fds{pollfd{stop_fd_.get(), POLLIN, 0},
                            pollfd{socket_ ? socket_->fd() : -1, POLLIN, 0}};
  const int ready = options_.time->poll_until(fds, options_.time->now() + timeout);
  return ready > 0 && fds[1].revents != 0 && !stopping_;
}

}  // namespace roced::reconcile
