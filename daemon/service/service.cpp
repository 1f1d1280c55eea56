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
#include "daemon/service/capability_check.hpp"
#include "os/capabilities.hpp"
#include "os/node_lock.hpp"
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

using module::first_error;

std::string section_list(const std::vector<module::Section>& sections) {
  std::string text;
  for (const auto section : sections) {
    if (!text.empty()) text += ", ";
    text += module::kSectionNames.name(section);
  }
  return text.empty() ? "nothing" : text;
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
    : options_(std::move(options)),
      signals_({SIGHUP, SIGTERM, SIGINT}),
      store_(options_.config_path) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

Service::~Service() {
  modules_.stop();
  ::close(wake_fd_);
}

void Service::add(ModuleFactory factory) { factories_.push_back(std::move(factory)); }

std::vector<telemetry::Collector*> Service::collectors() {
  std::vector<telemetry::Collector*> all = modules_.collectors();
  all.push_back(&store_);
  return all;
}

void Service::apply_log_level(const config::Config& config) {
  if (options_.log_level) return;  // --log-level wins
  if (auto level = log::parse_level(config.daemon.log_level)) log::set_level(*level);
}

int Service::run() {
  // Before the first read: a change made while it is read is then a change seen.
  if (options_.watch_config) {
    auto watch = ConfigWatch::open(options_.config_path);
    if (!watch) {
      spdlog::critical("--watch-config: {}; not starting", watch.error().message);
      std::lock_guard lock(state_mutex_);
      notifier_.status("--watch-config: " + watch.error().message);
      return 1;
    }
    config_watch_.emplace(std::move(watch).value());
  }
  const config::LoadResult loaded = store_.load();
  log_diagnostics(loaded.diagnostics);
  if (!loaded.ok()) {
    spdlog::critical("{}: invalid configuration; not starting", options_.config_path);
    std::lock_guard lock(state_mutex_);
    notifier_.status("invalid configuration: " + first_error(loaded.diagnostics));
    return 1;
  }
  apply_log_level(*loaded.config);
  first_config_ = store_.current();
  Result<NodeLock> node_lock = NodeLock::take(node_lock_path(options_.sim_dir), options_.on_bus);
  if (!node_lock && node_lock.error().code == EWOULDBLOCK) {
    spdlog::critical("{}; not starting", node_lock.error().message);
    std::lock_guard guard(state_mutex_);
    notifier_.status(node_lock.error().message);
    return 1;
  }
  if (node_lock) {
    node_lock_.emplace(std::move(node_lock).value());
  } else {
    // Not fatal: roced still works; only rocectl cannot tell it runs until it is on the bus.
    spdlog::warn("{}: rocectl will not know that roced runs here until it answers on the bus",
                 node_lock.error().message);
  }
  Result<System> system = open_system(SystemOptions{options_.sim_dir});
  if (!system) {
    spdlog::critical("{}; not starting", system.error().message);
    std::lock_guard lock(state_mutex_);
    notifier_.status(system.error().message);
    return 1;
  }
  system_ = std::move(system).value();
  if (!capable()) return 1;
  spdlog::info("starting on {} with {} ({})", system_.description, options_.config_path,
               config::describe_selection(*loaded.config));

  auto reconcile =
      std::make_unique<reconcile::ReconcileModule>(system_, *loaded.config, reconciler_options());
  reconcile_ = reconcile.get();
  reconcile_->reconciler().on_event([this](const reconcile::PortEvent& event) {
    log_event(event);
    wake();
  });
  modules_.add(std::move(reconcile));
  for (auto& factory : factories_) modules_.add(factory(*this));
  if (auto timeout = notifier_.systemd_watchdog_timeout()) {
    spdlog::debug("watchdog: {} ms, fed every {} ms while healthy",
                  std::chrono::duration_cast<std::chrono::milliseconds>(*timeout).count(),
                  std::chrono::duration_cast<std::chrono::milliseconds>(*timeout / 2).count());
  }
  next_systemd_watchdog_ = std::chrono::steady_clock::now();

  // The modules start on a thread of their own, and it waits there for the ports' first checks
  // (a minute, on a node whose links train one at a time), so that meanwhile the watchdog is fed
  // and signals are taken. Every module runs before those checks end: the storm watchdog
  // watches, the endpoint serves and the bus answers while the first apply goes on.
  std::atomic<bool> started{false};
  std::thread starter([&] {
    const auto stopping = [this] { return stop_requested_.load(); };
    for (const auto stage :
         {module::Stage::BeforePorts, module::Stage::Ports, module::Stage::AfterPorts}) {
      modules_.start(stage, stopping);
    }
    if (!stopping()) spdlog::info("watching and serving; the ports' first checks go on");
    modules_.wait_ready();
    started = true;
    wake();
  });
  serve([&] { return started.load(); });
  starter.join();  // a stop during start-up waits for it: then stop() ends it cleanly

  if (!stop_requested_) {
    running_ = true;
    update_status();
    {
      std::lock_guard lock(state_mutex_);
      notifier_.ready();
    }
    spdlog::info("ready: {}", reconciler().status_line());
    serve([] { return false; });
  }

  spdlog::info("stopping");
  {
    std::lock_guard lock(state_mutex_);
    notifier_.stopping();
    notifier_.status("stopping: letting in-flight applies finish");
  }
  // In reverse: the API and the endpoint first, the storm watchdog's holds stay with the
  // ports' workers until the reconciler stops, the peer watch last.
  modules_.stop();
  spdlog::info("stopped");
  return 0;
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
    pollfd fds[3] = {{signals_.fd(), POLLIN, 0},
                     {wake_fd_, POLLIN, 0},
                     {config_watch_ ? config_watch_->fd() : -1, POLLIN, 0}};
    if (::poll(fds, 3, static_cast<int>(timeout.count())) < 0 && errno != EINTR) {
      spdlog::critical("poll: {}; stopping", std::strerror(errno));
      stop_requested_ = true;
      break;
    }
    if (fds[1].revents & POLLIN) {
      eventfd_t count = 0;
      (void)::eventfd_read(wake_fd_, &count);
    }
    handle_signals();
    if ((fds[2].revents & POLLIN) && config_watch_->changed()) {
      spdlog::info("{} changed: reloading", options_.config_path);
      reload_pending_ = true;
    }
    if (running_ && reload_pending_ && !stop_requested_) {
      reload_pending_ = false;
      reload();
    }
    update_status();
    feed_systemd_watchdog();
    extend_start_timeout();
  }
}

bool Service::capable() {
  if (!system_.checks_capabilities) return true;
  const Result<uint64_t> effective = effective_capabilities();
  if (!effective) {
    spdlog::warn("{}: cannot tell which capabilities roced holds", effective.error().message);
    return true;
  }
  const CapabilityCheck check = check_capabilities(*effective);
  if (check.warning) spdlog::warn("{}", *check.warning);
  if (!check.fatal) return true;
  spdlog::critical("{}; not starting", *check.fatal);
  std::lock_guard lock(state_mutex_);
  notifier_.status(*check.fatal);
  return false;
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
  const module::Reload result = store_.reload();
  log_diagnostics(result.diagnostics);
  if (result.ok) {
    apply_log_level(*result.after);
    spdlog::info("reloaded {}: {} changed", options_.config_path, section_list(result.changed));
    const std::vector<std::string> told = modules_.reconfigure(result);
    for (const auto& name : told) spdlog::debug("reload: {} took the new configuration", name);
  } else {
    spdlog::error("reload of {} failed: keeping the running configuration", options_.config_path);
  }
  {
    std::lock_guard lock(state_mutex_);
    notifier_.ready();
  }
  update_status();
  return reconcile::ReloadResult{result.ok, result.diagnostics};
}

Service::Pending Service::pending() {
  Pending pending;
  pending.loaded = config::load_file(options_.config_path);
  if (!pending.loaded.ok()) return pending;
  pending.changed = module::changed_sections(*store_.current(), *pending.loaded.config);
  pending.plan = reconciler().plan_of(*pending.loaded.config);
  pending.plan.config_path = options_.config_path;
  return pending;
}

void Service::request_stop() {
  stop_requested_ = true;
  wake();
}

void Service::wake() { (void)::eventfd_write(wake_fd_, 1); }

std::string Service::status_text() const {
  if (reconcile_ == nullptr) return "starting: reading the configuration";
  const reconcile::Reconciler& reconciler = reconcile_->reconciler();
  std::string text;
  if (running_) {
    text = reconciler.status_line();
  } else {
    text = reconciler.snapshot().empty() ? "starting: discovering the ports"
                                         : "starting: " + reconciler.status_line();
  }
  if (const auto problem = store_.reload_problem()) {
    text += "; reload failed, running the previous configuration: " + *problem;
  }
  return text;
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
  const bool healthy = modules_.healthy(now);
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
  std::string text = event.message.empty() ? reconcile::event_kind_name(event.kind) : event.message;
  // log::port() names the port itself.
  const std::string prefix = event.netdev + ": ";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  log::port(level_of(event.kind), event.netdev, event.settings, "{}", text);
}

}  // namespace roced::service
