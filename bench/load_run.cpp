// SPDX-License-Identifier: Apache-2.0
#include "bench/load_run.hpp"

#include <sdbus-c++/sdbus-c++.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "bench/child_process.hpp"
#include "bench/http_client.hpp"
#include "bench/metrics_text.hpp"
#include "bench/sim_process.hpp"
#include "daemon/dbus/names.hpp"
#include "daemon/dbus/sdbus_compat.hpp"
#include "sim/server/clock_file.hpp"
#include "test/dbus/private_bus.hpp"

namespace roced::bench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

constexpr auto kPatience = 60s;  // for what must happen; never a speed bound
constexpr size_t kMaxBad = 10;
// Storms scheduled beyond those measured: a roced slow to start (a busy machine) misses the first
// few, and the run measures the next ones instead of failing for slowness.
constexpr int kSpareStorms = 4;

std::string scenario_text(const LoadOptions& options) {
  std::string text =
      "name: load\n"
      "clock: {speed: 1}\n"
      "traffic:\n"
      "  - {port: lan3, priority: 3, direction: tx, rate: 100G}\n"
      "  - {port: lan3, priority: 3, direction: rx, rate: 100G}\n"
      "  - {port: lan2, priority: 3, direction: tx, rate: 100G}\n"
      "  - {port: lan4, priority: 3, direction: tx, rate: 100G}\n"
      "  - {port: lan5, priority: 3, direction: tx, rate: 100G}\n"
      "events:\n";
  for (int i = 0; i < options.storms + kSpareStorms; ++i) {
    char line[160];
    // The onsets walk through the 10 ms poll.
    std::snprintf(line, sizeof line,
                  "  - {at: %.4fs, kind: pfc_storm, port: lan3, priority: 3, direction: rx, "
                  "duration: %.3fs}\n",
                  options.first_storm + i * options.period + i * 0.0037, options.length);
    text += line;
  }
  return text;
}

size_t rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

// The measured interval of the poll that detected the storm: "... +10000 us in 10002 us, ...".
double evidence_interval(const std::string& message) {
  static const std::regex kInterval(" in ([0-9]+) us");
  std::smatch match;
  return std::regex_search(message, match, kInterval) ? std::stod(match[1]) / 1e6 : -1;
}

class Run {
 public:
  Run(const LoadBinaries& binaries, const LoadOptions& options)
      : binaries_(binaries), options_(options) {}
  LoadResult go();

 private:
  void bad(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (result_.bad.size() < kMaxBad) result_.bad.push_back(why);
  }
  void scraper(uint16_t port);
  void dbus_client();
  bool all_in_sync(sdbus::IProxy& proxy);
  void on_signal(const std::string& name, const std::string& netdev, const std::string& direction,
                 double value, const std::string& message);
  int storm_at(Clock::time_point arrival) const;  // the storm under way then; -1 before the first

  const LoadBinaries binaries_;
  const LoadOptions options_;
  roce_sim::ClockFile clock_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> scrapes_ok_{0}, scrapes_bad_{0}, calls_ok_{0}, calls_bad_{0};
  std::mutex mutex_;
  LoadResult result_;
};

int Run::storm_at(Clock::time_point arrival) const {
  int found = -1;
  for (size_t i = 0; i < result_.storms.size(); ++i) {
    if (clock_.at(result_.storms[i].onset) <= arrival) found = static_cast<int>(i);
  }
  return found;
}

void Run::on_signal(const std::string& name, const std::string& netdev,
                    const std::string& direction, double value, const std::string& message) {
  const auto arrival = Clock::now();
  std::lock_guard lock(mutex_);
  const int i = storm_at(arrival);
  if (netdev != "lan3" || direction != "rx" || i < 0) {
    if (result_.bad.size() < kMaxBad) result_.bad.push_back("unexpected " + name + ": " + message);
    return;
  }
  StormSeen& storm = result_.storms[static_cast<size_t>(i)];
  if (name == "StormDetected") {
    if (storm.latency >= 0 && result_.bad.size() < kMaxBad) {
      result_.bad.push_back("storm " + std::to_string(i) + " detected twice: " + message);
    }
    storm.latency = value;
    storm.interval = evidence_interval(message);
    storm.arrival = std::chrono::duration<double>(arrival - clock_.at(storm.onset)).count();
  } else if (name == "StormRemediated") {
    storm.remediated = true;
  } else if (name == "StormRestored") {
    storm.restored = true;
  }
}

// What a whole exposition has that a cut or half-made one lacks, or nullptr when it has it all.
const char* missing_from_exposition(const std::string& body) {
  if (body.empty() || body.back() != '\n') return "no final newline";
  if (body.find("\nroced_watchdog_polls_total ") == std::string::npos) {
    return "no roced_watchdog_polls_total";
  }
  if (body.find("roce_pfc_pause_frames_total{") == std::string::npos) {
    return "no roce_pfc_pause_frames_total";
  }
  return nullptr;
}

void Run::scraper(uint16_t port) {
  HttpClient client("127.0.0.1", port);
  for (uint64_t n = 0; !stop_; ++n) {
    const HttpResponse response = client.get("/metrics");
    std::string why;
    if (response.status != 200) {
      why = "scrape: HTTP " + std::to_string(response.status) + " " + response.error;
    } else if (const char* missing = missing_from_exposition(response.body)) {
      why = "scrape: incomplete exposition (" + std::to_string(response.body.size()) +
            " bytes): " + missing;
    } else if (n % 10 == 0) {  // every tenth parsed line by line (the parse costs CPU roced needs)
      const auto parsed = parse_metrics_text(response.body);
      if (!parsed.errors.empty()) why = "scrape: " + parsed.errors.front();
    }
    if (why.empty()) {
      ++scrapes_ok_;
    } else {
      ++scrapes_bad_;
      bad(why);
    }
  }
}

void Run::dbus_client() {
  auto connection = sdbus::createSystemBusConnection();
  auto proxy = dbus::make_proxy(*connection, dbus::kBusName, dbus::kObjectPath);
  dbus::finish_signals(*proxy);
  const char* methods[] = {"GetStatus", "GetPlan", "GetStorms"};
  for (uint64_t n = 0; !stop_; ++n) {
    const std::string method = methods[n % 3];
    std::string why;
    try {
      std::string text;
      proxy->callMethod(method)
          .onInterface(dbus::kInterface)
          .withTimeout(kPatience)
          .storeResultsTo(text);
      const Json json = Json::parse(text);
      const bool valid = method == "GetStorms"
                             ? json.at("enabled").get<bool>() && json.at("storms").size() == 8
                             : json.at("ports").size() == 4;
      if (!valid) why = method + ": unexpected document: " + text.substr(0, 200);
    } catch (const std::exception& error) {
      why = method + ": " + error.what();
    }
    if (why.empty()) {
      ++calls_ok_;
    } else {
      ++calls_bad_;
      bad(why);
    }
  }
}

bool Run::all_in_sync(sdbus::IProxy& proxy) {
  try {
    std::string text;
    proxy.callMethod("GetStatus")
        .onInterface(dbus::kInterface)
        .withTimeout(5s)
        .storeResultsTo(text);
    const Json json = Json::parse(text);
    if (json.at("ports").size() != 4) return false;
    for (const auto& port : json.at("ports")) {
      if (port.at("condition") != "in-sync") return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;  // not on the bus yet
  }
}

LoadResult Run::go() {
  for (int i = 0; i < options_.storms + kSpareStorms; ++i) {
    StormSeen storm;
    storm.onset = options_.first_storm + i * options_.period + i * 0.0037;
    result_.storms.push_back(storm);
  }
  const fs::path scenario =
      fs::temp_directory_path() / ("roced-load-" + std::to_string(::getpid()) + "-scenario.yaml");
  std::ofstream(scenario) << scenario_text(options_);
  // Links that train at once: storms come every few seconds, and each disable-pfc and its
  // restoration would flap a 400G link for 3 s (DisablePfcOnLinksThatTrain measures that). The
  // subject here is roced's answers under load.
  SimProcess sim(binaries_.roce_sim, "", scenario.string(), {"--link-training", "0"});
  fs::remove(scenario);
  const auto clock = roce_sim::ClockFile::read(sim.dir());
  if (!clock) {
    result_.error = "no roce-sim.clock";
    return result_;
  }
  clock_ = *clock;

  const fs::path config = sim.dir() / "roced.yaml";
  std::ofstream(config) << "ports:\n  netdevs: [lan2, lan3, lan4, lan5]\n"
                           "profile:\n  dcbx: host\n  trust: dscp\n  dscp_map: {26: 3, 48: 6}\n"
                           "  pfc: {priorities: [3], cable_length: 10}\n  mtu: 9000\n"
                           "  stall_prevention: auto\n"
                           "watchdog: {enabled: true, poll_interval: 10ms, detection_time: 50ms,\n"
                           "           restoration_time: 300ms, action: {rx: disable-pfc},\n"
                           "           max_actions_per_hour: 100}\n";
  test::PrivateBus bus(binaries_.dbus_policy);
  ::setenv("DBUS_SYSTEM_BUS_ADDRESS", bus.address().c_str(), 1);

  // The signals, on a connection of their own, stamped as they arrive.
  auto signals = sdbus::createSystemBusConnection();
  auto listener = dbus::make_proxy(*signals, dbus::kBusName, dbus::kObjectPath);
  listener->uponSignal("StormDetected")
      .onInterface(dbus::kInterface)
      .call([this](const std::string& netdev, uint32_t, const std::string& direction,
                   double latency, const std::string& message) {
        on_signal("StormDetected", netdev, direction, latency, message);
      });
  listener->uponSignal("StormRemediated")
      .onInterface(dbus::kInterface)
      .call([this](const std::string& netdev, uint32_t, const std::string& direction,
                   const std::string&, const std::string& message) {
        on_signal("StormRemediated", netdev, direction, 0, message);
      });
  listener->uponSignal("StormRestored")
      .onInterface(dbus::kInterface)
      .call([this](const std::string& netdev, uint32_t, const std::string& direction,
                   double duration, const std::string& message) {
        on_signal("StormRestored", netdev, direction, duration, message);
      });
  listener->uponSignal("StormEscalated")
      .onInterface(dbus::kInterface)
      .call([this](const std::string&, uint32_t, const std::string&, const std::string& reason,
                   bool,
                   const std::string& message) { bad("escalated (" + reason + "): " + message); });
  dbus::finish_signals(*listener);
  signals->enterEventLoopAsync();

  const uint16_t metrics_port = free_local_port();
  const fs::path log = sim.dir() / "roced.log";
  auto roced = std::make_unique<Child>(
      std::vector<std::string>{binaries_.roced, "--sim", sim.dir().string(), "--config",
                               config.string(), "--log-target", "console", "--metrics-listen",
                               "127.0.0.1:" + std::to_string(metrics_port)},
      std::vector<std::string>{"DBUS_SYSTEM_BUS_ADDRESS=" + bus.address()}, log);

  auto connection = sdbus::createSystemBusConnection();
  auto proxy = dbus::make_proxy(*connection, dbus::kBusName, dbus::kObjectPath);
  dbus::finish_signals(*proxy);
  const auto deadline = Clock::now() + kPatience;
  while (!all_in_sync(*proxy)) {
    if (!roced->running() || Clock::now() > deadline) {
      result_.error = "roced did not bring every port in sync";
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  const auto ready = Clock::now();
  // The storms measured: the first that begins a second into the load, and the next ones.
  size_t first = 0;
  while (first < result_.storms.size() && clock_.at(result_.storms[first].onset) < ready + 1s) {
    ++first;
  }
  const size_t last = first + static_cast<size_t>(options_.storms);  // one past
  if (result_.error.empty() && last > result_.storms.size()) {
    result_.error = "roced was ready after the whole storm schedule had begun";
  }

  std::vector<std::thread> load;
  std::atomic<bool> sampling{true};
  std::thread sampler;
  if (result_.error.empty()) {
    for (int i = 0; i < options_.scrapers; ++i) load.emplace_back([&] { scraper(metrics_port); });
    for (int i = 0; i < options_.dbus_clients; ++i) load.emplace_back([&] { dbus_client(); });
    sampler = std::thread([&] {
      while (sampling) {
        const double at = std::chrono::duration<double>(Clock::now() - ready).count();
        const size_t kib = rss_kib(roced->pid());
        {
          std::lock_guard lock(mutex_);
          result_.rss.push_back({at, kib});
        }
        std::this_thread::sleep_for(250ms);
      }
    });
    // Until every storm is over and restored (or the patience runs out).
    const double end = result_.storms[last - 1].onset + options_.length;
    std::this_thread::sleep_until(clock_.at(end + 0.5));
    const auto patience = Clock::now() + kPatience;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        bool done = true;
        for (size_t i = first; i < last; ++i) done = done && result_.storms[i].restored;
        if (done) break;
      }
      if (Clock::now() > patience) break;
      std::this_thread::sleep_for(50ms);
    }
  }
  stop_ = true;
  for (auto& thread : load) thread.join();
  result_.load_seconds = std::chrono::duration<double>(Clock::now() - ready).count();
  sampling = false;
  if (sampler.joinable()) sampler.join();

  try {
    proxy->callMethod("GetStorms")
        .onInterface(dbus::kInterface)
        .withTimeout(kPatience)
        .storeResultsTo(result_.final_storms);
  } catch (const std::exception& error) {
    bad(std::string("final GetStorms: ") + error.what());
  }
  result_.alive_at_end = roced->running();
  result_.exit_status = roced->stop();
  signals->leaveEventLoop();
  listener.reset();
  proxy.reset();
  ::unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  result_.log = text.str();
  result_.scrapes_ok = scrapes_ok_;
  result_.scrapes_bad = scrapes_bad_;
  result_.calls_ok = calls_ok_;
  result_.calls_bad = calls_bad_;
  std::lock_guard lock(mutex_);
  // Storms before the load: roced may have seen them (its counters include them), not measured.
  for (size_t i = 0; i < first && i < result_.storms.size(); ++i) {
    if (result_.storms[i].latency >= 0) ++result_.detected_before;
  }
  if (result_.error.empty()) {
    result_.storms = std::vector<StormSeen>(result_.storms.begin() + static_cast<long>(first),
                                            result_.storms.begin() + static_cast<long>(last));
  }
  return result_;
}

}  // namespace

LoadResult run_load(const LoadBinaries& binaries, const LoadOptions& options) {
  return Run(binaries, options).go();
}

}  // namespace roced::bench
