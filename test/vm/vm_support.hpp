// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the VM's cases share: files, polling, rocectl's JSON, the link MTU through iproute2 and
// the exporter's metrics.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "run_command.hpp"

namespace roced::vm {

using nlohmann::json;
using roced::test::run_command;

inline const std::string kIp = "/usr/bin/ip";  // busybox's sh prefers its own ip applet

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Polls until `ready` holds; the bound only stops a hang (software emulation is slow).
inline bool eventually(const std::function<bool()>& ready,
                       std::chrono::seconds bound = std::chrono::seconds(90)) {
  const auto until = std::chrono::steady_clock::now() + bound;
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return ready();
}

inline double wall_now() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The running kernel (uname), for the cases whose answer depends on it: the VM boots bookworm's
// 6.1 in one test and trixie's 6.12 in the other, and such a case says which expects what.
struct KernelVersion {
  int major = 0;
  int minor = 0;
  std::string release;
};

inline KernelVersion running_kernel() {
  utsname name{};
  KernelVersion version;
  if (::uname(&name) != 0) return version;
  version.release = name.release;
  std::sscanf(name.release, "%d.%d", &version.major, &version.minor);
  return version;
}

inline bool kernel_at_least(int major, int minor) {
  const auto running = running_kernel();
  return running.major > major || (running.major == major && running.minor >= minor);
}

inline json run_json(const std::vector<std::string>& argv, int* exit_code = nullptr) {
  const auto result = run_command(argv);
  if (exit_code != nullptr) *exit_code = result.exit_code;
  EXPECT_FALSE(result.out.empty())
      << argv[0] << " " << argv[1] << ": no output; stderr: " << result.err;
  return json::parse(result.out.empty() ? "null" : result.out);
}

inline const json* port_entry(const json& document, const std::string& netdev) {
  if (!document.is_object() || !document["ports"].is_array()) return nullptr;
  for (const auto& port : document["ports"]) {
    if (port.value("netdev", "") == netdev) return &port;
  }
  return nullptr;
}

inline std::set<std::string> settings_of(const json& list) {
  std::set<std::string> names;
  for (const auto& entry : list) names.insert(entry.value("setting", ""));
  return names;
}

inline int link_mtu(const std::string& netdev) {
  const auto shown = run_command({kIp, "-j", "link", "show", "dev", netdev});
  const auto links = json::parse(shown.out.empty() ? "[]" : shown.out);
  return links.empty() ? -1 : links[0].value("mtu", -1);
}

// Prometheus text -> the value of the series with this name and these labels (all of them).
inline std::optional<double> metric(const std::string& text, const std::string& name,
                                    const std::map<std::string, std::string>& labels) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.compare(0, name.size(), name) != 0) continue;
    const char after = line.size() > name.size() ? line[name.size()] : '\0';
    if (after != '{' && after != ' ') continue;
    bool all = true;
    for (const auto& [key, value] : labels) {
      if (line.find(key + "=\"" + value + "\"") == std::string::npos) all = false;
    }
    if (!all) continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

inline std::string config_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/" + name;
  write_text(path, text);
  return path;
}

inline std::string scrape_url(const std::string& url) {
  return run_command({"/bin/busybox", "wget", "-q", "-O", "-", url}).out;
}

// roced in the foreground (no D-Bus, log on the console into `log_path`, metrics on `listen`),
// as a test suite's fixture starts it; stop_roced prints its exit status and log.
inline pid_t start_roced(const std::string& config, const std::string& log_path,
                         const std::string& listen) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int log = ::open(log_path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    ::dup2(log, STDERR_FILENO);
    ::dup2(log, STDOUT_FILENO);
    ::execlp("roced", "roced", "--config", config.c_str(), "--no-dbus", "--log-target", "console",
             "--metrics-listen", listen.c_str(), nullptr);
    ::_exit(127);
  }
  return pid;
}

inline void stop_roced(pid_t pid, const std::string& log_path) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::printf("roced exited %d; its log:\n%s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
              read_text(log_path).c_str());
}

}  // namespace roced::vm
