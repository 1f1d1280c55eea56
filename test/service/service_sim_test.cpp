// SPDX-License-Identifier: Apache-2.0
// roced in service mode against a running roce-sim (default node: lan2..lan5), the way systemd
// runs it: $NOTIFY_SOCKET is a Unix datagram socket this test owns, so READY=1, STATUS=,
// WATCHDOG=1, RELOADING=1 and STOPPING=1 are seen as systemd would see them. Ports are checked
// with unmodified iproute2 through `roce-sim exec`, writes with the sim's write counter
// (DIR/roce-sim.writes). Deadlines are generous and nothing here asserts how long anything took.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "node_files.hpp"
#include "run_command.hpp"
#include "sim_exec.hpp"
#include "sim_node.hpp"
#include "test/service/configmap_dir.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

constexpr auto kDeadline = 60s;

std::string config_text(const std::string& daemon, int cable_length = 10) {
  return "daemon:\n" + daemon +
         "ports:\n"
         "  netdevs: [lan2, lan3, lan4, lan5]\n"
         "profile:\n"
         "  dscp_map: {26: 3, 48: 6}\n"
         "  pfc: {priorities: [3], cable_length: " +
         std::to_string(cable_length) +
         "}\n"
         "  mtu: 9000\n";
}
const std::string kDaemon = "  drift_check_interval: 200ms\n";

using test::contains;
using test::read_file;
using test::read_writes;
using test::write_file;

size_t line_count(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool eventually(const std::function<bool()>& condition, std::chrono::seconds within = kDeadline) {
  const auto deadline = SteadyClock::now() + within;
  while (!condition()) {
    if (SteadyClock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// $NOTIFY_SOCKET: what systemd would receive, one entry per "NAME=value" line, in order.
class NotifySocket {
 public:
  explicit NotifySocket(const fs::path& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  bool bound() const { return bound_; }
  const fs::path& path() const { return path_; }

  // Receives until `condition(messages)` holds or the deadline passes.
  bool wait_for(const std::function<bool(const std::vector<std::string>&)>& condition,
                std::chrono::seconds within = kDeadline) {
    const auto deadline = SteadyClock::now() + within;
    while (!condition(messages_)) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
      if (left.count() <= 0) return false;
      receive(left);
    }
    return true;
  }
  bool wait_for_message(const std::string& message, size_t count = 1,
                        std::chrono::seconds within = kDeadline) {
    return wait_for([&](const auto& all) { return occurrences(all, message) >= count; }, within);
  }
  // Whatever arrives within `duration`.
  void drain_for(std::chrono::milliseconds duration) {
    const auto deadline = SteadyClock::now() + duration;
    for (auto now = SteadyClock::now(); now < deadline; now = SteadyClock::now()) {
      receive(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
    }
  }
  // Everything already queued, without waiting. Once the sender has exited that is all it ever
  // sent: a datagram is in this socket's queue when its send returns.
  void drain() {
    while (take(MSG_DONTWAIT)) {
    }
  }

  static size_t occurrences(const std::vector<std::string>& all, const std::string& message) {
    return static_cast<size_t>(std::count(all.begin(), all.end(), message));
  }
  const std::vector<std::string>& messages() const { return messages_; }
  std::string all_text() const {
    std::string out;
    for (const auto& m : messages_) out += m + "\n";
    return out;
  }

 private:
  void receive(std::chrono::milliseconds timeout) {
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, static_cast<int>(timeout.count())) <= 0) return;
    take(0);
  }
  // One datagram into messages_; false when there was none.
  bool take(int flags) {
    char buffer[4096];
    const ssize_t got = ::recv(fd_, buffer, sizeof(buffer), flags);
    if (got <= 0) return false;
    std::istringstream lines(std::string(buffer, static_cast<size_t>(got)));
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) messages_.push_back(line);
    }
    return true;
  }

  fs::path path_;
  int fd_ = -1;
  bool bound_ = false;
  std::vector<std::string> messages_;
};

// One roced process: stdout and stderr into `log`, $NOTIFY_SOCKET set, killed if still running
// at the end.
class Roced {
 public:
  Roced(std::vector<std::string> args, const fs::path& notify_socket, const fs::path& log,
        std::optional<std::string> watchdog_usec = std::nullopt)
      : log_(log) {
    args.insert(args.begin(), ROCED_BINARY);
    std::vector<std::string> set = {"NOTIFY_SOCKET=" + notify_socket.string()};
    // JOURNAL_STREAM unset: the console sink, into `log`, even under systemd.
    std::vector<std::string> unset = {"JOURNAL_STREAM", "WATCHDOG_PID", "WATCHDOG_USEC"};
    if (watchdog_usec) set.push_back("WATCHDOG_USEC=" + *watchdog_usec);
    const test::ExecImage image(args, set, unset);
    pid_ = ::fork();
    if (pid_ == 0) {
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
      image.exec();
      ::_exit(127);
    }
  }
  ~Roced() {
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  bool started() const { return pid_ > 0; }
  void signal(int number) const { ::kill(pid_, number); }
  bool running() {
    if (exit_code_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      return false;
    }
    return true;
  }
  // The exit code (-1 when killed by a signal); nullopt when still running at the deadline.
  std::optional<int> wait_exit(std::chrono::seconds within = kDeadline) {
    eventually([&] { return !running(); }, within);
    return exit_code_;
  }
  std::string log() const { return read_file(log_); }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

class ServiceSim : public test::SimNode {
 protected:
  void SetUp() override {
    test::SimNode::SetUp();
    config_ = dir_ / "roced.yaml";
    write_file(config_, config_text(kDaemon));
    notify_ = std::make_unique<NotifySocket>(dir_ / "notify.sock");
    ASSERT_TRUE(notify_->bound()) << "cannot bind " << (dir_ / "notify.sock");
  }
  void TearDown() override {
    notify_.reset();
    test::SimNode::TearDown();
  }

  std::unique_ptr<Roced> start(std::vector<std::string> extra = {},
                               std::optional<std::string> watchdog_usec = std::nullopt,
                               const std::string& log_name = "roced.log") {
    // No D-Bus: the API has its own tests on a private bus (test/dbus); here it could only meet
    // the machine's real system bus.
    std::vector<std::string> args = {"--sim", dir_.string(), "--config", config_.string(),
                                     "--no-dbus"};
    args.insert(args.end(), extra.begin(), extra.end());
    return std::make_unique<Roced>(args, notify_->path(), dir_ / log_name, watchdog_usec);
  }

  // A command of unmodified iproute2 against the node; its stdout.
  std::string exec(std::vector<std::string> command) const {
    const auto result = test::sim_exec(dir_, command);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return result.out;
  }
  std::string pfc(const std::string& netdev = "lan3") const {
    return exec({"dcb", "pfc", "show", "dev", netdev});
  }

  // File writes reach the sim through inotify, after the writer is done; inotify events come in
  // order, so once a same-value write of our own shows in the counter, every earlier one has
  // been counted. That write counts one on lan2 (and in the total).
  // The node's write counter once every write made so far is counted. A netlink request is the
  // server's barrier for file writes (docs/sim-formats.md); a read, so it adds no write itself.
  // (A file write as the barrier would race with roced's own reads of that file.)
  std::map<std::string, uint64_t> writes_after_barrier() const {
    const auto shown = test::run_command(
        {ROCE_SIM_BINARY, "exec", dir_.string(), "--", "ip", "link", "show", "lan2"});
    EXPECT_EQ(shown.exit_code, 0) << shown.err;
    return read_writes(dir_);
  }

  // The STATUS= lines received so far, in order, without the "STATUS=".
  std::vector<std::string> statuses() const {
    std::vector<std::string> out;
    for (const auto& m : notify_->messages()) {
      if (m.rfind("STATUS=", 0) == 0) out.push_back(m.substr(7));
    }
    return out;
  }

  fs::path config_;
  std::unique_ptr<NotifySocket> notify_;
};

TEST_F(ServiceSim, ReadyComesOnceThePortsAreInSyncAndSigtermExitsZero) {
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();

  // At READY=1 every port is already configured, as iproute2 reads it back.
  for (const std::string netdev : {"lan2", "lan3", "lan4", "lan5"}) {
    const std::string shown = pfc(netdev);
    EXPECT_TRUE(contains(shown, "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"))
        << netdev << ": " << shown;
    EXPECT_TRUE(contains(shown, "delay 10")) << netdev << ": " << shown;
  }
  EXPECT_TRUE(contains(exec({"ip", "link", "show", "dev", "lan3"}), "mtu 9000"));

  // STATUS= said what it was doing, and at READY=1 that every port is in sync.
  const auto& all = notify_->messages();
  const auto ready_at = std::find(all.begin(), all.end(), "READY=1");
  std::optional<std::string> last_status;
  for (auto it = all.begin(); it != ready_at; ++it) {
    if (it->rfind("STATUS=", 0) == 0) last_status = it->substr(7);
  }
  ASSERT_TRUE(last_status.has_value()) << notify_->all_text();
  EXPECT_EQ(*last_status, "4 ports: 4 in sync") << notify_->all_text();
  EXPECT_TRUE(contains(statuses().front(), "starting")) << notify_->all_text();

  roced->signal(SIGTERM);
  ASSERT_EQ(roced->wait_exit(), 0) << roced->log();
  notify_->drain();  // roced has exited: all it sent is queued
  EXPECT_EQ(NotifySocket::occurrences(notify_->messages(), "STOPPING=1"), 1u)
      << notify_->all_text();
  // No watchdog was asked for, so none was sent.
  EXPECT_EQ(NotifySocket::occurrences(notify_->messages(), "WATCHDOG=1"), 0u)
      << notify_->all_text();
}

// The node's own link training (3 s at 400G): roced flaps the four ports one after another at
// start, each back with carrier before the next, and tells systemd that start-up needs longer
// while it does (12 s here; eight rails with slow links can outlast TimeoutStartSec).
// lan3 sends on priority 3; a storm from the switch is injected once roced holds it.
class ServiceSimStorm : public ServiceSim {
 protected:
  std::string scenario_file() const override {
    const std::string path = "/tmp/roced-service-storm-" + std::to_string(::getpid()) + ".yaml";
    write_file(path,
               "name: storm-at-stop\n"
               "traffic:\n"
               "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n");
    return path;
  }
  void inject(const std::string& events) const {
    const fs::path file = dir_.parent_path() / (dir_.filename().string() + "-events.yaml");
    write_file(file, events);
    const auto injected =
        test::run_command({ROCE_SIM_BINARY, "inject", dir_.string(), file.string()});
    fs::remove(file);
    EXPECT_EQ(injected.exit_code, 0) << injected.out << injected.err;
  }
};

// SIGTERM while the watchdog holds PFC off on lan3: the stop puts it back, says so at warning,
// and exits 0; dcb reads priority 3 on again. A stopped roced watches no storm, so it leaves no
// port lossy and unseen behind it.
TEST_F(ServiceSimStorm, SigtermDuringAStormHoldPutsPfcBackAndSaysSo) {
  write_file(config_, config_text(kDaemon) +
                          "watchdog: {enabled: true, poll_interval: 10ms, detection_time: 50ms, "
                          "restoration_time: 300ms, action: disable-pfc}\n");
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  inject(
      "events:\n"
      "  - {at: 0s, kind: pfc_storm, port: lan3, priority: 3, direction: rx, duration: 3600s}\n");
  ASSERT_TRUE(eventually([&] { return contains(pfc("lan3"), "3:off"); })) << roced->log();
  ASSERT_TRUE(eventually([&] { return contains(roced->log(), "PFC off on the priority"); }))
      << roced->log();

  roced->signal(SIGTERM);
  ASSERT_EQ(roced->wait_exit(), 0) << roced->log();
  EXPECT_TRUE(contains(pfc("lan3"), "prio-pfc 0:off 1:off 2:off 3:on")) << pfc("lan3");
  const std::string log = roced->log();
  EXPECT_TRUE(contains(log,
                       "stopping: put the configuration back where the storm watchdog held "
                       "it (PFC off on priority 3)"))
      << log;
  EXPECT_TRUE(contains(log, "nothing watches this port for PFC storms")) << log;
}

class ServiceSimTrainingLinks : public ServiceSim {
  std::optional<uint32_t> link_training_ms() const override { return std::nullopt; }
};

TEST_F(ServiceSimTrainingLinks, StartFlapsOnePortAtATimeAndExtendsTheStartTimeout) {
  const auto began = std::chrono::steady_clock::now();
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  EXPECT_GE(std::chrono::steady_clock::now() - began, 12s);  // four links trained in turn
  const auto& all = notify_->messages();
  const auto ready_at = std::find(all.begin(), all.end(), "READY=1");
  // Extended while starting (every 10 s, by 30 s), never once ready.
  EXPECT_GE(std::count(all.begin(), ready_at, "EXTEND_TIMEOUT_USEC=30000000"), 1)
      << notify_->all_text();
  EXPECT_EQ(std::count(ready_at, all.end(), "EXTEND_TIMEOUT_USEC=30000000"), 0)
      << notify_->all_text();
  // Each port was configured a link training (3 s) after the one before it.
  const std::string log = roced->log();
  const std::regex configured(R"((\d\d):(\d\d):(\d\d)\.(\d\d\d) info lan\d: configured:)");
  std::vector<double> at;
  for (std::sregex_iterator it(log.begin(), log.end(), configured), end; it != end; ++it) {
    at.push_back(std::stoi((*it)[1]) * 3600.0 + std::stoi((*it)[2]) * 60.0 + std::stoi((*it)[3]) +
                 std::stoi((*it)[4]) / 1000.0);
  }
  ASSERT_EQ(at.size(), 4u) << log;
  for (size_t i = 1; i < at.size(); ++i) EXPECT_GE(at[i] - at[i - 1], 2.9) << log;
  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

// The metrics address is held by another process when roced starts (an old roced on its way
// out): roced configures the ports without the endpoint and opens it once the address is free.
TEST_F(ServiceSim, AMetricsAddressInUseIsTriedAgainUntilItIsFree) {
  const int holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(holder, 1), 0);
  socklen_t length = sizeof address;
  ASSERT_EQ(::getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string listen = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));

  auto roced = start({"--metrics-listen", listen});
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  EXPECT_TRUE(eventually([&] { return contains(roced->log(), "metrics endpoint not served"); }))
      << roced->log();
  EXPECT_TRUE(contains(roced->log(), "Address already in use")) << roced->log();
  EXPECT_TRUE(contains(roced->log(), "trying again")) << roced->log();

  ::close(holder);
  EXPECT_TRUE(eventually([&] { return contains(roced->log(), "(open at last)"); })) << roced->log();
  const auto scrape = test::run_command({"curl", "-sf", "http://" + listen + "/metrics"});
  EXPECT_EQ(scrape.exit_code, 0) << scrape.err;
  EXPECT_TRUE(contains(scrape.out, "roced_ports")) << scrape.out.substr(0, 500);
  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

TEST_F(ServiceSim, WatchdogIsFedWhenSystemdAsksForIt) {
  auto roced = start({}, "1000000");  // WatchdogSec=1s: WATCHDOG=1 about every 0.5 s
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  EXPECT_TRUE(notify_->wait_for_message("WATCHDOG=1", 3)) << notify_->all_text() << roced->log();
  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

TEST_F(ServiceSim, BrokenReloadKeepsTheRunningConfigAndSaysWhy) {
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  const auto before = writes_after_barrier();
  const std::string pfc_before = pfc();

  write_file(config_, config_text(kDaemon) + "  ets: {prio_tc: [0, 1, 2, 9, 4, 5, 6, 7]}\n");
  roced->signal(SIGHUP);
  ASSERT_TRUE(notify_->wait_for([](const auto& all) {
    return std::any_of(all.begin(), all.end(), [](const std::string& m) {
      return m.rfind("STATUS=", 0) == 0 && contains(m, "reload failed");
    });
  })) << notify_->all_text()
      << roced->log();

  // The status and the log say why, at the file's line and column.
  const std::string why = config_.string() + ":9:28: profile.ets.prio_tc: 9 is not";
  EXPECT_TRUE(contains(statuses().back(), "running the previous configuration"))
      << statuses().back();
  EXPECT_TRUE(contains(statuses().back(), why)) << statuses().back();
  EXPECT_TRUE(contains(roced->log(), why)) << roced->log();
  EXPECT_TRUE(contains(roced->log(), "keeping the running configuration")) << roced->log();
  // systemd saw the reload end: RELOADING=1 then READY=1 again.
  EXPECT_EQ(NotifySocket::occurrences(notify_->messages(), "RELOADING=1"), 1u);
  EXPECT_TRUE(notify_->wait_for_message("READY=1", 2)) << notify_->all_text();

  // A few drift checks later: still running, nothing written, the ports as they were.
  notify_->drain_for(1000ms);
  EXPECT_TRUE(roced->running()) << roced->log();
  const auto after = writes_after_barrier();
  EXPECT_EQ(after.at("total"), before.at("total"));
  EXPECT_EQ(after.at("lan3"), before.at("lan3"));
  EXPECT_EQ(pfc(), pfc_before);

  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

TEST_F(ServiceSim, ValidReloadAppliesTheChange) {
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  ASSERT_TRUE(contains(pfc(), "delay 10"));

  write_file(config_, config_text(kDaemon, 25));
  roced->signal(SIGHUP);
  EXPECT_TRUE(eventually([&] { return contains(pfc("lan3"), "delay 25"); })) << roced->log();
  EXPECT_TRUE(eventually([&] { return contains(pfc("lan5"), "delay 25"); })) << roced->log();
  EXPECT_TRUE(contains(roced->log(), "reloaded " + config_.string())) << roced->log();
  EXPECT_TRUE(notify_->wait_for([](const auto& all) {
    return !all.empty() && all.back() == "STATUS=4 ports: 4 in sync";
  })) << notify_->all_text();

  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

// A Kubernetes ConfigMap's update, which no signal announces: --watch-config sees the file
// change and reloads; no restart.
TEST_F(ServiceSim, UnderWatchConfigAConfigMapUpdateIsReloadedWithoutASignal) {
  test::ConfigMapDir configmap(dir_ / "configmap", "roced.yaml");
  fs::create_directories(dir_ / "configmap");
  configmap.publish(config_text(kDaemon));
  auto roced = start({"--config", configmap.file().string(), "--watch-config"});
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  ASSERT_TRUE(contains(pfc(), "delay 10"));

  configmap.publish(config_text(kDaemon, 25));
  EXPECT_TRUE(eventually([&] { return contains(pfc("lan3"), "delay 25"); })) << roced->log();
  EXPECT_TRUE(eventually([&] { return contains(pfc("lan5"), "delay 25"); })) << roced->log();
  EXPECT_TRUE(contains(roced->log(), configmap.file().string() + " changed: reloading"))
      << roced->log();
  EXPECT_TRUE(notify_->wait_for_message("RELOADING=1")) << notify_->all_text();
  EXPECT_TRUE(roced->running());

  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

// A node that checks capabilities as the kernel does (roce-sim --enforce-capabilities).
class ServiceSimCapabilities : public ServiceSim {
 protected:
  bool enforce_capabilities() const override { return true; }
};

TEST_F(ServiceSimCapabilities, WithoutCapNetAdminRocedNamesItAndTouchesNoPort) {
  // setpriv (util-linux): this roced's bounding and inheritable sets lack CAP_NET_ADMIN, so the
  // exec leaves it out of the effective set, as a container's --cap-drop does.
  const auto refused =
      test::run_command({"setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin",
                         ROCED_BINARY, "--sim", dir_.string(), "--config", config_.string(),
                         "--no-dbus", "--no-metrics", "--log-target", "console"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_TRUE(contains(refused.err, "roced needs CAP_NET_ADMIN")) << refused.err;
  EXPECT_TRUE(contains(refused.err, "not starting")) << refused.err;
  EXPECT_EQ(writes_after_barrier().at("total"), 0u);
  // The node itself refuses such a client's set, as rtnetlink_rcv_msg does.
  const auto mtu = test::run_command(
      {"setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin", ROCE_SIM_BINARY, "exec",
       dir_.string(), "--", "ip", "link", "set", "lan3", "mtu", "4000"});
  EXPECT_NE(mtu.exit_code, 0);
  EXPECT_TRUE(contains(mtu.err, "Operation not permitted")) << mtu.err;

  // With it, the same roced on the same node applies.
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  EXPECT_TRUE(contains(pfc(), "delay 10"));
  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

TEST_F(ServiceSim, RestartOnANodeAlreadyRightWritesNothing) {
  {
    auto first = start({}, std::nullopt, "first.log");
    ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << first->log();
    first->signal(SIGTERM);
    ASSERT_EQ(first->wait_exit(), 0) << first->log();
  }
  const auto before = writes_after_barrier();
  ASSERT_GT(before.at("lan3"), 0u) << "the first run configured the ports";

  auto second = start({}, std::nullopt, "second.log");
  ASSERT_TRUE(notify_->wait_for_message("READY=1", 2)) << notify_->all_text() << second->log();
  notify_->drain_for(1000ms);  // a few drift checks (200 ms) as well
  second->signal(SIGTERM);
  EXPECT_EQ(second->wait_exit(), 0) << second->log();

  const auto after = writes_after_barrier();
  EXPECT_EQ(after.at("total"), before.at("total"));
  for (const std::string netdev : {"lan3", "lan4", "lan5"}) {
    EXPECT_EQ(after.at(netdev), before.at(netdev)) << netdev;
  }
}

// One roced per node: a second is refused before it reads a port, and the first runs on.
// rocectl, which cannot reach this roced (no bus), will not write the ports beside it unless told
// to with --direct: the two would not pace their link flaps together.
TEST_F(ServiceSim, ASecondRocedAndAnUnpacedRocectlApplyAreRefusedWhileOneRuns) {
  auto first = start({}, std::nullopt, "first.log");
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << first->log();
  auto second = start({}, std::nullopt, "second.log");
  ASSERT_EQ(second->wait_exit(), 1) << second->log();
  EXPECT_TRUE(contains(second->log(), "another roced (pid ")) << second->log();
  EXPECT_TRUE(first->running());

  write_file(config_, config_text(kDaemon, 20));  // a change rocectl would make
  const auto before = writes_after_barrier();
  const std::vector<std::string> rocectl = {
      "env",          "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent",
      ROCECTL_BINARY, "--sim",
      dir_.string(),  "apply",
      "--config",     config_.string(),
      "--yes"};
  const auto refused = test::run_command(rocectl);
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_TRUE(contains(refused.err, "runs for this node but rocectl cannot apply through it"))
      << refused.err;
  EXPECT_EQ(writes_after_barrier().at("total"), before.at("total"));

  first->signal(SIGTERM);
  ASSERT_EQ(first->wait_exit(), 0) << first->log();
  // Once it has stopped, rocectl writes the ports itself.
  const auto applied = test::run_command(rocectl);
  EXPECT_EQ(applied.exit_code, 0) << applied.out << applied.err;
  EXPECT_TRUE(contains(pfc("lan3"), "delay 20")) << pfc("lan3");
}

TEST_F(ServiceSim, DefaultLevelLogsNoLinePerDriftCheck) {
  auto roced = start();
  ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << roced->log();
  ASSERT_TRUE(eventually([&] { return contains(roced->log(), "ready: "); })) << roced->log();
  const std::string at_ready = roced->log();

  notify_->drain_for(1500ms);  // about 7 drift checks at 200 ms on a steady node
  const std::string later = roced->log();
  ASSERT_TRUE(roced->running());
  const size_t new_lines = line_count(later) - line_count(at_ready);
  EXPECT_LT(new_lines, 3u) << "lines logged after READY:\n" << later.substr(at_ready.size());

  roced->signal(SIGTERM);
  EXPECT_EQ(roced->wait_exit(), 0) << roced->log();
}

TEST_F(ServiceSim, LogLevelComesFromTheConfigUnlessTheFlagSaysOtherwise) {
  write_file(config_, config_text(kDaemon + "  log_level: warn\n"));
  {
    auto quiet = start({}, std::nullopt, "quiet.log");
    ASSERT_TRUE(notify_->wait_for_message("READY=1")) << notify_->all_text() << quiet->log();
    quiet->signal(SIGTERM);
    ASSERT_EQ(quiet->wait_exit(), 0) << quiet->log();
    EXPECT_FALSE(contains(quiet->log(), " info ")) << quiet->log();
  }
  auto loud = start({"--log-level", "info"}, std::nullopt, "loud.log");
  ASSERT_TRUE(notify_->wait_for_message("READY=1", 2)) << notify_->all_text() << loud->log();
  loud->signal(SIGTERM);
  ASSERT_EQ(loud->wait_exit(), 0) << loud->log();
  EXPECT_TRUE(contains(loud->log(), " info ready: 4 ports: 4 in sync")) << loud->log();
}

TEST_F(ServiceSim, InvalidConfigAtStartExitsOneAndWritesNothing) {
  write_file(config_, config_text(kDaemon) + "  roce: {tos: 300}\n");
  auto roced = start();
  ASSERT_EQ(roced->wait_exit(), 1) << roced->log();
  EXPECT_TRUE(contains(roced->log(), config_.string() + ":9:15: profile.roce.tos: 300 is not"))
      << roced->log();
  notify_->drain();  // roced has exited: all it sent is queued
  EXPECT_EQ(NotifySocket::occurrences(notify_->messages(), "READY=1"), 0u);
  ASSERT_FALSE(statuses().empty()) << notify_->all_text();
  EXPECT_TRUE(contains(statuses().back(), "invalid configuration")) << statuses().back();
  EXPECT_EQ(writes_after_barrier().at("total"), 0u);
}

}  // namespace
}  // namespace roced
