// SPDX-License-Identifier: Apache-2.0
#pragma once
// The bus connection's event loop on a thread of its own, with a way for other threads to hand it
// work. sdbus-c++ connections are "thread-aware, but not thread-safe" (IConnection.h): signals
// from the reconciler's threads and replies from the worker must not touch the connection while
// this thread is inside sd_bus_process. So they are posted here and run between two dispatches.

#include <sdbus-c++/IConnection.h>

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace roced::dbus {

class BusLoop {
 public:
  explicit BusLoop(sdbus::IConnection& connection);
  ~BusLoop();  // stop()
  BusLoop(const BusLoop&) = delete;
  BusLoop& operator=(const BusLoop&) = delete;

  // Before start(): called on the loop's thread, once, when the connection fails (the bus went
  // away), after the loop has stopped taking work.
  void on_lost(std::function<void(const std::string& why)> callback) {
    on_lost_ = std::move(callback);
  }
  void start();
  // Runs what was posted before, dispatches what already arrived, then joins. Idempotent.
  void stop();
  // Any thread. Runs `task` on the loop's thread; dropped once stop() has returned.
  void post(std::function<void()> task);

 private:
  void run();
  bool run_posted();  // false once stopping and nothing is left

  sdbus::IConnection& connection_;
  int wake_fd_ = -1;  // eventfd: a post() wakes the poll
  std::mutex mutex_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  bool stopped_ = false;  // the thread has ended (stop() or a broken bus): post() drops work
  std::function<void(const std::string&)> on_lost_;
  std::thread thread_;
};

}  // namespace roced::dbus
