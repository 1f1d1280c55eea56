// SPDX-License-Identifier: Apache-2.0
#pragma once
// The devlink health reporters' notifications, heard in a thread of their own that sleeps in
// poll until one comes or the watch stops: a firmware's fatal error is then read at once rather
// than at the next interval. Without devlink, or when its group cannot be joined, it says so
// once and hears nothing; the interval's readings stand either way.
#include <functional>
#include <thread>

#include "devlink/health_events.hpp"
#include "os/system.hpp"
#include "util/time_source.hpp"

namespace roced::health {

class ReporterWatch {
 public:
  // `changed` runs in the watch's thread for each notification, and with an empty event when
  // some were lost (the socket's buffer overran).
  using Changed = std::function<void(const HealthReporterEvent&)>;
  ReporterWatch(const System& system, TimeSource& time, Changed changed);
  ~ReporterWatch();  // stops and joins
  ReporterWatch(const ReporterWatch&) = delete;
  ReporterWatch& operator=(const ReporterWatch&) = delete;

 private:
  void run();

  HealthReporterEvents events_;
  TimeSource& time_;
  Changed changed_;
  int stop_fd_ = -1;  // an eventfd: written once to stop
  std::thread thread_;
};

}  // namespace roced::health
