// SPDX-License-Identifier: Apache-2.0
#include "bench/sim_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "test/support/exec_image.hpp"

namespace roced::bench {

namespace fs = std::filesystem;

namespace {

pid_t spawn(const std::vector<std::string>& argv, int out_fd) {
  const test::ExecImage image(argv);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  ::dup2(null_fd, 0);
  ::dup2(out_fd >= 0 ? out_fd : null_fd, 1);
  ::dup2(null_fd, 2);
  image.exec();
  ::_exit(127);
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

}  // namespace

int run_program(const std::vector<std::string>& argv, std::string* output) {
  if (!output) {
    const pid_t pid = spawn(argv, -1);
    return pid < 0 ? 127 : wait_for(pid);
  }
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return 127;
  const pid_t pid = spawn(argv, pipe_fds[1]);
  ::close(pipe_fds[1]);
  char chunk[4096];
  ssize_t got = 0;
  while ((got = ::read(pipe_fds[0], chunk, sizeof chunk)) > 0) {
    output->append(chunk, static_cast<size_t>(got));
  }
  ::close(pipe_fds[0]);
  return pid < 0 ? 127 : wait_for(pid);
}

SimProcess::SimProcess(const std::string& roce_sim, const std::string& node_file,
                       const std::string& scenario_file,
                       const std::vector<std::string>& extra_args) {
  // sysfs, configfs and debugfs live in memory; so does the simulated node's tree when a tmpfs is
  // there, so neither side pays for ext4 inode creation the real kernel never does.
  char shm_pattern[] = "/dev/shm/roced-bench-XXXXXX";
  char tmp_pattern[] = "/tmp/roced-bench-XXXXXX";
  char* pattern = ::mkdtemp(shm_pattern) ? shm_pattern : tmp_pattern;
  if (pattern == tmp_pattern && ::mkdtemp(tmp_pattern) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  dir_ = pattern;
  std::vector<std::string> argv = {roce_sim, "run", "--dir", dir_.string(), "--quiet"};
  if (!node_file.empty()) {
    argv.push_back("--node");
    argv.push_back(node_file);
  }
  if (!scenario_file.empty()) {
    argv.push_back("--scenario");
    argv.push_back(scenario_file);
  }
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  pid_ = spawn(argv, -1);
  // The destructor does not run for a constructor that throws: stop and clean up here.
  auto fail = [&](const std::string& what) {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      wait_for(pid_);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
    throw std::runtime_error(what);
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!fs::exists(dir_ / "roce-sim.pid")) {
    int status = 0;
    if (pid_ < 0 || ::waitpid(pid_, &status, WNOHANG) != 0) {
      pid_ = -1;
      fail("roce-sim exited during start-up (" + roce_sim + " run --dir " + dir_.string() + ")");
    }
    if (std::chrono::steady_clock::now() > deadline) {
      fail("roce-sim did not become ready in " + dir_.string());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

SimProcess::~SimProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    wait_for(pid_);
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

bool SimProcess::wait_for_carrier(const std::vector<std::string>& netdevs,
                                  std::chrono::milliseconds patience) const {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    bool all_up = true;
    for (const std::string& netdev : netdevs) {
      std::ifstream in(dir_ / "sys/class/net" / netdev / "carrier");
      std::string value;
      in >> value;
      all_up = all_up && value == "1";
    }
    if (all_up) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

uint64_t SimProcess::writes_total() const {
  std::ifstream in(dir_ / "roce-sim.writes");
  std::string word;
  uint64_t total = 0;
  in >> word >> total;
  if (word != "total") throw std::runtime_error("no write counter in " + dir_.string());
  return total;
}

double firmware_commands(const std::filesystem::path& dir) {
  double total = 0;
  std::error_code ec;
  for (const auto& device : std::filesystem::directory_iterator(dir / "debug/mlx5", ec)) {
    for (const auto& command :
         std::filesystem::directory_iterator(device.path() / "commands", ec)) {
      std::ifstream in(command.path() / "n");
      double n = 0;
      if (in >> n) total += n;
    }
  }
  return total;
}

}  // namespace roced::bench
