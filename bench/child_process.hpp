// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the daemon benchmarks need around the processes they start: a child with its output in a
// log file, stopped with SIGTERM (then SIGKILL) at the end, and the $NOTIFY_SOCKET a systemd
// would give roced, to see READY=1.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roced::bench {

class Child {
 public:
  // Runs argv with `env` ("NAME=value") added, stdin from /dev/null, stdout and stderr to `log`;
  // the caller's journal and notify variables are not passed on.
  Child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
        const std::filesystem::path& log);
  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // SIGTERM, up to 30 s for a clean stop, then SIGKILL. The exit status.
  int stop();

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

class NotifySocket {
 public:
  explicit NotifySocket(std::filesystem::path path);
  ~NotifySocket();
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  // Every line of every datagram waiting now.
  std::vector<std::string> take();
  // Waits up to `timeout` for a datagram; true when a line of what came is READY=1.
  bool ready_within(std::chrono::milliseconds timeout);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace roced::bench
