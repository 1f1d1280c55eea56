// SPDX-License-Identifier: Apache-2.0
#include "daemon/probe/probe_module.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>

#include "daemon/log/log.hpp"
#include "daemon/probe/verbs_transport.hpp"
#include "probe/kinds.hpp"
#include "rdma/gid.hpp"
#include "telemetry/finding_family.hpp"

namespace roced::probe_module {

namespace {

using telemetry::FamilySpec;
using telemetry::MetricType;

// From 10 µs (a ToR hop on an idle fabric) to 1 s (a probe's timeout).
constexpr std::array<double, 15> kRttBounds = {10e-6,  25e-6, 50e-6,  100e-6, 250e-6,
                                               500e-6, 1e-3,  2.5e-3, 5e-3,   10e-3,
                                               25e-3,  50e-3, 100e-3, 250e-3, 1.0};

constexpr FamilySpec kSent{"roce_probe_sent_total", MetricType::counter,
                           "Probes this port sent to the peers of a group."};
constexpr FamilySpec kAnswered{
    "roce_probe_answered_total", MetricType::counter,
    "Probes of this port a peer of the group answered (timed or not) within probe.timeout."};
constexpr FamilySpec kLost{"roce_probe_lost_total", MetricType::counter,
                           "Probes of this port no peer answer came for within probe.timeout, "
                           "or that could not be sent."};
constexpr FamilySpec kRtt{"roce_probe_network_rtt_seconds", MetricType::histogram,
                          "The network's share of the round trip of this port's probes to the "
                          "group: (t5 - t2) - (t4 - t3), both hosts' processing taken out."};
constexpr FamilySpec kBadPaths{"roce_probe_bad_paths", MetricType::gauge,
                               "Paths from this port to peers of the group past probe.loss_ratio "
                               "or probe.rtt_p99 over probe.window."};
constexpr FamilySpec kAnswers{"roce_probe_answers_total", MetricType::counter,
                              "Peers' probes this port answered."};
constexpr FamilySpec kRefused{"roce_probe_refused_total", MetricType::counter,
                              "Messages this port's probe queue pair did not answer: not a probe "
                              "of roced's (malformed), or past its answer rate (over_rate)."};
constexpr FamilySpec kUp{"roce_probe_up", MetricType::gauge,
                         "1 while this port probes; 0 when it cannot (probe_unavailable says "
                         "why)."};

// The port's RoCE v2 address of the family its profile gives jobs.
std::optional<std::string> roce_address(const FileTree& files, const DiscoveredPort& port,
                                        const std::string& family) {
  auto table = rdma::read_gid_table(files, port.rdma_device, port.rdma_port);
  if (!table) return std::nullopt;
  if (family == "ipv6") {
    const auto entry = rdma::roce_v2_ipv6_entry(*table, port.netdev);
    if (entry) return rdma::compact_gid(entry->gid);
    return std::nullopt;
  }
  const auto entry = rdma::roce_v2_ipv4_entry(*table, port.netdev);
  if (entry) return rdma::ipv4_of_mapped_gid(entry->gid);
  return std::nullopt;
}

std::vector<ProbeEndpoint> managed_endpoints(System& system,
                                             const reconcile::Reconciler& reconciler) {
  const auto config = reconciler.shared_config();
  std::vector<ProbeEndpoint> out;
  for (const reconcile::ManagedPort& managed : reconciler.ports()) {
    const DiscoveredPort& port = managed.port;
    if (port.role != PortRole::Uplink) continue;
    const settings::Profile& profile = config->profile_for(port.netdev);
    ProbeEndpoint endpoint;
    endpoint.netdev = port.netdev;
    endpoint.traffic_class = profile.roce.tos;
    endpoint.priority = profile.dscp_map[profile.roce.tos >> 2];
    if (port.rdma_device.empty()) {
      endpoint.unavailable = "it has no RDMA device";
    } else if (const auto address = system.files
                                        ? roce_address(*system.files, port, profile.roce.gid_family)
                                        : std::nullopt) {
      endpoint.address = *address;
    } else {
      endpoint.unavailable = "its RDMA device " + port.rdma_device + " has no RoCE v2 " +
                             profile.roce.gid_family + " GID for it";
    }
    out.push_back(std::move(endpoint));
  }
  std::sort(out.begin(), out.end(),
            [](const ProbeEndpoint& a, const ProbeEndpoint& b) { return a.netdev < b.netdev; });
  return out;
}

Result<std::unique_ptr<probe::ProbeTransport>> verbs_transport(
    const ProbeEndpoint& endpoint, const probe::ProbeSettings& settings) {
  auto transport = VerbsTransport::open({endpoint.address, settings.service_port, settings.q_key,
                                         endpoint.traffic_class, endpoint.priority});
  if (!transport) return transport.error();
  return std::unique_ptr<probe::ProbeTransport>(std::move(*transport));
}

std::string place_text(const probe::Blame& blame) {
  switch (blame.place) {
    case probe::Place::Host:
      return "this host: every path from every port";
    case probe::Place::Port:
      return "this port: every path from it, while the node's other ports reach theirs";
    case probe::Place::Switch:
      return "switch (peer group) " + blame.group + ": every peer of it, from every port";
    case probe::Place::Peer:
      return "peer " + blame.peer + " (" + blame.group + "): from every port";
    case probe::Place::Path:
      return "the path to " + blame.peer + " (" + blame.group + ") alone";
  }
  return "";
}

// The finding's `about`: the place, and which one ("peer 10.0.3.7", "switch tor3", "port").
std::string about_text(const probe::Blame& blame) {
  std::string place(probe::kPlaceNames.name(blame.place));
  switch (blame.place) {
    case probe::Place::Switch:
      return place + " " + blame.group;
    case probe::Place::Peer:
    case probe::Place::Path:
      return place + " " + blame.peer;
    case probe::Place::Host:
    case probe::Place::Port:
      break;
  }
  return place;
}

}  // namespace

ProbeModule::ProbeModule(System& system, reconcile::Reconciler& reconciler,
                         const probe::ProbeSettings& settings)
    : ProbeModule([&system, &reconciler] { return managed_endpoints(system, reconciler); },
                  verbs_transport, settings) {}

ProbeModule::ProbeModule(EndpointList endpoints, TransportFactory transports,
                         const probe::ProbeSettings& settings, TimeSource& time)
    : endpoints_source_(std::move(endpoints)),
      transports_source_(std::move(transports)),
      time_(time),
      settings_(settings),
      seed_(static_cast<uint64_t>(::getpid()) ^
            static_cast<uint64_t>(time.wall_now().time_since_epoch().count())) {}

ProbeModule::~ProbeModule() { stop(); }

void ProbeModule::start() {
  if (thread_.joinable()) return;
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  stopping_ = false;
  idle_ = false;
  last_pass_ns_ = time_.now().time_since_epoch().count();
  thread_ = time_.start_thread([this] { loop(); });
}

void ProbeModule::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  (void)::eventfd_write(wake_fd_, 1);
  thread_.join();
  ::close(wake_fd_);
  wake_fd_ = -1;
}

void ProbeModule::reconfigure(const config::Config& before, const config::Config& after) {
  (void)before;
  {
    const std::lock_guard lock(settings_mutex_);
    pending_ = after.probe;
  }
  spdlog::info("path probing: {}",
               after.probe.enabled ? "settings changed, taken from now on" : "switched off");
  if (wake_fd_ >= 0) {
    (void)::eventfd_write(wake_fd_, 1);
  }
}

bool ProbeModule::healthy(std::chrono::steady_clock::time_point now) const {
  // Off, the loop sleeps until a reload wakes it: no pass is due, so none is late.
  if (!thread_.joinable() || idle_) return true;
  const auto last = TimeSource::TimePoint(TimeSource::TimePoint::duration(last_pass_ns_.load()));
  return now - last < std::chrono::seconds(30);
}

void ProbeModule::loop() {
  while (!stopping_) {
    auto next = run_once();
    // Without its eventfd (none could be made), stop() cannot wake it: look every second.
    if (wake_fd_ < 0) next = std::min(next, time_.now() + std::chrono::seconds(1));
    std::vector<pollfd> fds;
    for (const int fd : wait_fds()) fds.push_back({fd, POLLIN, 0});
    if (wake_fd_ >= 0) fds.push_back({wake_fd_, POLLIN, 0});
    const int ready = time_.poll_until(fds, next);
    if (ready == 0) continue;
    for (const auto& transport : transports_) {
      if (ready < 0) {
        transport->open();  // poll failed: look at every transport rather than miss one
      } else {
        transport->open_if_ready(fds);
      }
    }
    if (wake_fd_ >= 0 && (ready < 0 || fds.back().revents != 0)) {
      eventfd_t count = 0;
      (void)::eventfd_read(wake_fd_, &count);
    }
  }
  rebuild({}, time_.now());
}

std::vector<int> ProbeModule::wait_fds() const {
  std::vector<int> fds;
  for (const auto& transport : transports_) {
    for (const int fd : transport->fds()) fds.push_back(fd);
  }
  return fds;
}

TimeSource::TimePoint ProbeModule::run_once() {
  const auto now = time_.now();
  last_pass_ns_ = now.time_since_epoch().count();
  std::optional<probe::ProbeSettings> changed;
  {
    const std::lock_guard lock(settings_mutex_);
    changed.swap(pending_);
  }
  if (changed) {
    settings_ = *changed;
    rebuild({}, now);  // the new settings' engine is made afresh below
    refresh_at_ = now;
  }
  idle_ = !settings_.enabled;
  if (!settings_.enabled) {
    // Off: nothing to do until a reload switches it on (reconfigure wakes the loop).
    if (engine_ || !endpoints_.empty()) rebuild({}, now);
    publish(now);
    return TimeSource::TimePoint::max();
  }
  if (now >= refresh_at_) refresh(now);
  auto next = std::min(refresh_at_, now + kPublishInterval);
  if (engine_) {
    next = std::min(next, engine_->turn(now));
    take_rtts();
  }
  if (now >= publish_at_) {
    publish(now);
    publish_at_ = now + kPublishInterval;
  }
  return std::min(next, publish_at_);
}

void ProbeModule::refresh(TimeSource::TimePoint now) {
  refresh_at_ = now + kEndpointsRefresh;
  auto endpoints = settings_.enabled ? endpoints_source_() : std::vector<ProbeEndpoint>{};
  if (endpoints != endpoints_ || (!engine_ && !endpoints.empty())) {
    rebuild(std::move(endpoints), now);
  }
}

// A new engine over `endpoints` (none: probing stops); what the old one counted stays counted.
void ProbeModule::rebuild(std::vector<ProbeEndpoint> endpoints, TimeSource::TimePoint now) {
  if (engine_) {
    take_rtts();
    for (const probe::PathReport& path : engine_->paths(now)) {
      probe::PathCounters& counted = counted_[{path.port, path.peer.group}];
      counted.sent += path.totals.sent;
      counted.answered += path.totals.answered;
      counted.lost += path.totals.lost;
      counted.send_failed += path.totals.send_failed;
    }
  }
  engine_.reset();
  transports_.clear();
  engine_ports_.clear();
  endpoints_ = std::move(endpoints);
  std::map<std::string, std::string> unavailable;
  std::vector<probe::ProbePort> ports;
  for (const ProbeEndpoint& endpoint : endpoints_) {
    if (!endpoint.unavailable.empty()) {
      unavailable[endpoint.netdev] = endpoint.unavailable;
      continue;
    }
    auto transport = transports_source_(endpoint, settings_);
    if (!transport) {
      unavailable[endpoint.netdev] = transport.error().message;
      continue;
    }
    auto gated = std::make_unique<ReadyGate>(std::move(*transport));
    log::port(spdlog::level::info, endpoint.netdev, std::vector<std::string>{},
              "probing from {}: completion times {}", endpoint.address,
              gated->device_timestamps() ? "from the device's clock"
                                         : "from this host's clock (the device stamps none)");
    probe::ProbePort port{endpoint.netdev, gated.get(), {}};
    for (const probe::ProbePeer& peer : settings_.peers) {
      if (peer.address != endpoint.address) port.targets.push_back(peer);
    }
    if (settings_.self_probe) {
      for (const ProbeEndpoint& other : endpoints_) {
        if (other.netdev != endpoint.netdev && other.unavailable.empty()) {
          port.targets.push_back({other.address, "local"});
        }
      }
    }
    transports_.push_back(std::move(gated));
    engine_ports_.push_back(endpoint.netdev);
    ports.push_back(std::move(port));
  }
  for (const auto& [netdev, why] : unavailable) {
    log::port(spdlog::level::warn, netdev, std::vector<std::string>{}, "cannot probe: {}", why);
  }
  if (!ports.empty()) {
    engine_ = std::make_unique<probe::ProbeEngine>(settings_, std::move(ports), now, seed_++);
  }
  const std::lock_guard lock(mutex_);
  unavailable_ = std::move(unavailable);
}

void ProbeModule::take_rtts() {
  const auto rtts = engine_->take_rtts();
  if (rtts.empty()) return;
  const std::lock_guard lock(mutex_);
  for (const probe::RttSample& sample : rtts) {
    Series& series = series_[{sample.port, sample.group}];
    series.buckets.resize(kRttBounds.size());
    const double seconds = std::chrono::duration<double>(sample.rtt.network).count();
    const auto bound = std::lower_bound(kRttBounds.begin(), kRttBounds.end(), seconds);
    if (bound != kRttBounds.end()) ++series.buckets[bound - kRttBounds.begin()];
    ++series.rtt_count;
    series.rtt_sum += seconds;
  }
}

void ProbeModule::publish(TimeSource::TimePoint now) {
  std::map<SeriesKey, probe::PathCounters> totals = counted_;
  std::map<SeriesKey, size_t> bad;
  std::vector<finding::Finding> findings;
  std::map<std::string, probe::ResponderCounters> responders;
  if (engine_) {
    const auto paths = engine_->paths(now);
    std::map<std::string, const probe::PathReport*> worst;  // per port, for a finding's text
    for (const probe::PathReport& path : paths) {
      probe::PathCounters& sum = totals[{path.port, path.peer.group}];
      sum.sent += path.totals.sent;
      sum.answered += path.totals.answered;
      sum.lost += path.totals.lost;
      sum.send_failed += path.totals.send_failed;
      size_t& count = bad[{path.port, path.peer.group}];
      if (!path.bad) continue;
      ++count;
      const probe::PathReport*& seen = worst[path.port];
      if (seen == nullptr || path.loss_ratio > seen->loss_ratio) seen = &path;
    }
    for (const probe::Blame& blame : engine_->blame(now)) {
      for (const probe::PathReport& path : paths) {
        const bool blamed =
            path.bad && (blame.place == probe::Place::Host ||
                         (blame.place == probe::Place::Port && path.port == blame.port) ||
                         (blame.place == probe::Place::Switch && path.peer.group == blame.group) ||
                         (blame.place == probe::Place::Peer && path.peer.address == blame.peer) ||
                         (blame.place == probe::Place::Path && path.port == blame.port &&
                          path.peer.address == blame.peer));
        if (!blamed) continue;
        const bool lossy = path.loss_ratio > settings_.loss_ratio;
        const auto p99_us = path.rtt_p99 ? path.rtt_p99->count() / 1000 : 0;
        finding::Finding finding = finding::make(
            lossy ? probe::kProbeLoss : probe::kProbeLatency, path.port,
            lossy ? fmt::format("{:.1f} % of the probes to {} lost over {} s (at most {:.1f} %); "
                                "likely place: {}",
                                path.loss_ratio * 100, path.peer.address, settings_.window.count(),
                                settings_.loss_ratio * 100, place_text(blame))
                  : fmt::format("the network's p99 round trip to {} is {} µs over {} s (at most "
                                "{} µs); likely place: {}",
                                path.peer.address, p99_us, settings_.window.count(),
                                settings_.rtt_p99.count(), place_text(blame)),
            lossy ? fmt::format("{}", settings_.loss_ratio)
                  : fmt::format("{}us", settings_.rtt_p99.count()),
            lossy ? fmt::format("{:.4f}", path.loss_ratio) : fmt::format("{}us", p99_us));
        finding.about = about_text(blame);
        findings.push_back(std::move(finding));
      }
    }
    for (size_t i = 0; i < engine_ports_.size(); ++i)
      responders[engine_ports_[i]] = engine_->responder(i);
  }
  const std::lock_guard lock(mutex_);
  for (const auto& [netdev, why] : unavailable_) {
    findings.push_back(finding::cannot_tell(probe::kProbeUnavailable, netdev,
                                            "probing is on but this port cannot probe: " + why));
  }
  for (const auto& [key, sum] : totals) {
    Series& series = series_[key];
    series.totals = sum;
    series.bad_paths = bad[key];
  }
  responders_ = std::move(responders);
  findings_ = std::move(findings);
}

std::vector<finding::Finding> ProbeModule::findings() const {
  const std::lock_guard lock(mutex_);
  return findings_;
}

void ProbeModule::collect(telemetry::ExpositionWriter& out) {
  const std::lock_guard lock(mutex_);
  for (const auto& [key, series] : series_) {
    const telemetry::LabelSet labels{{"netdev", key.first}, {"group", key.second}};
    out.add(kSent, labels, static_cast<double>(series.totals.sent));
    out.add(kAnswered, labels, static_cast<double>(series.totals.answered));
    out.add(kLost, labels, static_cast<double>(series.totals.lost));
    out.add(kBadPaths, labels, static_cast<double>(series.bad_paths));
    std::array<uint64_t, kRttBounds.size()> cumulative{};
    uint64_t running = 0;
    for (size_t i = 0; i < kRttBounds.size(); ++i) {
      running += i < series.buckets.size() ? series.buckets[i] : 0;
      cumulative[i] = running;
    }
    out.add(kRtt, labels,
            telemetry::HistogramSample{kRttBounds, cumulative, series.rtt_count, series.rtt_sum});
  }
  for (const auto& [netdev, counters] : responders_) {
    const telemetry::LabelSet labels{{"netdev", netdev}};
    out.add(kUp, labels, 1);
    out.add(kAnswers, labels, static_cast<double>(counters.answered));
    out.add(kRefused, labels.with({{"reason", "malformed"}}),
            static_cast<double>(counters.malformed));
    out.add(kRefused, labels.with({{"reason", "over_rate"}}),
            static_cast<double>(counters.over_rate));
  }
  for (const auto& [netdev, why] : unavailable_) out.add(kUp, {{"netdev", netdev}}, 0);
  // roced_finding, one port at a time as the family takes them.
  std::map<std::string, std::vector<finding::Finding>> by_port;
  for (const finding::Finding& finding : findings_) by_port[finding.subject].push_back(finding);
  for (const auto& [netdev, findings] : by_port) telemetry::add_findings(out, netdev, findings);
}

}  // namespace roced::probe_module
