// SPDX-License-Identifier: Apache-2.0
#include "bench/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "test/support/exec_image.hpp"

namespace roced::bench {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

Child::Child(const std::vector<std::string>& argv, const std::vector<std::string>& env,
             const std::filesystem::path& log) {
  // JOURNAL_STREAM unset: roced logs to the console (the log file), not the journal.
  const test::ExecImage image(argv, env,
                              {"JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID", "NOTIFY_SOCKET"});
  pid_ = ::fork();
  if (pid_ != 0) return;
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ::dup2(null_fd, 0);
  ::dup2(out, 1);
  ::dup2(out, 2);
  image.exec();
  ::_exit(127);
}

bool Child::running() {
  if (exit_code_) return false;
  int status = 0;
  if (pid_ > 0 && ::waitpid(pid_, &status, WNOHANG) == pid_) {
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return pid_ > 0 && !exit_code_;
}

int Child::stop() {
  if (pid_ <= 0 || exit_code_) return exit_code_.value_or(127);
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + 30s;
  while (running() && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
  if (running()) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    exit_code_ = 128 + SIGKILL;
  }
  return *exit_code_;
}

NotifySocket::NotifySocket(std::filesystem::path path) : path_(std::move(path)) {
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path_.c_str(), sizeof(addr.sun_path) - 1);
  if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    throw std::runtime_error("cannot bind the notify socket " + path_.string());
  }
}

NotifySocket::~NotifySocket() {
  ::close(fd_);
  ::unlink(path_.c_str());
}

std::vector<std::string> NotifySocket::take() {
  std::vector<std::string> lines;
  char buffer[4096];
  ssize_t got = 0;
  while ((got = ::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT)) > 0) {
    std::istringstream text(std::string(buffer, static_cast<size_t>(got)));
    for (std::string line; std::getline(text, line);) {
      if (!line.empty()) lines.push_back(line);
    }
  }
  return lines;
}

bool NotifySocket::ready_within(std::chrono::milliseconds timeout) {
  pollfd fds = {fd_, POLLIN, 0};
  if (::poll(&fds, 1, static_cast<int>(timeout.count())) <= 0) return false;
  for (const std::string& line : take()) {
    if (line == "READY=1") return true;
  }
  return false;
}

}  // namespace roced::bench
