// SPDX-License-Identifier: Apache-2.0
#pragma once
// Samples every port of the node in one go and keeps what needs memory across samples: the RDMA
// counters' 64-bit totals (wraps carried over) and the firmware version (read once in a while,
// not per sample) and the RoCE v2 GID index (re-read every few seconds). The exporter calls
// sample() per scrape; the statistics come from the statistics poller's readings (use_poller) and
// the RDMA counters from a reading refresh_rdma() made in the background (keep_rdma_readings), so a
// scrape need not wait for the NICs' firmware.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "link/link.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "rdma/nldev.hpp"
#include "sampling/stats_poller.hpp"
#include "telemetry/sample.hpp"
#include "telemetry/wrap.hpp"
#include "util/time_source.hpp"

namespace roced::telemetry {

// One port to sample, with what the caller (the daemon) knows about it. A port gone from the
// node is not a target: the daemon's own collectors say it vanished.
struct PortTarget {
  DiscoveredPort port;
  std::string gid_family = "ipv4";
  std::optional<int> expected_gid_index;
};

struct NodeSample {
  std::vector<PortSample> ports;  // in the targets' order
  // Per source ("ethtool", "rdma", "link", "gid"): every port read, and the time summed over the
  // ports.
  std::map<std::string, SourceOutcome> sources;
};

class NodeSampler {
 public:
  using Targets = std::function<std::vector<PortTarget>()>;
  // Told when a port's read errors change (a file turned unreadable, and again once it reads):
  // `errors` is the port's new list, empty when it reads cleanly again. Called under sample().
  using ErrorSink =
      std::function<void(const std::string& netdev, const std::vector<std::string>& errors)>;
  NodeSampler(System& system, Targets targets, ErrorSink on_errors = {});

  // Serve a port's statistics from `poller` (the one the storm watchdog drives) when its reading
  // there is at most `max_age` old; an older one is read through it. Without this call, a poller
  // of the sampler's own reads at every sample (max_age 0).
  void use_poller(std::shared_ptr<sampling::StatsPoller> poller,
                  std::chrono::steady_clock::duration max_age);

  // Serve the RDMA counters from the last refresh_rdma() (or the last sample that read them) while
  // it is at most `max_age` old; 0 (the default): every sample reads them. Before sample().
  void keep_rdma_readings(std::chrono::steady_clock::duration max_age) { rdma_max_age_ = max_age; }
  // Reads every target's RDMA counters now (RDMA netlink, one request per port) and keeps them
  // for the samples to come, while samples ask for them: not before the first, nor once none has
  // come for kRdmaIdleAfter (or three of the last gaps between them, if longer); the next sample
  // then reads them itself. Thread-safe; the daemon calls it on a thread of its own.
  void refresh_rdma();
  static constexpr std::chrono::minutes kRdmaIdleAfter{2};
  // The clock the readings' ages are told on (before the first sample()).
  void use_time(TimeSource& time) { time_ = &time; }

  // Thread-safe; concurrent callers take turns (the totals need the samples in order).
  NodeSample sample();

 private:
  struct PortMemory {
    std::map<std::string, CounterAccumulator> totals;
    // The exported ethtool counters' last raw values, and the 32-bit ones' totals.
    std::map<std::string, uint64_t> ethtool_last;
    std::map<std::string, CounterAccumulator> ethtool_totals;
    uint64_t wraps = 0;
    uint64_t resets = 0;
    std::string pci;
    std::string firmware;
    std::string driver_tree;
    std::string driver_tree_version;
    std::chrono::steady_clock::time_point firmware_read_at;
    std::optional<int> gid_index;
    bool gid_ok = true;
    std::vector<std::string> hw_counter_names;  // listed with the GID table's refresh
    std::string gid_family;
    int ifindex = 0;
    std::chrono::steady_clock::time_point gid_read_at;
    std::vector<std::string> errors;  // the last sample's, to report changes only
    // The indexes of the exported counters in the statistics names last served (the poller's
    // string set changes only with PFC), so a scrape copies those values alone.
    std::shared_ptr<const std::vector<std::string>> stats_names;
    std::vector<size_t> stats_kept;
  };
  using RdmaPort = std::pair<std::string, int>;  // RDMA device and port
  // The RDMA counters as one RDMA netlink batch answered them, port by port.
  struct RdmaReading {
    std::vector<std::optional<Result<rdma::CounterValues>>> counters;  // in the targets' order
    std::chrono::steady_clock::duration took_each{};  // the read's time, per port asked
    bool kept = false;  // served from an earlier read (refresh_rdma's), not read for this one
    std::chrono::steady_clock::duration age{};  // that read's age
  };
  // Reads one port and updates what is remembered of it.
  PortSample sample_one(const PortTarget& target, const std::map<std::string, LinkInfo>& links,
                        const Result<rdma::CounterValues>* rdma_counters,
                        const RdmaReading& reading, PortMemory& memory);
  // Every target's RDMA counters, from the kept reading while it is fresh and covers them, else
  // in one RDMA netlink batch (kept for the next samples). A port RDMA netlink does not list, and
  // every port while RDMA netlink cannot be used, has none: its hw_counters files are read.
  RdmaReading rdma_counters(const std::vector<PortTarget>& targets);
  // The batch read itself, kept by port; under rdma_mutex_.
  RdmaReading read_rdma_counters(const std::vector<PortTarget>& targets);
  void carry_totals(PortSample& sample, PortMemory& memory);
  // The sample's 32-bit ethtool counters as 64-bit totals, by util/counter_step.hpp's rule with
  // the sample's 64-bit counters as the evidence of a reset.
  static void carry_ethtool_totals(PortSample& sample, PortMemory& memory);

  System& system_;
  TimeSource* time_ = &real_time();
  std::mutex rdma_mutex_;  // nldev_ and kept_: refresh_rdma() runs beside sample()
  rdma::NldevCounterReader nldev_{system_};
  std::chrono::steady_clock::duration rdma_max_age_{0};
  struct KeptRdma {
    std::map<RdmaPort, std::optional<Result<rdma::CounterValues>>> ports;  // each port asked
    std::chrono::steady_clock::duration took_each{};
    TimeSource::TimePoint at{};
  };
  std::optional<KeptRdma> kept_;
  // When samples last asked for the RDMA counters, and the gap before that ask.
  std::optional<TimeSource::TimePoint> rdma_asked_at_;
  std::chrono::steady_clock::duration rdma_asked_gap_{0};
  std::shared_ptr<sampling::StatsPoller> poller_;
  std::chrono::steady_clock::duration max_sample_age_{0};
  Targets targets_;
  ErrorSink on_errors_;
  std::mutex mutex_;
  std::map<std::string, PortMemory> memory_;  // by netdev
};

}  // namespace roced::telemetry
