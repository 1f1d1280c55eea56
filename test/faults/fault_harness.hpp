// SPDX-License-Identifier: Apache-2.0
#pragma once
// The whole daemon under a fault: roce-sim (default node, lan2..lan5), a private system bus with
// roced's shipped policy, roced itself with its metrics endpoint on a free loopback port. The
// node is read back with unmodified iproute2/ethtool through `roce-sim exec`, never with roced's
// own code; faults are played with `roce-sim inject`. Deadlines only stop a hang.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "node_files.hpp"
#include "private_bus.hpp"
#include "run_command.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"
#include "test/support/build_paths.hpp"

namespace roced::test {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using namespace std::chrono_literals;

constexpr auto kHang = std::chrono::seconds(60);
inline const std::vector<std::string> kPorts = {"lan2", "lan3", "lan4", "lan5"};

inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::seconds within = kHang) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

// A port's settings as unmodified tools read them: one entry per setting, the tool's own words.
using PortValues = std::map<std::string, std::string>;

inline std::string describe(const PortValues& values) {
  std::string out;
  for (const auto& [key, value] : values) out += "  " + key + ": " + value + "\n";
  return out;
}

// The lossless profile, with a cable length the tests change to prove a later change applies.
inline std::string fault_config(int cable_length = 10, const std::string& extra = "") {
  return "daemon:\n"
         "  drift_check_interval: 300ms\n"
         "ports:\n"
         "  netdevs: [lan2, lan3, lan4, lan5]\n"
         "profile:\n"
         "  dcbx: host\n"
         "  trust: dscp\n"
         "  dscp_map: {26: 3, 48: 6}\n"
         "  pfc: {priorities: [3], cable_length: " +
         std::to_string(cable_length) +
         "}\n"
         "  mtu: 9000\n"
         "  stall_prevention: auto\n"
         "  roce: {rdma_cm_mode: v2, tos: 106}\n" +
         extra;
}

class RocedUnderFault : public SimNode {
 protected:
  void SetUp() override {
    SimNode::SetUp();
    if (HasFatalFailure()) return;
    config_ = dir_ / "roced.yaml";
    write_file(config_, fault_config());
    bus_ = std::make_unique<PrivateBus>(std::string(ROCED_SOURCE_DIR) +
                                        "/packaging/dbus/io.roced.Daemon1.conf");
    metrics_port_ = free_loopback_port();
    ASSERT_GT(metrics_port_, 0);
    for (const auto& port : kPorts) firmware_[port] = read_port(port);
  }

  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    bus_.reset();
    SimNode::TearDown();
  }

  // Starts roced (stdout/stderr to DIR/<log_name>). `prefix`: a wrapper such as setpriv.
  void start_roced(const std::string& log_name = "roced.log",
                   const std::vector<std::string>& prefix = {}) {
    log_ = dir_ / log_name;
    std::vector<std::string> args = prefix;
    const std::vector<std::string> roced = {ROCED_BINARY,
                                            "--sim",
                                            dir_.string(),
                                            "--config",
                                            config_.string(),
                                            "--log-target",
                                            "console",
                                            "--metrics-listen",
                                            "127.0.0.1:" + std::to_string(metrics_port_)};
    args.insert(args.end(), roced.begin(), roced.end());
    const test::ExecImage image(args, {"DBUS_SYSTEM_BUS_ADDRESS=" + bus_->address()},
                                {"NOTIFY_SOCKET"});
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      image.exec();
      ::_exit(127);
    }
  }

  // roced's exit code after `signal`; -1 when a signal ended it, -2 on a hang.
  int stop_roced(int signal_number) {
    ::kill(pid_, signal_number);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + kHang;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) return -2;
      std::this_thread::sleep_for(20ms);
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  bool roced_running() const { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; }

  std::string log() const { return read_file(log_); }

  // ---- the node, read with unmodified tools ----

  std::string exec(std::vector<std::string> command) const {
    const auto result = test::sim_exec(dir_, command);
    return result.exit_code == 0 ? result.out : "error: " + result.err;
  }

  PortValues read_port(const std::string& netdev) const {
    PortValues values;
    values["pfc"] = exec({"dcb", "pfc", "show", "dev", netdev});
    values["ets"] = exec({"dcb", "ets", "show", "dev", netdev});
    values["app"] = exec({"dcb", "app", "show", "dev", netdev});
    values["dcbx"] = exec({"dcb", "dcbx", "show", "dev", netdev});
    const std::string link = exec({"ip", "-o", "link", "show", "dev", netdev});
    const auto mtu_at = link.find(" mtu ");
    values["mtu"] = mtu_at == std::string::npos
                        ? link
                        : link.substr(mtu_at + 5, link.find(' ', mtu_at + 5) - mtu_at - 5);
    values["stall_prevention"] = exec({"ethtool", "--get-tunable", netdev, "pfc-prevention-tout"});
    const std::string device = "mlx5_" + std::to_string(netdev.back() - '2');
    const fs::path rdma_cm = dir_ / "config/rdma_cm" / device / "ports/1";
    values["roce_tos"] = fs::exists(rdma_cm) ? read_file(rdma_cm / "default_roce_tos") : "absent";
    values["roce_mode"] = fs::exists(rdma_cm) ? read_file(rdma_cm / "default_roce_mode") : "absent";
    return values;
  }

  // What roced makes of a port: read once every port is in sync (lan5 by default, which the
  // faults leave alone), compared with the values a test expects.
  PortValues wanted(const std::string& reference = "lan5") const { return read_port(reference); }

  // ---- roced's answers ----

  CommandResult busctl(const std::string& method) const {
    return run_command({"busctl", "--address=" + bus_->address(), "--json=short", "call",
                        "io.roced.Daemon1", "/io/roced/Daemon1", "io.roced.Daemon1", method});
  }

  // GetStatus's document; null when roced does not answer.
  Json status() const {
    const auto result = busctl("GetStatus");
    if (result.exit_code != 0) return nullptr;
    return Json::parse(Json::parse(result.out).at("data").at(0).get<std::string>());
  }

  Json port_status(const std::string& netdev) const {
    const Json all = status();
    if (all.is_null()) return nullptr;
    for (const Json& port : all.at("ports")) {
      if (port.at("netdev") == netdev) return port;
    }
    return nullptr;
  }

  bool all_in_sync() const {
    const Json all = status();
    if (all.is_null() || all.at("ports").size() != kPorts.size()) return false;
    for (const Json& port : all.at("ports")) {
      if (port.at("condition") != "in-sync") return false;
    }
    return true;
  }

  // GET /metrics on the loopback endpoint; empty when it does not answer 200.
  std::string scrape() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return {};
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(metrics_port_));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval timeout{20, 0};  // only stops a hang
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const std::string request =
          "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
      if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
        char chunk[65536];
        for (ssize_t got; (got = ::recv(fd, chunk, sizeof chunk, 0)) > 0;) {
          response.append(chunk, static_cast<size_t>(got));
        }
      }
    }
    ::close(fd);
    if (response.rfind("HTTP/1.1 200", 0) != 0) return {};
    return response.substr(response.find("\r\n\r\n") + 4);
  }

  // One sample's value: `series` is the metric name with its labels exactly as exposed.
  static std::optional<double> metric(const std::string& text, const std::string& series) {
    const auto at = text.find("\n" + series + " ");
    if (at == std::string::npos) return std::nullopt;
    return std::stod(text.substr(at + series.size() + 2));
  }

  // Plays a scenario document into the node now; its answer.
  CommandResult inject(const std::string& document) const {
    const fs::path file = dir_ / ("fault-" + std::to_string(++injections_) + ".yaml");
    write_file(file, document);
    return run_command({ROCE_SIM_BINARY, "inject", dir_.string(), file.string()});
  }

  // ---- the three checks every fault ends with ----

  // Every port as it was before roced started (firmware defaults) or as wanted.
  void expect_each_port_as_it_was_or_as_wanted(const PortValues& wanted_values) const {
    for (const auto& netdev : kPorts) {
      const PortValues now = read_port(netdev);
      EXPECT_TRUE(now == firmware_.at(netdev) || now == wanted_values)
          << netdev << " is neither as it was nor as wanted:\n"
          << describe(now) << "as it was:\n"
          << describe(firmware_.at(netdev)) << "wanted:\n"
          << describe(wanted_values);
    }
  }

  // D-Bus answers, the metrics endpoint answers, and a later change (the cable length) reaches
  // every port.
  void expect_still_serving() {
    ASSERT_TRUE(roced_running()) << log();
    const Json all = status();
    ASSERT_FALSE(all.is_null()) << "GetStatus did not answer\n" << log();
    EXPECT_EQ(all.at("ports").size(), kPorts.size()) << all.dump();
    const std::string metrics = scrape();
    EXPECT_TRUE(metrics.find("roce_port_info{") != std::string::npos)
        << "the metrics endpoint did not answer\n"
        << log();
    write_file(config_, fault_config(25));
    ASSERT_EQ(::kill(pid_, SIGHUP), 0);
    for (const auto& netdev : kPorts) {
      EXPECT_TRUE(eventually([&] { return contains(read_port(netdev)["pfc"], "delay 25"); }))
          << netdev << " did not take the later change\n"
          << log();
    }
  }

  static int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof addr;
    int port = -1;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) == 0) {
      port = ntohs(addr.sin_port);
    }
    ::close(fd);
    return port;
  }

  fs::path config_;
  fs::path log_;
  std::unique_ptr<PrivateBus> bus_;
  int metrics_port_ = -1;
  pid_t pid_ = -1;
  std::map<std::string, PortValues> firmware_;  // every port before roced touched it
  mutable int injections_ = 0;
};

}  // namespace roced::test
