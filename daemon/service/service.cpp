// SPDX-License-Identifier: Apache-2.0
#include "daemon/service/service.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "daemon/config/summary.hpp"
#include "daemon/log/log.hpp"
#include "daemon/storms/storm_log.hpp"
#include "os/open_system.hpp"

namespace roced::service {

namespace {

spdlog::level::level_enum spdlog_level(reconcile::LogLevel level) {
  switch (level) {
    case reconcile::LogLevel::Debug:
      return spdlog::level::debug;
    case reconcile::LogLevel::Info:
      return spdlog::level::info;
    case reconcile::LogLevel::Warn:
      return spdlog::level::warn;
    case reconcile::LogLevel::Error:
      return spdlog::level::err;
  }
  return spdlog::level::info;
}

// The reconciler's own lines, at their level: a port waiting for another's carrier, what is being
// applied, a plan warning as it appears, an agent fighting a correction, a failed storm hold. The
// events it also announces are logged by log_event, and by the reconciler at debug only.
reconcile::ReconcilerOptions reconciler_options() {
  reconcile::ReconcilerOptions options;
  options.log = [](reconcile::LogLevel level, const std::string& netdev, const std::string& setting,
                   const std::string& message) {
    const auto spd = spdlog_level(level);
    if (netdev.empty()) {
      spdlog::log(spd, "{}", message);
    } else {
      log::port(spd, netdev, setting, "{}", message);
    }
  };
  options.log_finding = [](const finding::Finding& found) { log::finding(found); };
  return options;
}

// STATUS= is re-read this often besides on every reconciler event ("applying lan3" comes and
// goes without one). Idle, every wake-up is CPU spent for nothing: the aim is < 0.1 % of a core.
constexpr std::chrono::milliseconds kStatusPoll{5000};

void log_diagnostics(const std::vector<config::Diagnostic>& diagnostics) {
  for (const auto& diagnostic : diagnostics) {
    if (diagnostic.severity == config::Diagnostic::Severity::Error) {
      spdlog::error("{}", diagnostic.to_string());
    } else {
      spdlog::warn("{}", diagnostic.to_string());
    }
  }
}

std::string first_error(const std::vector<config::Diagnostic>& diagnostics) {
  for (const auto& diagnostic : diagnostics) {
    if (diagnostic.severity == config::Diagnostic::Severity::Error) return diagnostic.to_string();
  }
  return "invalid configuration";
}

spdlog::level::level_enum level_of(reconcile::PortEvent::Kind kind) {
  using Kind = reconcile::PortEvent::Kind;
  switch (kind) {
    case Kind::Drifted:
      return spdlog::level::warn;  // someone else changed the port
    case Kind::ApplyFailed:
      return spdlog::level::err;
    default:
      return spdlog::level::info;
  }
}

}  // namespace

Service::Service(ServiceOptions options)
    : options_(std::move(options)), signals_({SIGHUP, SIGTERM, SIGINT}) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

Service::~Service() {
  attachments_.clear();
  storms_.reset();
  live_peers_ = nullptr;
  peers_.reset();
  if (reconciler_) reconciler_->stop();
  reconciler_.reset();
  ::close(wake_fd_);
}

void Service::attach(AttachmentFactory factory) { factories_.push_back(std::move(factory)); }

void Service::apply_log_level(const config::Config& config) {
  if (options_.log_level) return;  // --log-level wins
  if (auto level = log::parse_level(config.daemon.log_level)) log::set_level(*level);
}

int Service::run() {
  const config::LoadResult loaded = config::load_file(options_.config_path);
  log_diagnostics(loaded.diagnostics);
  if (!loaded.ok()) {
    spdlog::critical("{}: invalid configuration; not starting", options_.config_path);
    std::lock_guard lock(state_mutex_);
    notifier_.status("invalid configuration: " + first_error(loaded.diagnostics));
    return 1;
  }
  apply_log_level(*loaded.config);
  Result<System> system = open_system(SystemOptions{options_.sim_dir});
  if (!system) {
    spdlog::critical("{}; not starting", system.error().message);
    std::lock_guard lock(state_mutex_);
    notifier_.status(system.error().message);
    return 1;
  }
  system_ = std::move(system).value();
  spdlog::info("starting on {} with {} ({})", system_.description, options_.config_path,
               config::describe_selection(*loaded.config));

  reconciler_ =
      std::make_unique<reconcile::Reconciler>(system_, *loaded.config, reconciler_options());
  reconciler_->on_event([this](const reconcile::PortEvent& event) {
    log_event(event);
    wake();
  });
  if (auto timeout = notifier_.systemd_watchdog_timeout()) {
    spdlog::debug("watchdog: {} ms, fed every {} ms while healthy",
                  std::chrono::duration_cast<std::chrono::milliseconds>(*timeout).count(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(*timeout / 2).count());
  }
  next_systemd_watchdog_ = std::chrono::steady_clock::now();

  // start() returns once every port was checked (and applied) once. It runs on its own thread
  // so that, meanwhile, the watchdog is fed and signals are taken.
  // Listening before the first reconcile: the switch sends at once when a link comes up, and the
  // first apply flaps each port's link (a PFC change).
  start_peer_watch();
  std::atomic<bool> started{false};
  std::thread starter([&] {
    reconciler_->start();
    started = true;
    wake();
  });
  serve([&] { return started.load(); });
  starter.join();  // a stop during start-up waits for it: then stop() ends it cleanly

  if (!stop_requested_) {
    start_storm_watchdog();
    for (auto& factory : factories_) {
      if (auto attachment = factory(*this)) attachments_.push_back(std::move(attachment));
    }
    running_ = true;
    update_status();
    {
      std::lock_guard lock(state_mutex_);
      notifier_.ready();
    }
    spdlog::info("ready: {}", reconciler_->status_line());
    serve([] { return false; });
  }

  spdlog::info("stopping");
  {
    std::lock_guard lock(state_mutex_);
    notifier_.stopping();
    notifier_.status("stopping: letting in-flight applies finish");
  }
  while (!attachments_.empty()) attachments_.pop_back();  // reverse order, before the reconciler
  storms_.reset();  // its holds stay with the ports' workers until they stop
  live_peers_ = nullptr;
  peers_.reset();
  reconciler_->stop();
  spdlog::info("stopped");
  return 0;
}

void Service::start_peer_watch() {
  // Each managed port with a cable of its own: a bond's LLDP arrives on its slaves (each a port
  // here), and VFs, representors, sub-functions and upper devices share their port's.
  peers_ = std::make_unique<peers::PeerWatch>(system_, [this] {
    std::vector<std::string> netdevs;
    for (const auto& snapshot : reconciler_->snapshot()) {
      if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
      if (snapshot.port.role != PortRole::Uplink) continue;
      netdevs.push_back(snapshot.port.netdev);
    }
    return netdevs;
  });
  peers_->on_notice([](const peers::PeerNotice& notice) {
    log::port(notice.mismatch ? spdlog::level::warn : spdlog::level::info, notice.netdev, "lldp",
              "{}", notice.text);
  });
  peers_->start();
  live_peers_ = peers_.get();
}

void Service::start_storm_watchdog() {
  const watchdog::WatchdogSettings settings = reconciler_->config().watchdog;
  storms_ = std::make_unique<storms::StormWatchdog>(system_, *reconciler_, settings);
  // Which switch port is on the other end: where to look at 3 a.m.
  storms_->on_notice([this](const storms::StormNotice& notice) {
    storms::StormNotice named = notice;
    peers::PeerWatch* watch = live_peers_.load();
    if (const auto peer = watch != nullptr ? watch->peer(notice.netdev) : std::nullopt;
        peer && peer->neighbour) {
      named.message += " (switch " + peer->switch_port() + ")";
    }
    storms::log_notice(named);
  });
  storms_->use_poller(stats_poller_);
  storms_->start();  // switched off, its thread waits for a reload that switches it on
  log_storm_watchdog(settings, "PFC storm watchdog");
}

void Service::log_storm_watchdog(const watchdog::WatchdogSettings& settings,
                                 std::string_view what) {
  if (!settings.enabled) {
    spdlog::info("{}: off (watchdog.enabled)", what);
    return;
  }
  spdlog::info(
      "{}: poll {} ms, detection {} ms, restoration {} ms, action rx {} / tx {}, at most {} "
      "actions per port and hour",
      what, settings.poll_interval.count(), settings.detection_time.count(),
      settings.restoration_time.count(), watchdog::action_name(settings.rx_action),
      watchdog::action_name(settings.tx_action), settings.max_actions_per_hour);
}

void Service::reconfigure_storm_watchdog(const watchdog::WatchdogSettings& before,
                                         const watchdog::WatchdogSettings& after) {
  if (after == before || !storms_) return;
  if (before.enabled && !after.enabled) {
    // Each hold is a storm's remediation: name them, they end now whatever the storm does.
    for (const auto& storm : storms_->stats().storms) {
      if (!storm.remediated && !storm.held) continue;
      log::port(spdlog::level::warn, storm.netdev, "watchdog",
                "switching the watchdog off releases its hold on {} (the storm may not be over)",
                storms::storm_place(storm.priority, storm.direction));
    }
  }
  storms_->reconfigure(after);
  log_storm_watchdog(after, before.enabled == after.enabled
                                ? "PFC storm watchdog reconfigured"
                                : "PFC storm watchdog switched by reload");
  if (after.enabled && before.enabled) {
    spdlog::info("PFC storm watchdog: storms being handled keep their action until restored");
  }
}

void Service::serve(const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  while (!stop_requested_ && !done()) {
    auto timeout = kStatusPoll;
    if (notifier_.systemd_watchdog_timeout()) {
      const auto until_watchdog = std::chrono::duration_cast<std::chrono::milliseconds>(
          next_systemd_watchdog_ - Clock::now());
      timeout = std::clamp(until_watchdog, std::chrono::milliseconds(0), timeout);
    }
    pollfd fds[2] = {{signals_.fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, static_cast<int>(timeout.count())) < 0 && errno != EINTR) {
      spdlog::critical("poll: {}; stopping", std::strerror(errno));
      stop_requested_ = true;
      break;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t count = 0;
      (void)::read(wake_fd_, &count, sizeof(count));
    }
    handle_signals();
    if (running_ && reload_pending_ && !stop_requested_) {
      reload_pending_ = false;
      reload();
    }
    update_status();
    feed_systemd_watchdog();
    extend_start_timeout();
  }
}

void Service::extend_start_timeout() {
  // The start flaps the ports one at a time, each waited for until its link has trained
  // (seconds at 400G, up to carrier_timeout): on a node with many rails that can outlast
  // TimeoutStartSec. Each extension covers the next while start-up goes on.
  constexpr auto kEvery = std::chrono::seconds(10);
  constexpr auto kBy = std::chrono::seconds(30);
  if (running_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_start_extension_) return;
  next_start_extension_ = now + kEvery;
  notifier_.extend_timeout(kBy);
}

void Service::handle_signals() {
  while (auto signal = signals_.take()) {
    if (*signal == SIGHUP) {
      spdlog::info("SIGHUP: reloading {}", options_.config_path);
      reload_pending_ = true;
    } else {
      spdlog::info("{}: stopping", *signal == SIGTERM ? "SIGTERM" : "SIGINT");
      stop_requested_ = true;
    }
  }
}

reconcile::ReloadResult Service::reload() {
  std::lock_guard reload_lock(reload_mutex_);
  {
    std::lock_guard lock(state_mutex_);
    notifier_.reloading();
    notifier_.status("reloading " + options_.config_path);
  }
  const config::MetricsSettings metrics_before = reconciler_->config().metrics;
  const watchdog::WatchdogSettings watchdog_before = reconciler_->config().watchdog;
  reconcile::ReloadResult result = reconciler_->reload(options_.config_path);
  log_diagnostics(result.diagnostics);
  if (result.ok) {
    apply_log_level(reconciler_->config());
    spdlog::info("reloaded {}", options_.config_path);
    // The endpoint is bound once; rebinding on reload could lose it to another process.
    if (!(reconciler_->config().metrics == metrics_before)) {
      spdlog::warn("metrics: the changed settings take effect when roced restarts");
    }
    reconfigure_storm_watchdog(watchdog_before, reconciler_->config().watchdog);
  } else {
    spdlog::error("reload of {} failed: keeping the running configuration", options_.config_path);
  }
  {
    std::lock_guard lock(state_mutex_);
    if (result.ok) {
      reload_problem_.reset();
      last_good_config_ = std::chrono::system_clock::now();
    } else {
      reload_problem_ = first_error(result.diagnostics);
    }
    notifier_.ready();
  }
  update_status();
  return result;
}

void Service::request_stop() {
  stop_requested_ = true;
  wake();
}

void Service::wake() {
  const uint64_t one = 1;
  (void)::write(wake_fd_, &one, sizeof(one));
}

std::string Service::status_text() const {
  std::string text;
  if (running_) {
    text = reconciler_->status_line();
  } else {
    text = reconciler_->snapshot().empty() ? "starting: discovering the ports"
                                           : "starting: " + reconciler_->status_line();
  }
  std::lock_guard lock(state_mutex_);
  if (reload_problem_) {
    text += "; reload failed, running the previous configuration: " + *reload_problem_;
  }
  return text;
}

Service::ReloadState Service::reload_state() const {
  std::lock_guard lock(state_mutex_);
  return {!reload_problem_.has_value(), last_good_config_};
}

void Service::update_status() {
  const std::string text = status_text();
  std::lock_guard lock(state_mutex_);
  notifier_.status(text);
}

void Service::feed_systemd_watchdog() {
  if (!notifier_.systemd_watchdog_timeout()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_systemd_watchdog_) return;
  const auto half = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      *notifier_.systemd_watchdog_timeout() / 2);
  const bool healthy = reconciler_->healthy() && (!storms_ || storms_->healthy(now));
  // Unhealthy loops starve the watchdog on purpose: systemd then restarts roced (Restart=).
  // They are asked again soon, so a moment's stall does not cost a whole half period.
  next_systemd_watchdog_ =
      now + (healthy ? half : std::min<std::chrono::steady_clock::duration>(half, kStatusPoll));
  std::lock_guard lock(state_mutex_);
  if (healthy) {
    notifier_.ping_systemd_watchdog();
    if (systemd_watchdog_unhealthy_)
      spdlog::info("watchdog: the reconcile loops are healthy again");
  } else if (!systemd_watchdog_unhealthy_ && running_) {
    // (While start() runs the loops are still being made: not news.)
    spdlog::error("watchdog: the reconcile loops stopped making progress; not feeding it");
  }
  systemd_watchdog_unhealthy_ = !healthy && running_;
}

void Service::log_event(const reconcile::PortEvent& event) {
  // A port just set or changed: compare it with its switch as it is now.
  peers::PeerWatch* watch = live_peers_.load();
  if (watch != nullptr && event.kind != reconcile::PortEvent::Kind::Vanished) {
    watch->recheck(event.netdev);
  }
  std::string text = event.message.empty() ? reconcile::event_kind_name(event.kind) : event.message;
  // log::port() names the port itself.
  const std::string prefix = event.netdev + ": ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  log::port(level_of(event.kind), event.netdev, event.settings, "{}", text);
}

}  // namespace roced::service
