// SPDX-License-Identifier: Apache-2.0
#include "sim/server/inject.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "roce_sim.h"

namespace roce_sim::server {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

bool alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// A new file with exactly `text`; false (errno set) on any failure.
bool write_new(const fs::path& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      errno = err;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return ::close(fd) == 0;
}

// The server renames its answer into place, so a result that exists is complete.
std::optional<std::string> read_answer(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

int report(const std::string& answer) {
  if (answer == "ok\n") return 0;
  constexpr std::string_view kError = "error: ";
  if (answer.rfind(kError, 0) == 0) {
    std::cerr << answer.substr(kError.size());
    if (answer.back() != '\n') std::cerr << "\n";
  } else {
    std::cerr << "roce-sim: unexpected answer from the node: " << answer << "\n";
  }
  return 1;
}

}  // namespace

InjectRequest parse_inject_request(std::string text, const std::string& file_name) {
  if (text.rfind(kInjectSourcePrefix, 0) != 0) return {file_name, std::move(text)};
  const size_t eol = text.find('\n');
  std::string source =
      text.substr(kInjectSourcePrefix.size(),
                  eol == std::string::npos ? std::string::npos : eol - kInjectSourcePrefix.size());
  if (!source.empty() && source.back() == '\r') source.pop_back();
  return {source.empty() ? file_name : source,
          eol == std::string::npos ? std::string() : text.substr(eol + 1)};
}

std::optional<std::string> inject_request_stem(const std::string& file_name) {
  if (file_name.empty() || file_name[0] == '.') return std::nullopt;
  for (const std::string_view suffix : {std::string_view(".yaml"), std::string_view(".yml")}) {
    if (file_name.size() > suffix.size() &&
        file_name.compare(file_name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return file_name.substr(0, file_name.size() - suffix.size());
    }
  }
  return std::nullopt;
}

int inject(const fs::path& dir_argument, const std::string& source, const std::string& document) {
  const fs::path dir = fs::absolute(dir_argument);
  pid_t pid = 0;
  {
    std::ifstream in(dir / ROCE_SIM_PIDFILE);
    if (!in) {
      std::cerr << "roce-sim: no running node in " << dir.string() << " (no " << ROCE_SIM_PIDFILE
                << ")\n";
      return 1;
    }
    long value = 0;
    if (!(in >> value) || value <= 0 || !alive(static_cast<pid_t>(value))) {
      std::cerr << "roce-sim: no running node in " << dir.string() << " (" << ROCE_SIM_PIDFILE
                << " names pid " << value << ", which is not running)\n";
      return 1;
    }
    pid = static_cast<pid_t>(value);
  }

  // Our pid and the time: unique among the clients of this directory.
  const fs::path inject_dir = dir / ROCE_SIM_INJECT_DIR;
  const std::string stem =
      std::to_string(::getpid()) + "-" + std::to_string(Clock::now().time_since_epoch().count());
  const fs::path temp = inject_dir / ("." + stem + ".yaml.tmp");
  const fs::path request = inject_dir / (stem + ".yaml");
  const fs::path withdrawn = inject_dir / ("." + stem + ".withdrawn");
  const fs::path result = inject_dir / (stem + ".result");
  const std::string name = source.substr(0, source.find_first_of("\r\n"));
  if (!write_new(temp, std::string(kInjectSourcePrefix) + name + "\n" + document) ||
      ::rename(temp.c_str(), request.c_str()) != 0) {
    std::cerr << "roce-sim: cannot write " << request.string() << ": " << std::strerror(errno)
              << "\n";
    ::unlink(temp.c_str());
    return 1;
  }

  const auto deadline = Clock::now() + kInjectTimeout;
  for (;;) {
    if (const auto answer = read_answer(result)) {
      ::unlink(result.c_str());
      return report(*answer);
    }
    const bool gone = !alive(pid);
    if (gone || Clock::now() >= deadline) {
      // Withdraw the request; if the server claimed it first, its answer may just have come.
      const bool taken_back = ::rename(request.c_str(), withdrawn.c_str()) == 0;
      if (taken_back) {
        ::unlink(withdrawn.c_str());
      } else if (const auto answer = read_answer(result)) {
        ::unlink(result.c_str());
        return report(*answer);
      }
      if (gone) {
        std::cerr << "roce-sim: the node's server (pid " << pid << ") stopped before answering\n";
      } else {
        std::cerr << "roce-sim: the node in " << dir.string() << " did not answer within "
                  << kInjectTimeout.count() << " s"
                  << (taken_back ? " (the request is withdrawn)"
                                 : " (it took the request, which may still be played)")
                  << "\n";
      }
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace roce_sim::server
