// SPDX-License-Identifier: Apache-2.0
// bench/daemon_bench: the real `roced` (service mode, the shipped packaging/roced.yaml: enforce,
// drift check every 30 s) against roce-sim nodes, timed from outside as systemd and an operator
// would see it:
//   1. a driver reload of every port: from the links coming back (RTM_NEWLINK seen on this
//      process' own RTNLGRP_LINK socket) to every port verified in sync by plan::make_plan here;
//   2. an external `dcb pfc set dev lan3 prio-pfc 3:off 4:on` at a random moment (5.5-9 s after
//      the previous one, outside roced's 5 s anti-fight window): from its DCB
//      notification to make_plan showing the port in sync again, next to a cron-like fix-up loop
//      (`while sleep 60; do <apply script>; done`: its latency derived, its apply time measured);
//   3. roced idle after READY=1: CPU (/proc/PID/stat, task schedstat) and memory (VmRSS, VmHWM),
//      next to a `dcb show` polling loop every 30 s (its cost per poll measured once).
//   daemon_bench [--runs N] [--idle SECONDS] [--smoke]
// --smoke: one short run of each on the 4-port node; exits 1 unless roced reaches READY=1 and
// every port ends in sync. Speed is printed, never asserted.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/child_process.hpp"
#include "bench/process_cost.hpp"
#include "bench/shell_recipe.hpp"
#include "bench/sim_process.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "daemon/reconcile/netlink_events.hpp"
#include "os/system.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"

namespace {

using namespace roced;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using bench::Child;
using bench::NotifySocket;
using bench::ProcessCost;
using bench::read_cost;
using bench::read_text;
using bench::SimProcess;
using reconcile::NetlinkEvent;

constexpr double kAimInSyncMs = 1000;       // back in sync within 1 s
constexpr double kAimIdleCpuPercent = 0.1;  // idle CPU under 0.1 % of a core
constexpr auto kCronInterval = 60s;         // the fix-up loop a user would otherwise run
constexpr auto kPollInterval = 30s;  // the `dcb show` polling loop, at roced's drift interval
constexpr auto kDeadline = 60s;      // for anything that should take well under a second

double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

struct Samples {
  std::vector<double> ms;
  double pick(double fraction) const {
    if (ms.empty()) return 0;
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    const size_t mid = sorted.size() / 2;
    if (fraction != 0.5) return fraction < 0.5 ? sorted.front() : sorted.back();
    return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
  double median() const { return pick(0.5); }
  double min() const { return pick(0); }
  double max() const { return pick(1); }
};

// ---- one node under roced: the sim, roced on it with a notify socket, and our own ears on the
// node's RTNLGRP_LINK/RTNLGRP_DCB.
struct Timed {
  Clock::time_point at;
  NetlinkEvent event;
};

class Node {
 public:
  Node(const std::string& node_file, const std::string& scenario_file, const std::string& config)
      : sim_(ROCE_SIM_BINARY, node_file, scenario_file),
        system_(roce_sim::simulated_system(sim_.dir())),
        notify_(sim_.dir() / "notify.sock"),
        config_path_(config) {
    const config::LoadResult loaded = config::load_file(config);
    if (!loaded.ok()) throw std::runtime_error(config + ": invalid configuration");
    config_ = *loaded.config;
    auto socket = reconcile::open_event_socket(system_);
    if (!socket) throw std::runtime_error("cannot join the node's RTNLGRP_LINK/DCB");
    events_ = std::move(*socket);
    started_ = Clock::now();
  }

  const SimProcess& sim() const { return sim_; }
  System& system() { return system_; }
  const config::Config& config() const { return config_; }
  const std::vector<Timed>& events() const { return events_seen_; }
  // STATUS= texts roced sent, with when they arrived.
  const std::vector<std::pair<Clock::time_point, std::string>>& statuses() const {
    return statuses_;
  }
  // When the node started, or when the last injected document's times began.
  Clock::time_point started() const { return started_; }
  Child* roced() { return roced_.get(); }

  // Plays `document` into the running node (`roce-sim inject`): its `at` times count from now,
  // so a schedule begins when the caller is ready for it, however long roced took to start.
  void inject(const std::string& document) {
    const fs::path file = sim_.dir() / "bench-inject.yaml";
    std::ofstream(file) << document;
    started_ = Clock::now();
    const std::string binary = ROCE_SIM_BINARY;
    const std::string dir = sim_.dir().string();
    const std::string path = file.string();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl(binary.c_str(), binary.c_str(), "inject", dir.c_str(), path.c_str(), nullptr);
      ::_exit(127);
    }
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
      throw std::runtime_error("roce-sim inject " + path + " failed");
    }
  }

  void start_roced() {
    roced_ = std::make_unique<Child>(
        std::vector<std::string>{ROCED_BINARY, "--sim", sim_.dir().string(), "--config",
                                 config_path_, "--no-dbus"},
        std::vector<std::string>{"NOTIFY_SOCKET=" + notify_.path().string()},
        sim_.dir() / "roced.log");
  }
  // Pumps until READY=1; false when roced exits or the deadline passes.
  bool wait_ready() {
    const auto deadline = Clock::now() + kDeadline;
    while (!ready_) {
      if (!roced_->running() || Clock::now() > deadline) return false;
      pump(50ms);
    }
    return true;
  }
  std::optional<Clock::time_point> ready_at() const { return ready_; }
  std::string roced_log() const { return read_text(sim_.dir() / "roced.log"); }

  // Reads what arrived on either socket, waiting up to `timeout` for the first of it.
  void pump(std::chrono::milliseconds timeout) {
    pollfd fds[2] = {{events_->fd(), POLLIN, 0}, {notify_.fd(), POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(timeout.count())) <= 0) return;
    const auto now = Clock::now();
    if (fds[0].revents & POLLIN) {
      for (;;) {
        auto datagram = events_->receive(0ms);
        if (!datagram || datagram->empty()) break;
        for (NetlinkEvent& event : reconcile::parse_notifications(*datagram)) {
          events_seen_.push_back({now, std::move(event)});
        }
      }
    }
    if (fds[1].revents & POLLIN) {
      for (const std::string& line : notify_.take()) {
        if (line == "READY=1" && !ready_) ready_ = now;
        if (line.rfind("STATUS=", 0) == 0) statuses_.emplace_back(now, line.substr(7));
      }
    }
  }
  void pump_for(std::chrono::milliseconds duration) {
    const auto until = Clock::now() + duration;
    for (auto now = Clock::now(); now < until; now = Clock::now()) {
      pump(std::chrono::duration_cast<std::chrono::milliseconds>(until - now));
    }
  }

  // make_plan here: "" when every selected port (at least `ports`) is in sync, else why not.
  std::string out_of_sync(size_t ports) {
    const plan::Plan plan = plan::make_plan(system_, config_);
    if (!plan.error.empty()) return "plan: " + plan.error;
    if (plan.ports.size() < ports) {
      return std::to_string(plan.ports.size()) + " of " + std::to_string(ports) + " ports present";
    }
    std::string why;
    for (const plan::PortPlan& port : plan.ports) {
      if (port.in_sync()) continue;
      why += (why.empty() ? "" : "; ") + port.port.netdev + ":";
      if (!port.error.empty()) why += " " + port.error;
      for (const plan::Change& change : port.changes) {
        why += " " + plan::setting_name(change.setting, change.key);
      }
    }
    return why;
  }
  size_t port_count() { return plan::make_plan(system_, config_).ports.size(); }

  // From `from` on: pumps; checks make_plan whenever roced's STATUS= says every port is in sync
  // and at least every 100 ms otherwise. The moment a make_plan found every port in sync (its
  // end: an upper bound), and the first "all in sync" STATUS= after `from`; nullopt on timeout.
  struct InSync {
    Clock::time_point verified;
    std::optional<Clock::time_point> status;
  };
  std::optional<InSync> wait_in_sync(Clock::time_point from, size_t ports) {
    const std::string all = std::to_string(ports) + " ports: " + std::to_string(ports) + " in sync";
    const auto deadline = from + kDeadline;
    size_t seen = statuses_.size();
    std::optional<Clock::time_point> status;
    auto last_check = Clock::time_point{};
    while (Clock::now() < deadline) {
      bool says_in_sync = false;
      for (; seen < statuses_.size(); ++seen) {
        if (statuses_[seen].first >= from && statuses_[seen].second == all) {
          says_in_sync = true;
          if (!status) status = statuses_[seen].first;
        }
      }
      if (says_in_sync || Clock::now() - last_check >= 100ms) {
        last_check = Clock::now();
        if (out_of_sync(ports).empty()) return InSync{Clock::now(), status};
      }
      pump(10ms);
    }
    return std::nullopt;
  }

 private:
  SimProcess sim_;
  System system_;
  NotifySocket notify_;
  std::string config_path_;
  config::Config config_;
  std::unique_ptr<NetlinkSocket> events_;
  std::vector<Timed> events_seen_;
  std::vector<std::pair<Clock::time_point, std::string>> statuses_;
  std::optional<Clock::time_point> ready_;
  Clock::time_point started_;
  std::unique_ptr<Child> roced_;
};

struct NodeResult {
  std::string name;
  size_t ports = 0;
  Samples ready;                       // roced start -> READY=1 (a cold apply)
  Samples reload, reload_status;       // links back -> verified in sync / roced's STATUS=
  Samples external, external_status;   // foreign change's notification -> verified in sync
  Samples script_apply;                // the fix-up script, once per node
  uint64_t script_writes_in_sync = 0;  // writes of one fix-up run on a node already in sync
  std::vector<std::string> problems;
};

// A scenario of `runs` driver reloads of every port, the first at `first`, then every `gap`.
std::string reload_scenario(int runs, std::chrono::seconds first, std::chrono::seconds gap,
                            std::chrono::seconds down_for) {
  std::string text = "name: daemon-bench-reload\nclock: {speed: 1}\nevents:\n";
  for (int run = 0; run < runs; ++run) {
    text += "  - {at: " + std::to_string((first + run * gap).count()) +
            "s, kind: driver_reload, port: all, down_for: " + std::to_string(down_for.count()) +
            "s}\n";
  }
  return text;
}

// 1: driver reloads of every port, as the scenario times them.
void measure_reloads(Node& node, int runs, std::chrono::seconds first, std::chrono::seconds gap,
                     NodeResult& result) {
  const size_t ports = result.ports;
  size_t next = 0;  // events_ index scanned so far
  for (int run = 0; run < runs; ++run) {
    const std::string why = node.out_of_sync(ports);
    if (!why.empty()) {
      result.problems.push_back("before reload " + std::to_string(run + 1) +
                                ": not in sync: " + why);
    }
    // Every port unregistered (RTM_DELLINK), then registered again (RTM_NEWLINK).
    std::set<std::string> gone, back;
    std::optional<Clock::time_point> links_back;
    const auto deadline = node.started() + first + run * gap + kDeadline;
    while (!links_back && Clock::now() < deadline) {
      node.pump(20ms);
      for (; next < node.events().size(); ++next) {
        const Timed& seen = node.events()[next];
        if (seen.event.kind == NetlinkEvent::Kind::LinkRemoved) {
          gone.insert(seen.event.netdev);
        } else if (seen.event.kind == NetlinkEvent::Kind::LinkChanged &&
                   gone.count(seen.event.netdev) && back.insert(seen.event.netdev).second &&
                   back.size() == ports) {
          links_back = seen.at;
          ++next;
          break;
        }
      }
    }
    if (!links_back) {
      result.problems.push_back("reload " + std::to_string(run + 1) +
                                ": the links did not all come back (" +
                                std::to_string(back.size()) + " of " + std::to_string(ports) + ")");
      return;
    }
    const auto in_sync = node.wait_in_sync(*links_back, ports);
    if (!in_sync) {
      result.problems.push_back("reload " + std::to_string(run + 1) + ": not in sync after " +
                                std::to_string(kDeadline.count()) +
                                " s: " + node.out_of_sync(ports));
      return;
    }
    result.reload.ms.push_back(ms_between(*links_back, in_sync->verified));
    if (in_sync->status)
      result.reload_status.ms.push_back(ms_between(*links_back, *in_sync->status));
  }
}

// 2: `dcb pfc set dev lan3 prio-pfc 3:off 4:on` at a random moment, `runs` times.
void measure_external(Node& node, int runs, std::mt19937& random, NodeResult& result) {
  const size_t ports = result.ports;
  const std::string netdev = "lan3";
  // An isolated change: roced backs off (1 s, 2 s, 4 s, ...) when the drift it just corrected
  // returns within 5 s (daemon/reconcile/port_worker.cpp, kFightWindow: another agent fighting
  // it), so the changes come at a random moment 5.5 to 9 s after the previous correction.
  std::uniform_int_distribution<int> pause_ms(5500, 9000);
  for (int run = 0; run < runs; ++run) {
    node.pump_for(std::chrono::milliseconds(pause_ms(random)));
    const std::string why = node.out_of_sync(ports);
    if (!why.empty()) {
      result.problems.push_back("before change " + std::to_string(run + 1) +
                                ": not in sync: " + why);
    }
    const uint64_t writes_before = node.sim().writes_total();
    size_t next = node.events().size();
    const auto launched = Clock::now();
    int status = -1;
    std::thread tool([&] {
      status =
          bench::run_program({ROCE_SIM_BINARY, "exec", node.sim().dir().string(), "--", "sh", "-c",
                              std::string(bench::kBookwormDcb) + "dcb pfc set dev " + netdev +
                                  " prio-pfc 3:off 4:on"});
    });
    // The change is made when its DCB notification goes out: the clock starts there.
    std::optional<Clock::time_point> changed;
    while (!changed && Clock::now() < launched + kDeadline) {
      node.pump(5ms);
      for (; next < node.events().size(); ++next) {
        const Timed& seen = node.events()[next];
        if (seen.event.netdev == netdev && seen.event.kind == NetlinkEvent::Kind::DcbChanged) {
          changed = seen.at;
          break;
        }
      }
    }
    tool.join();
    if (status != 0 || !changed) {
      result.problems.push_back("change " + std::to_string(run + 1) + ": dcb pfc set exited " +
                                std::to_string(status) +
                                (changed ? "" : ", no DCB notification seen"));
      return;
    }
    const auto in_sync = node.wait_in_sync(*changed, ports);
    if (!in_sync) {
      result.problems.push_back("change " + std::to_string(run + 1) +
                                ": not corrected: " + node.out_of_sync(ports));
      return;
    }
    // One write was the tool's; the correction must be roced's (at least one more).
    node.out_of_sync(ports);  // a netlink request: the counter is settled
    const uint64_t writes = node.sim().writes_total() - writes_before;
    if (writes < 2) {
      result.problems.push_back("change " + std::to_string(run + 1) +
                                ": in sync again but roced wrote nothing (" +
                                std::to_string(writes) + " writes in all)");
    }
    result.external.ms.push_back(ms_between(*changed, in_sync->verified));
    if (in_sync->status) {
      result.external_status.ms.push_back(ms_between(*changed, *in_sync->status));
    }
  }
}

// The fix-up script a cron-like loop would run, with roced stopped: time it on the same drift,
// then count what it writes on a node already in sync.
void measure_script(Node& node, NodeResult& result) {
  const size_t ports = result.ports;
  std::vector<DiscoveredPort> discovered;
  for (const plan::PortPlan& port : plan::make_plan(node.system(), node.config()).ports) {
    discovered.push_back(port.port);
  }
  const bench::ShellRecipe recipe =
      bench::shell_recipe(discovered, node.config().profile, node.sim().dir());
  const std::string dir = node.sim().dir().string();
  bench::run_program(
      {ROCE_SIM_BINARY, "exec", dir, "--", "sh", "-c",
       std::string(bench::kBookwormDcb) + "dcb pfc set dev lan3 prio-pfc 3:off 4:on"});
  const auto start = Clock::now();
  const int status =
      bench::run_program({ROCE_SIM_BINARY, "exec", dir, "--", "sh", "-c", recipe.apply});
  result.script_apply.ms.push_back(ms_between(start, Clock::now()));
  // The script cannot set everything roced does (bench/README.md): judge it on PFC only.
  std::string pfc_show;
  bench::run_program({ROCE_SIM_BINARY, "exec", dir, "--", "dcb", "pfc", "show", "dev", "lan3"},
                     &pfc_show);
  if (status != 0 || pfc_show.find(" 3:on ") == std::string::npos ||
      pfc_show.find(" 4:off ") == std::string::npos) {
    result.problems.push_back("the fix-up script (exit " + std::to_string(status) +
                              ") did not restore PFC on lan3: " + pfc_show);
  }
  const uint64_t before = node.sim().writes_total();
  bench::run_program({ROCE_SIM_BINARY, "exec", dir, "--", "sh", "-c", recipe.apply});
  node.out_of_sync(ports);  // settles the counter
  result.script_writes_in_sync = node.sim().writes_total() - before;
}

// One node: roced started, then `runs` driver reloads played into the node from its READY=1, then
// `runs` external changes, then the fix-up script with roced stopped.
NodeResult run_node(const std::string& node_file, const std::string& name, int runs,
                    std::chrono::seconds first, std::chrono::seconds gap, std::mt19937& random) {
  NodeResult result;
  result.name = name;
  Node node(node_file, "", ROCED_DEFAULT_CONFIG);
  result.ports = node.port_count();
  const auto launched = Clock::now();
  node.start_roced();
  if (!node.wait_ready()) {
    result.problems.push_back("roced did not send READY=1; its log:\n" + node.roced_log());
    return result;
  }
  result.ready.ms.push_back(ms_between(launched, *node.ready_at()));
  node.inject(reload_scenario(runs, first, gap, 1s));
  std::cerr << "daemon_bench: " << name << ": " << runs << " driver reload(s)...\n";
  measure_reloads(node, runs, first, gap, result);
  // Past the last reload's recovery before the external changes start.
  node.pump_for(std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(Clock::duration(0), node.started() + first + (runs - 1) * gap + 1s - Clock::now())));
  std::cerr << "daemon_bench: " << name << ": " << runs << " external change(s)...\n";
  measure_external(node, runs, random, result);
  if (!node.roced()->running()) {
    result.problems.push_back("roced exited early; its log:\n" + node.roced_log());
  }
  const int exit_code = node.roced()->stop();
  if (exit_code != 0) {
    result.problems.push_back("roced exited " + std::to_string(exit_code) + " on SIGTERM");
  }
  measure_script(node, result);
  return result;
}

// ---- 3: idle cost

struct IdleResult {
  std::string name;
  size_t ports = 0;
  double seconds = 0;
  double cpu_percent_sched = 0, cpu_percent_ticks = 0;
  ProcessCost end;
  uint64_t writes = 0;  // roced's writes while idle (must be 0)
  // The `dcb show` polling loop: one poll measured, the rate derived.
  double poll_wall_ms = 0, poll_cpu_ms = 0, loop_rss_mib = 0;
  std::vector<std::string> problems;
};

double children_cpu_ms() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto ms = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) * 1000.0 + static_cast<double>(tv.tv_usec) / 1000.0;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

IdleResult measure_idle(const std::string& node_file, const std::string& name,
                        std::chrono::seconds window) {
  IdleResult result;
  result.name = name;
  Node node(node_file, "", ROCED_DEFAULT_CONFIG);
  result.ports = node.port_count();
  node.start_roced();
  if (!node.wait_ready()) {
    result.problems.push_back("roced did not send READY=1; its log:\n" + node.roced_log());
    return result;
  }
  std::cerr << "daemon_bench: " << name << ": roced idle for " << window.count() << " s...\n";
  const pid_t pid = node.roced()->pid();
  const uint64_t writes_before = node.sim().writes_total();
  const ProcessCost start = read_cost(pid);
  const auto started = Clock::now();
  node.pump_for(window);
  result.end = read_cost(pid);
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  const double window_ms = result.seconds * 1000;
  result.cpu_percent_sched = (result.end.cpu_sched_ms - start.cpu_sched_ms) / window_ms * 100;
  result.cpu_percent_ticks = (result.end.cpu_ticks_ms - start.cpu_ticks_ms) / window_ms * 100;
  const std::string why = node.out_of_sync(result.ports);
  result.writes = node.sim().writes_total() - writes_before;
  if (!why.empty()) result.problems.push_back("idle node not in sync: " + why);
  if (!node.roced()->running()) result.problems.push_back("roced exited while idle");
  if (const int exit_code = node.roced()->stop(); exit_code != 0) {
    result.problems.push_back("roced exited " + std::to_string(exit_code) + " on SIGTERM");
  }

  // The alternative: `while sleep 30; do <dcb/ip/ethtool show, cat>; done`. One poll timed (wall
  // and the CPU of the processes it ran), and the RSS of the sleeping loop's shell.
  std::vector<DiscoveredPort> discovered;
  for (const plan::PortPlan& port : plan::make_plan(node.system(), node.config()).ports) {
    discovered.push_back(port.port);
  }
  const bench::ShellRecipe recipe =
      bench::shell_recipe(discovered, node.config().profile, node.sim().dir());
  const double cpu_before = children_cpu_ms();
  const auto poll_start = Clock::now();
  bench::run_program(
      {ROCE_SIM_BINARY, "exec", node.sim().dir().string(), "--", "sh", "-c", recipe.check});
  result.poll_wall_ms = ms_between(poll_start, Clock::now());
  result.poll_cpu_ms = children_cpu_ms() - cpu_before;
  Child loop({"sh", "-c", "while sleep 30; do :; done"}, {}, "/dev/null");
  std::this_thread::sleep_for(200ms);
  result.loop_rss_mib = read_cost(loop.pid()).rss_mib;
  return result;
}

// ---- report
void print_samples(const char* node, const char* what, const Samples& s) {
  if (s.ms.empty()) {
    std::printf("  %-13s %-44s %9s\n", node, what, "-");
    return;
  }
  std::printf("  %-13s %-44s %9.1f %9.1f %9.1f %4zu\n", node, what, s.median(), s.min(), s.max(),
              s.ms.size());
}

void print_report(const std::vector<NodeResult>& nodes, const std::vector<IdleResult>& idles) {
  double load[3] = {0, 0, 0};
  ::getloadavg(load, 3);
  std::printf("\nroced %s, config %s (enforce, drift check 30 s); load average %.2f %.2f %.2f\n",
              ROCED_BINARY, ROCED_DEFAULT_CONFIG, load[0], load[1], load[2]);
  std::printf(
      "\n1+2. Back in sync (measured; make_plan here after roced's STATUS= says so, or\n"
      "     every 100 ms; the time is that make_plan's end, an upper bound)\n");
  std::printf("  %-13s %-44s %9s %9s %9s %4s\n", "node", "from -> to", "median ms", "min ms",
              "max ms", "runs");
  for (const NodeResult& r : nodes) {
    print_samples(r.name.c_str(), "roced start -> READY=1 (cold apply)", r.ready);
    print_samples(r.name.c_str(), "driver reload: links back -> verified", r.reload);
    print_samples(r.name.c_str(), "  links back -> roced STATUS= in sync", r.reload_status);
    print_samples(r.name.c_str(), "dcb pfc set: notification -> verified", r.external);
    print_samples(r.name.c_str(), "  notification -> roced STATUS= in sync", r.external_status);
  }
  const double cron_s = std::chrono::duration<double>(kCronInterval).count();
  std::printf("\n2'. The alternative: `while sleep %.0f; do <apply script>; done` (cron-like)\n",
              cron_s);
  for (const NodeResult& r : nodes) {
    const double apply = r.script_apply.median();
    std::printf(
        "  %-13s script apply time (measured, once): %.0f ms; writes per run on a node\n"
        "  %-13s already in sync (measured): %llu (roced: 0 while nothing drifts)\n",
        r.name.c_str(), apply, "", static_cast<unsigned long long>(r.script_writes_in_sync));
    std::printf(
        "  %-13s change -> corrected (derived): mean %.1f s = %.0f s/2 + apply, "
        "worst %.1f s; roced (measured): median %.3f s\n",
        "", cron_s / 2 + apply / 1000, cron_s, cron_s + apply / 1000, r.external.median() / 1000);
  }
  const double poll_s = std::chrono::duration<double>(kPollInterval).count();
  std::printf("\n3. Idle after READY=1 (measured)\n");
  for (const IdleResult& r : idles) {
    std::printf(
        "  %-13s roced over %.0f s: CPU %.4f %% of a core (task schedstat; clock ticks: "
        "%.3f %%), VmRSS %.1f MiB, VmHWM %.1f MiB, %d threads, %llu writes\n",
        r.name.c_str(), r.seconds, r.cpu_percent_sched, r.cpu_percent_ticks, r.end.rss_mib,
        r.end.hwm_mib, r.end.threads, static_cast<unsigned long long>(r.writes));
    std::printf(
        "  %-13s `while sleep %.0f; do dcb/ip/ethtool show, cat; done`: one poll "
        "(measured) %.0f ms wall, %.1f ms CPU -> %.4f %% of a core (derived); the "
        "sleeping shell's VmRSS %.1f MiB (measured)\n",
        "", poll_s, r.poll_wall_ms, r.poll_cpu_ms, r.poll_cpu_ms / (poll_s * 1000) * 100,
        r.loop_rss_mib);
  }
  std::printf("\nAims (reported, never enforced)\n");
  for (const NodeResult& r : nodes) {
    auto aim = [&](const char* what, const Samples& s) {
      if (s.ms.empty()) return;
      std::printf("  %-13s %s back in sync within %.0f ms: %s (max %.1f ms, median %.1f ms)\n",
                  r.name.c_str(), what, kAimInSyncMs, s.max() <= kAimInSyncMs ? "met" : "NOT met",
                  s.max(), s.median());
    };
    aim("driver reload:", r.reload);
    aim("external change:", r.external);
  }
  for (const IdleResult& r : idles) {
    std::printf("  %-13s idle CPU under %.1f %% of a core: %s (%.4f %%)\n", r.name.c_str(),
                kAimIdleCpuPercent, r.cpu_percent_sched < kAimIdleCpuPercent ? "met" : "NOT met",
                r.cpu_percent_sched);
  }
}

int usage() {
  std::cerr << "usage: daemon_bench [--runs N] [--idle SECONDS] [--smoke]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int idle_seconds = 60;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      smoke = true;
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
      if (runs < 1) return usage();
    } else if (arg == "--idle" && i + 1 < argc) {
      idle_seconds = std::atoi(argv[++i]);
      if (idle_seconds < 1) return usage();
    } else {
      return usage();
    }
  }
  if (smoke) {
    runs = 1;
    idle_seconds = 5;
  }
  const std::string sixteen = std::string(ROCED_SIM_NODES) + "/sixteen-port.yaml";
  std::mt19937 random(std::random_device{}());
  std::vector<NodeResult> nodes;
  std::vector<IdleResult> idles;
  try {
    // Reloads from 1 s after READY=1, every 4 s (6 s on 16 ports): the ports are down 1 s, then
    // roced has the rest.
    nodes.push_back(run_node("", "default (4)", runs, 1s, 4s, random));
    if (!smoke) nodes.push_back(run_node(sixteen, "sixteen (16)", runs, 1s, 6s, random));
    idles.push_back(measure_idle(smoke ? "" : sixteen, smoke ? "default (4)" : "sixteen (16)",
                                 std::chrono::seconds(idle_seconds)));
  } catch (const std::exception& error) {
    std::cerr << "daemon_bench: " << error.what() << "\n";
    return 1;
  }
  print_report(nodes, idles);
  std::printf("\nCorrectness\n");
  bool correct = true;
  auto report = [&](const std::string& name, const std::vector<std::string>& problems) {
    if (problems.empty())
      std::printf("  %s: ok: READY=1 reached, every port ends in sync\n", name.c_str());
    for (const std::string& problem : problems) {
      std::printf("  %s: PROBLEM: %s\n", name.c_str(), problem.c_str());
      correct = false;
    }
  };
  for (const NodeResult& r : nodes) {
    report(r.name, r.problems);
    if (r.reload.ms.size() != static_cast<size_t>(runs) ||
        r.external.ms.size() != static_cast<size_t>(runs)) {
      std::printf("  %s: PROBLEM: %zu of %d reloads and %zu of %d changes measured\n",
                  r.name.c_str(), r.reload.ms.size(), runs, r.external.ms.size(), runs);
      correct = false;
    }
  }
  for (const IdleResult& r : idles) {
    report(r.name + " idle", r.problems);
    if (r.writes != 0) {
      std::printf("  %s idle: PROBLEM: roced wrote %llu times while nothing drifted\n",
                  r.name.c_str(), static_cast<unsigned long long>(r.writes));
      correct = false;
    }
  }
  return correct ? 0 : 1;
}
