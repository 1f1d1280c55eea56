// SPDX-License-Identifier: Apache-2.0
#pragma once
// Path probing as one of the service's modules: a thread turns probe/'s engine over one probe
// queue pair per managed port that has a RoCE v2 address (daemon/probe/verbs_transport), probing
// the configured peers (and, with self_probe, the node's other ports) on the port's lossless
// class, answering theirs. A scrape serves what it saw: per port and peer group, probes sent,
// answered and lost, the network's RTT as a histogram, the bad paths; the findings name the
// place probe/localize blames. It takes the `probe:` section; off unless enabled.
#include <sys/eventfd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/module/module.hpp"
#include "daemon/probe/ready_gate.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "probe/engine.hpp"
#include "probe/settings.hpp"
#include "util/time_source.hpp"

namespace roced::probe_module {

// A managed port that can probe: its RoCE v2 address and its profile's class.
struct ProbeEndpoint {
  std::string netdev;
  std::string address;
  uint8_t traffic_class = 0;  // the profile's roce.tos: the ToS byte jobs send with
  uint8_t priority = 0;       // the profile's DSCP map's priority for it
  std::string unavailable;    // why this port cannot probe (no RDMA device, no address)
  bool operator==(const ProbeEndpoint&) const = default;
};

class ProbeModule final : public module::Module {
 public:
  using EndpointList = std::function<std::vector<ProbeEndpoint>()>;
  using TransportFactory = std::function<Result<std::unique_ptr<probe::ProbeTransport>>(
      const ProbeEndpoint&, const probe::ProbeSettings&)>;

  // The daemon's: the reconciler's ports, their GID tables and profiles; verbs queue pairs.
  ProbeModule(System& system, reconcile::Reconciler& reconciler,
              const probe::ProbeSettings& settings);
  ProbeModule(EndpointList endpoints, TransportFactory transports,
              const probe::ProbeSettings& settings, TimeSource& time = real_time());
  ~ProbeModule() override;

  std::string_view name() const override { return "path-probe"; }
  std::vector<module::Section> sections() const override { return {module::Section::Probe}; }
  void start() override;
  void stop() override;
  void reconfigure(const config::Config& before, const config::Config& after) override;
  bool healthy(std::chrono::steady_clock::time_point now) const override;
  std::vector<finding::Finding> findings() const override;
  void collect(telemetry::ExpositionWriter& out) override;

  // One pass of the loop at the clock's time, on the caller's thread (tests on simulated time);
  // returns when the loop would next run.
  TimeSource::TimePoint run_once();

  // The ports' list is asked again this often: ports come and go, addresses move.
  static constexpr std::chrono::seconds kEndpointsRefresh{30};
  // What a scrape serves is this fresh at most.
  static constexpr std::chrono::seconds kPublishInterval{1};

 private:
  struct Series {  // per port and peer group, since start
    probe::PathCounters totals;
    std::vector<uint64_t> buckets;  // network RTT, per bound of kRttBounds (not cumulative)
    uint64_t rtt_count = 0;
    double rtt_sum = 0;
    size_t bad_paths = 0;
  };
  using SeriesKey = std::pair<std::string, std::string>;  // netdev, group

  void loop();
  void refresh(TimeSource::TimePoint now);
  void rebuild(std::vector<ProbeEndpoint> endpoints, TimeSource::TimePoint now);
  void take_rtts();
  void publish(TimeSource::TimePoint now);
  std::vector<int> wait_fds() const;

  EndpointList endpoints_source_;
  TransportFactory transports_source_;
  TimeSource& time_;

  // The loop's own (its thread, or run_once's caller).
  probe::ProbeSettings settings_;
  std::vector<ProbeEndpoint> endpoints_;
  std::vector<std::unique_ptr<ReadyGate>> transports_;
  std::unique_ptr<probe::ProbeEngine> engine_;
  std::vector<std::string> engine_ports_;             // the engine's ports' netdevs, in its order
  std::map<SeriesKey, probe::PathCounters> counted_;  // by earlier engines
  TimeSource::TimePoint refresh_at_{};
  TimeSource::TimePoint publish_at_{};
  uint64_t seed_;

  mutable std::mutex mutex_;  // what scrapes read
  std::map<SeriesKey, Series> series_;
  std::map<std::string, probe::ResponderCounters> responders_;  // by netdev
  std::map<std::string, std::string> unavailable_;              // netdev -> why
  std::vector<finding::Finding> findings_;
  std::atomic<int64_t> last_pass_ns_{0};
  std::atomic<bool> idle_{false};  // off: the loop waits for a reload, however long

  std::mutex settings_mutex_;  // pending_: reconfigure writes, the loop takes
  std::optional<probe::ProbeSettings> pending_;
  int wake_fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace roced::probe_module
