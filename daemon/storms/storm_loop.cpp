#include "daemon/storms/storm_loop.hpp"

#include <algorithm>

#include "telemetry/sampler.hpp"

namespace roced::storms {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Ports and profiles change seldom; asking the reconciler every 10 ms poll would copy its whole
// state a hundred times a second.
constexpr std::chrono::seconds kTargetsRefresh{1};

}  // namespace

StormLoop::StormLoop(System& system, watchdog::WatchdogSettings settings, Targets targets,
                     Listener listener)
    : system_(system),
      settings_(settings),
      targets_(std::move(targets)),
      listener_(std::move(listener)),
      watch_(watchdog::detector_settings(settings)) {}

StormLoop::~StormLoop() { stop(); }

void StormLoop::start() {
  thread_ = std::thread([this] { run(); });
}

void StormLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StormLoop::poll_once(const std::vector<WatchedPort>& ports) {
  telemetry::SampleOptions options;
  options.firmware = false;
  options.gid = false;
  options.read_rdma = false;
  options.read_link = false;
  std::vector<std::string> netdevs;
  for (const auto& watched : ports) {
    netdevs.push_back(watched.port.netdev);
    telemetry::PortSample sample = telemetry::sample_port(system_, watched.port, options);
    if (!sample.errors.empty()) {
      watch_.forget(watched.port.netdev);  // gone or unreadable: a new baseline when it is back
      continue;
    }
    for (const auto& event : watch_.feed(std::move(sample), watched.lossless)) listener_(event);
  }
  // A port no longer targeted (vanished, deselected) starts afresh if it returns.
  for (const auto& old : last_netdevs_) {
    if (std::find(netdevs.begin(), netdevs.end(), old) == netdevs.end()) watch_.forget(old);
  }
  last_netdevs_ = std::move(netdevs);
  ++polls_;
}

void StormLoop::run() {
  std::vector<WatchedPort> ports;
  auto targets_at = SteadyClock::time_point{};
  auto next = SteadyClock::now();
  for (;;) {
    if (SteadyClock::now() - targets_at >= kTargetsRefresh) {
      ports = targets_();
      targets_at = SteadyClock::now();
    }
    poll_once(ports);
    // A fixed cadence, not a fixed sleep: the measured interval is what the detector uses, but
    // polls should not drift later by the time a poll takes.
    next += settings_.poll_interval;
    const auto now = SteadyClock::now();
    if (next < now) next = now;
    std::unique_lock lock(mutex_);
    if (wake_.wait_until(lock, next, [this] { return stop_; })) return;
  }
}

}  // namespace roced::storms
