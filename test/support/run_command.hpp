// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs a program (no shell) and collects its exit code, stdout and stderr, for tests of rocectl.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec_image.hpp"

namespace roced::test {

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out;
  std::string err;
};

inline CommandResult run_command(const std::vector<std::string>& argv) {
  char err_path[] = "/tmp/roced-test-stderr-XXXXXX";
  const int err_fd = ::mkstemp(err_path);
  if (err_fd < 0) throw std::runtime_error("mkstemp failed");
  int out_pipe[2];
  if (::pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  const ExecImage image(argv);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_fd);
    image.exec();
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  CommandResult result;
  char chunk[4096];
  for (;;) {
    const ssize_t got = ::read(out_pipe[0], chunk, sizeof(chunk));
    if (got > 0) {
      result.out.append(chunk, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(out_pipe[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err_file(err_path);
  std::stringstream err_text;
  err_text << err_file.rdbuf();
  result.err = err_text.str();
  ::close(err_fd);
  ::unlink(err_path);
  return result;
}

}  // namespace roced::test
