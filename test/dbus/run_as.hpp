// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs a program as another user (fork, drop groups, setgid, setuid, exec) and collects its exit
// code and output: the non-root caller of the D-Bus tests.
#include <fcntl.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace roced::test {

constexpr uid_t kNobody = 65534;

inline CommandResult run_as(uid_t uid, gid_t gid, const std::vector<std::string>& argv) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe(out_pipe) != 0 || ::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  // Built before the fork: the child of a threaded process only calls async-signal-safe functions.
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0) ::_exit(126);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult result;
  // Small outputs: stdout to the end, then stderr (a pipe buffer holds what these print).
  for (auto [fd, text] :
       {std::pair{out_pipe[0], &result.out}, std::pair{err_pipe[0], &result.err}}) {
    char chunk[4096];
    for (;;) {
      const ssize_t got = ::read(fd, chunk, sizeof(chunk));
      if (got > 0) {
        text->append(chunk, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        break;
      }
    }
    ::close(fd);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace roced::test
