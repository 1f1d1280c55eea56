// SPDX-License-Identifier: Apache-2.0
#include "soak.hpp"

#include <linux/dcbnl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <type_traits>

#include "bench/metrics_text.hpp"
#include "daemon/watchdog/remediator.hpp"
#include "daemon/watchdog/storm_json.hpp"
#include "daemon/watchdog/storm_loop.hpp"
#include "daemon/watchdog/storm_metrics.hpp"
#include "model_ethtool.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/traffic.hpp"
#include "sim/transport/simulated_system.hpp"
#include "telemetry/metric_families.hpp"
#include "telemetry/sampler.hpp"

namespace roced::load {
namespace {

using namespace std::chrono_literals;
using Us = std::chrono::microseconds;
using SteadyClock = std::chrono::steady_clock;
using roce_sim::Direction;

constexpr uint8_t kLossless = 0x08;  // priority 3, the recipe's
constexpr int kPriority = 3;
constexpr uint64_t k100G = 100'000'000'000ULL;
constexpr size_t kMaxMismatches = 50;  // the first ones kept: memory stays bounded

size_t heap_in_use() {
  const struct mallinfo2 info = ::mallinfo2();
  return info.uordblks + info.hblkhd;
}

size_t rss_kib() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE)) / 1024;
}

double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string place(const std::string& netdev, bool rx) { return netdev + (rx ? " rx" : " tx"); }

class Soak {
 public:
  explicit Soak(const SoakOptions& options);
  ~Soak() { std::filesystem::remove_all(empty_dir_); }
  SoakReport run();

 private:
  // The k-th storm and the congestion episode after it; none overlaps the next (<= 3 s of
  // 225 s), so the timeline is a walk over four events per k.
  struct Event {
    Us at;
    enum Kind { StormStart, StormEnd, CongestionStart, CongestionEnd } kind;
  };
  Event event(size_t k, int index) const;
  std::string storm_port(size_t k) const { return netdevs_[k % netdevs_.size()]; }
  bool storm_rx(size_t k) const { return (k / netdevs_.size()) % 2 == 0; }
  std::string congestion_port(size_t k) const { return netdevs_[(k + 2) % netdevs_.size()]; }

  void fire(const Event& event);
  void advance_to(Us t);
  void move_to(Us t);  // the model and the loop's clock to t  // the model up to simulated time t,
                       // events firing at their instants
  bool quiet() const;
  void checkpoint();
  void on_notice(const watchdog::StormNotice& notice);
  std::future<apply::PortResult> remediate(const std::string& netdev, reconcile::Remediation hold);
  void mismatch(std::string what);
  template <typename A, typename B>
  void expect_equal(const A& got, const B& want, const std::string& what);

  SoakOptions options_;
  watchdog::WatchdogSettings settings_;
  roce_sim::Node node_;
  roce_sim::TrafficEngine traffic_;
  std::vector<std::string> netdevs_;
  roce_sim::SimulatedTime time_;
  Us model_now_{0};
  std::filesystem::path empty_dir_;
  std::unique_ptr<System> system_;
  std::unique_ptr<watchdog::Remediator> remediator_;
  std::unique_ptr<watchdog::StormLoop> loop_;
  size_t next_k_ = 0;
  int next_index_ = 0;
  bool storm_active_ = false;
  Us last_storm_end_{0};
  std::map<std::string, std::map<std::string, uint64_t>> previous_;  // last checkpoint's NIC view
  SoakReport report_;
};

Soak::Soak(const SoakOptions& options)
    : options_(options), node_(roce_sim::default_node()), traffic_(node_) {
  // The recipe as roced would have applied it: PFC on priority 3, stall prevention auto.
  for (roce_sim::Port* port : node_.ports()) {
    netdevs_.push_back(port->netdev());
    ieee_pfc pfc{};
    port->ieee_getpfc(pfc);
    pfc.pfc_en = kLossless;
    port->ieee_setpfc(pfc);
    if (port->spec().caps.stall_prevention) port->set_pfc_prevention_tout(0xffff);
    for (const Direction direction : {Direction::Tx, Direction::Rx}) {
      traffic_.add_flow({port->netdev(), kPriority, direction, k100G, 4096});
    }
  }
  settings_.enabled = true;
  settings_.poll_interval = options_.poll;
  settings_.rx_action = watchdog::WatchdogAction::disable_pfc;
  settings_.tx_action = watchdog::WatchdogAction::alert;

  char pattern[] = "/tmp/roced-soak-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  empty_dir_ = pattern;
  // Only the ethtool ioctl is used: the files and rtnetlink of an empty directory fail, as they
  // would for a node that has no such sockets (the loop then relies on its names refresh).
  system_ = std::make_unique<System>(roce_sim::simulated_system(empty_dir_));
  const auto now = [this] { return time_.now(); };
  system_->ethtool = std::make_unique<ModelEthtool>(node_, now);
  remediator_ = std::make_unique<watchdog::Remediator>(
      settings_, [this](const std::string& netdev, reconcile::Remediation hold) {
        return remediate(netdev, hold);
      });
  remediator_->on_notice([this](const watchdog::StormNotice& notice) { on_notice(notice); });
  loop_ = std::make_unique<watchdog::StormLoop>(
      *system_, settings_,
      [this] {
        std::vector<watchdog::WatchedPort> ports;
        for (const auto& netdev : netdevs_) {
          ports.push_back({DiscoveredPort{netdev, "mlx5_core", "", "", 0, "", false}, kLossless});
        }
        return ports;
      },
      *remediator_, time_);
}

Soak::Event Soak::event(size_t k, int index) const {
  const Us every = options_.storm_every;
  const Us poll = options_.poll;
  // The onset walks through the poll; the length 1.0-2.9 s.
  const Us start =
      every * static_cast<int64_t>(k + 1) + poll * static_cast<int64_t>(k * 37 % 100) / 100;
  const Us length = 1000ms + 100ms * static_cast<int64_t>(k * 7 % 20);
  const Us congestion = every * static_cast<int64_t>(k + 1) + every / 2;
  switch (index) {
    case 0:
      return {start, Event::StormStart};
    case 1:
      return {start + length, Event::StormEnd};
    case 2:
      return {congestion, Event::CongestionStart};
    default:
      return {congestion + 5s, Event::CongestionEnd};
  }
}

void Soak::fire(const Event& event) {
  const size_t k = next_k_;
  const Direction direction = storm_rx(k) ? Direction::Rx : Direction::Tx;
  switch (event.kind) {
    case Event::StormStart:
      traffic_.start_storm(storm_port(k), kPriority, direction);
      storm_active_ = true;
      ++report_.storms;
      ++report_.injected[place(storm_port(k), storm_rx(k))];
      break;
    case Event::StormEnd:
      traffic_.stop_storm(storm_port(k), kPriority, direction);
      storm_active_ = false;
      last_storm_end_ = event.at;
      break;
    case Event::CongestionStart:
      // Heavy, but traffic still moves: never a storm.
      traffic_.start_congestion(congestion_port(k), kPriority, {0.1, 20000, 0.95});
      ++report_.congestion_episodes;
      break;
    case Event::CongestionEnd:
      traffic_.stop_congestion(congestion_port(k), kPriority);
      break;
  }
}

void Soak::move_to(Us t) {
  node_.advance(t - model_now_);  // links train again after a PFC change
  node_.take_events();            // no one listens for notifications here
  traffic_.advance(t - model_now_);
  time_.advance(t - model_now_);
  model_now_ = t;
}

void Soak::advance_to(Us t) {
  for (;;) {
    const Event next = event(next_k_, next_index_);
    if (next.at > t) break;
    move_to(next.at);
    fire(next);
    if (++next_index_ == 4) {
      next_index_ = 0;
      ++next_k_;
    }
  }
  move_to(t);
  traffic_.take_notes();  // the NIC's stall prevention notes: not needed, and they would pile up
}

bool Soak::quiet() const {
  // No storm on, none for 30 s (its restoration long done), the next 10 s or more away.
  return !storm_active_ && model_now_ - last_storm_end_ >= 30s &&
         (next_index_ != 0 || event(next_k_, 0).at - model_now_ >= 10s);
}

std::future<apply::PortResult> Soak::remediate(const std::string& netdev,
                                               reconcile::Remediation hold) {
  // What the reconciler's apply does on the NIC, done on the model at once.
  apply::PortResult result;
  result.netdev = netdev;
  roce_sim::Port* port = node_.find(netdev);
  ieee_pfc pfc{};
  if (port == nullptr || port->ieee_getpfc(pfc) != 0) {
    result.outcome = apply::PortResult::Outcome::Unreadable;
  } else {
    pfc.pfc_en = static_cast<uint8_t>(kLossless & ~hold.pfc_off);
    const bool ok = port->ieee_setpfc(pfc) == 0;
    result.outcome =
        ok ? apply::PortResult::Outcome::Applied : apply::PortResult::Outcome::RolledBack;
    if (ok) ++(hold.pfc_off != 0 ? report_.holds_applied : report_.holds_released);
  }
  std::promise<apply::PortResult> done;
  done.set_value(std::move(result));
  return done.get_future();
}

void Soak::mismatch(std::string what) {
  if (report_.mismatches.size() < kMaxMismatches) report_.mismatches.push_back(std::move(what));
}

template <typename A, typename B>
void Soak::expect_equal(const A& got, const B& want, const std::string& what) {
  ++report_.checks;
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
    if (got == want) return;
  } else {
    // An exported value: the counter as the one double the exposition can carry.
    if (static_cast<double>(got) == static_cast<double>(want)) return;
  }
  char text[80];
  std::snprintf(text, sizeof text, ": %.17g, expected %.17g", static_cast<double>(got),
                static_cast<double>(want));
  mismatch(what + text);
}

void Soak::on_notice(const watchdog::StormNotice& notice) {
  using Kind = watchdog::StormNotice::Kind;
  const std::string where = place(notice.netdev, notice.direction == watchdog::Direction::rx);
  switch (notice.kind) {
    case Kind::Detected: {
      ++report_.detected[where];
      // On a virtual clock the reads take no time: roced's bound holds exactly, detection time
      // to one poll more (the NIC's own detection, TX, may come sooner).
      const auto latency = notice.latency;
      const bool by_nic = notice.action == "none";
      if ((!by_nic && latency < settings_.detection_time) ||
          latency >= settings_.detection_time + settings_.poll_interval) {
        mismatch(where + ": detected " + std::to_string(latency.count()) +
                 " ns after the onset: " + notice.message);
      }
      if (report_.min_latency == 0ns || latency < report_.min_latency) {
        report_.min_latency = latency;
      }
      report_.max_latency = std::max<std::chrono::nanoseconds>(report_.max_latency, latency);
      break;
    }
    case Kind::Restored:
      ++report_.restored[where];
      break;
    case Kind::Acted:
      ++report_.acted;
      break;
    case Kind::Remediated:
      ++report_.remediated;
      break;
    case Kind::Unverified:
      ++report_.unverified;
      break;
    case Kind::Escalated:
      ++report_.escalated;
      mismatch(where + ": escalated: " + notice.message);
      break;
    case Kind::Released:
      break;
  }
}

void Soak::checkpoint() {
  Checkpoint point;
  point.at = std::chrono::duration_cast<std::chrono::seconds>(model_now_);
  point.rounds = report_.rounds;
  point.storm_records = remediator_->snapshot().size();

  // 1. What roced's sampler reads equals the NIC's view, every counter; none went backwards.
  telemetry::SampleOptions options;
  options.firmware = options.gid = options.read_rdma = options.read_link = false;
  telemetry::NodeSample sample;
  for (roce_sim::Port* port : node_.ports()) {
    const auto nic = port->stats();
    const std::map<std::string, uint64_t> want(nic.begin(), nic.end());
    sample.ports.push_back(telemetry::sample_port(
        *system_, DiscoveredPort{port->netdev(), "mlx5_core", "", "", 0, "", false}, options));
    const auto& got = sample.ports.back().ethtool;
    ++report_.checks;
    if (got != want) {
      mismatch(port->netdev() + ": the sampler's " + std::to_string(got.size()) +
               " ethtool counters differ from the NIC's " + std::to_string(want.size()));
    }
    auto& before = previous_[port->netdev()];
    for (const auto& [name, value] : want) {
      const auto it = before.find(name);
      if (it != before.end() && value < it->second) {
        mismatch(port->netdev() + " " + name + " went backwards: " + std::to_string(it->second) +
                 " -> " + std::to_string(value));
      }
    }
    before = want;
    expect_equal(port->pfc_enabled(), kLossless, port->netdev() + " PFC after its storms");
  }

  // 2. The exposition text (what a scrape returns) says the same, and counts every storm once.
  watchdog::WatchdogStats stats;
  stats.poll_interval = settings_.poll_interval;
  stats.polls = loop_->polls();
  stats.late_polls = loop_->late_polls();
  stats.storms = remediator_->snapshot();
  telemetry::FunctionCollector storms(
      [&stats](telemetry::ExpositionWriter& out) { watchdog::add_storm_families(out, stats); });
  telemetry::Collector* const collectors[] = {&storms};
  const auto text = telemetry::exposition_text(sample, {"soak"}, {}, collectors);
  const auto parsed = bench::parse_metrics_text(text);
  ++report_.checks;
  if (!parsed.errors.empty()) mismatch("exposition: " + parsed.errors.front());
  const auto exported = [&](const std::string& name, std::map<std::string, std::string> labels) {
    const auto value = bench::find_sample(parsed.samples, name, labels);
    return value ? *value : -1.0;
  };
  expect_equal(exported("roced_watchdog_polls_total", {}), report_.rounds, "polls exported");
  for (const auto& port : sample.ports) {
    const auto& nic = port.ethtool;
    for (const bool rx : {true, false}) {
      const std::string dir = rx ? "rx" : "tx";
      const std::string p = std::to_string(kPriority);
      const std::map<std::string, std::string> labels = {
          {"netdev", port.netdev}, {"priority", p}, {"direction", dir}};
      const std::string where = place(port.netdev, rx);
      for (const auto& [family, counter] : std::vector<std::pair<std::string, std::string>>{
               {"roce_pfc_pause_frames_total", dir + "_prio" + p + "_pause"},
               {"roce_priority_packets_total", dir + "_prio" + p + "_packets"},
               {"roce_priority_bytes_total", dir + "_prio" + p + "_bytes"}}) {
        // A double holds the counter exactly up to 2^53; the exporter's one conversion is all.
        expect_equal(exported(family, labels), static_cast<double>(nic.at(counter)),
                     where + " " + family);
      }
      expect_equal(
          exported("roce_link_pause_frames_total", {{"netdev", port.netdev}, {"direction", dir}}),
          static_cast<double>(nic.at(dir + "_pause_ctrl_phy")),
          where + " roce_link_pause_frames_total");
      const uint64_t injected = report_.injected[where];
      expect_equal(exported("roce_pfc_storm_detections_total", labels), injected,
                   where + " detections exported");
      expect_equal(exported("roce_pfc_storm_restorations_total", labels), injected,
                   where + " restorations exported");
      expect_equal(report_.detected[where], injected, where + " StormDetected notices");
      expect_equal(report_.restored[where], injected, where + " StormRestored notices");
      if (rx) {
        expect_equal(exported("roce_pfc_storm_actions_total", {{"netdev", port.netdev},
                                                               {"priority", p},
                                                               {"direction", dir},
                                                               {"action", "disable-pfc"},
                                                               {"result", "ok"}}),
                     injected, where + " disable-pfc actions exported");
      }
    }
  }
  // 3. GetStorms' document agrees.
  const auto json = watchdog::storms_to_json(settings_, stats);
  expect_equal(json.at("polls").get<uint64_t>(), report_.rounds, "GetStorms polls");
  uint64_t detections = 0;
  for (const auto& storm : json.at("storms")) detections += storm.at("detections").get<uint64_t>();
  expect_equal(detections, report_.storms, "GetStorms detections");

  point.heap_bytes = heap_in_use();
  point.rss_kib = rss_kib();
  report_.checkpoints.push_back(point);
}

SoakReport Soak::run() {
  const auto wall_start = SteadyClock::now();
  const double cpu_start = cpu_seconds();
  const int64_t rounds = options_.simulated / options_.poll;
  const int64_t every = std::max<int64_t>(1, rounds / std::max(1, options_.checkpoints));
  int64_t due = every;  // the next checkpoint, taken at the first quiet round from here
  for (int64_t round = 1; round <= rounds; ++round) {
    advance_to(options_.poll * round);
    loop_->round();
    ++report_.rounds;
    if (round >= due && quiet()) {
      checkpoint();
      due += every;
    }
  }
  // The last checkpoint at the end: the storm under way (if any) finishes first.
  while (!quiet()) {
    advance_to(model_now_ + options_.poll);
    loop_->round();
    ++report_.rounds;
  }
  if (report_.checkpoints.empty() || report_.checkpoints.back().rounds != report_.rounds) {
    checkpoint();
  }
  report_.cpu_seconds = cpu_seconds() - cpu_start;
  report_.wall_seconds = std::chrono::duration<double>(SteadyClock::now() - wall_start).count();
  return std::move(report_);
}

}  // namespace

SoakReport run_soak(const SoakOptions& options) { return Soak(options).run(); }

}  // namespace roced::load
