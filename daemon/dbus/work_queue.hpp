// SPDX-License-Identifier: Apache-2.0
#pragma once
// One thread for the methods that read or write the ports (GetPlan, Apply, Reload): they take
// from milliseconds to seconds, and the bus thread must keep answering GetStatus meanwhile. One
// at a time, in arrival order: two Applies never interleave.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace roced::dbus {

class WorkQueue {
 public:
  WorkQueue();
  ~WorkQueue();  // stop()
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void push(std::function<void()> job);
  // Finishes the job in hand (an Apply ends as the applier ends it), drops the rest, joins.
  void stop();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace roced::dbus
