// SPDX-License-Identifier: Apache-2.0
#include "telemetry/node_sampler.hpp"

#include <cerrno>

#include "ethtool/ethtool_names.hpp"
#include "link/link.hpp"
#include "telemetry/metric_families.hpp"
#include "telemetry/sampler.hpp"

namespace roced::telemetry {

namespace {

using SteadyClock = std::chrono::steady_clock;

// Firmware changes only with a flash and a driver reload (which changes nothing else we key on
// but is rare): re-reading it every few minutes saves an ioctl per port per scrape.
constexpr std::chrono::minutes kFirmwareRefresh{5};
// The GID table changes with addresses (no netlink group of ours tells us): a few file reads
// per entry up to the RoCE v2 one is a third of a scrape's cost if done every time, and an
// index that moved shows within this long (the alert waits minutes anyway).
constexpr std::chrono::seconds kGidRefresh{10};

}  // namespace

NodeSampler::NodeSampler(System& system, Targets targets, ErrorSink on_errors)
    : system_(system), targets_(std::move(targets)), on_errors_(std::move(on_errors)) {}

void NodeSampler::use_poller(std::shared_ptr<sampling::StatsPoller> poller,
                             std::chrono::steady_clock::duration max_age) {
  poller_ = std::move(poller);
  max_sample_age_ = max_age;
}

void NodeSampler::carry_totals(PortSample& sample, PortMemory& memory) {
  for (const auto& [name, raw] : sample.rdma) {
    auto it = memory.totals.find(name);
    if (it == memory.totals.end()) {
      it = memory.totals.emplace(name, CounterAccumulator(hw_counter_width(name))).first;
    }
    const uint64_t wraps_before = it->second.wraps();
    const uint64_t resets_before = it->second.resets();
    sample.rdma_totals[name] = it->second.feed(raw);
    memory.wraps += it->second.wraps() - wraps_before;
    memory.resets += it->second.resets() - resets_before;
  }
  sample.counter_wraps = memory.wraps;
  sample.counter_resets = memory.resets;
}

void NodeSampler::carry_ethtool_totals(PortSample& sample, PortMemory& memory) {
  if (sample.ethtool.empty()) return;  // not read this time: nothing moved
  std::vector<CounterWidth> widths;
  std::vector<uint64_t> before;
  std::vector<uint64_t> after;
  for (const auto& [name, raw] : sample.ethtool) {
    const auto last = memory.ethtool_last.find(name);
    if (last == memory.ethtool_last.end()) continue;
    widths.push_back(ethtool_counter_width(name));
    before.push_back(last->second);
    after.push_back(raw);
  }
  const bool reset = reading_reset(widths, before, after);
  memory.ethtool_last = sample.ethtool;
  for (auto& [name, value] : sample.ethtool) {
    const CounterWidth width = ethtool_counter_width(name);
    if (width != CounterWidth::bits32) continue;
    auto it = memory.ethtool_totals.try_emplace(name, CounterAccumulator(width)).first;
    value = it->second.feed(value, reset);
  }
}

NodeSampler::RdmaReading NodeSampler::read_rdma_counters(const std::vector<PortTarget>& targets) {
  RdmaReading reading;
  reading.counters.resize(targets.size());
  std::vector<RdmaPort> ports;
  std::vector<size_t> asked;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (targets[i].port.rdma_device.empty()) continue;
    ports.emplace_back(targets[i].port.rdma_device, targets[i].port.rdma_port);
    asked.push_back(i);
  }
  if (ports.empty() || !nldev_.available()) return reading;
  const auto start = SteadyClock::now();
  auto answers = nldev_.read(ports);
  if (!answers) return reading;
  reading.took_each = (SteadyClock::now() - start) / static_cast<int64_t>(ports.size());
  KeptRdma kept{{}, reading.took_each, time_->now()};
  for (size_t k = 0; k < asked.size(); ++k) {
    std::optional<Result<rdma::CounterValues>> answer;
    // ENODEV: RDMA netlink does not know the port, but sysfs may still have it.
    if (k < answers->size() && ((*answers)[k] || (*answers)[k].error().code != ENODEV)) {
      answer = std::move((*answers)[k]);
    }
    kept.ports[ports[k]] = answer;
    reading.counters[asked[k]] = std::move(answer);
  }
  kept_ = std::move(kept);
  return reading;
}

NodeSampler::RdmaReading NodeSampler::rdma_counters(const std::vector<PortTarget>& targets) {
  std::lock_guard lock(rdma_mutex_);
  const auto now = time_->now();
  if (rdma_asked_at_) rdma_asked_gap_ = now - *rdma_asked_at_;
  rdma_asked_at_ = now;
  if (kept_ && rdma_max_age_ > SteadyClock::duration::zero()) {
    const auto age = time_->now() - kept_->at;
    RdmaReading reading{{}, kept_->took_each, true, age};
    reading.counters.resize(targets.size());
    bool covered = age <= rdma_max_age_;
    for (size_t i = 0; covered && i < targets.size(); ++i) {
      const DiscoveredPort& port = targets[i].port;
      if (port.rdma_device.empty()) continue;
      auto it = kept_->ports.find({port.rdma_device, port.rdma_port});
      covered = it != kept_->ports.end();
      if (covered) reading.counters[i] = it->second;
    }
    if (covered) return reading;
  }
  return read_rdma_counters(targets);
}

void NodeSampler::refresh_rdma() {
  {
    // Nobody scrapes: three firmware commands a port, every interval, for nothing.
    std::lock_guard lock(rdma_mutex_);
    const auto idle_after = std::max<SteadyClock::duration>(kRdmaIdleAfter, 3 * rdma_asked_gap_);
    if (!rdma_asked_at_ || time_->now() - *rdma_asked_at_ > idle_after) return;
  }
  const std::vector<PortTarget> targets = targets_();
  std::lock_guard lock(rdma_mutex_);
  (void)read_rdma_counters(targets);
}

PortSample NodeSampler::sample_one(const PortTarget& target,
                                   const std::map<std::string, LinkInfo>& links,
                                   const Result<rdma::CounterValues>* rdma_counters,
                                   const RdmaReading& reading, PortMemory& memory) {
  const auto now = time_->now();
  const bool read_firmware = memory.firmware.empty() || memory.pci != target.port.pci ||
                             now - memory.firmware_read_at >= kFirmwareRefresh;
  SampleOptions options;
  options.gid_family = target.gid_family;
  options.firmware = read_firmware;
  if (auto link = links.find(target.port.netdev); link != links.end()) {
    options.link = link->second;
  }
  const int ifindex = options.link ? options.link->ifindex : 0;
  options.gid = memory.gid_family != target.gid_family || memory.ifindex != ifindex ||
                ifindex == 0 || now - memory.gid_read_at >= kGidRefresh;
  // The hw_counters directory changes only with the device: listed when the GID table is
  // re-read (a new ifindex, or every kGidRefresh), its files read by name in between.
  if (!options.gid) options.hw_counter_names = &memory.hw_counter_names;
  options.keep_hw_counter = &exports_hw_counter;
  options.rdma_counters = rdma_counters;
  options.rdma_took = reading.kept ? SteadyClock::duration::zero() : reading.took_each;
  std::optional<sampling::StatsReading> recent;
  // A bond has no statistics of its own (sample_port reads none).
  if (target.port.role != PortRole::Bond) {
    if (!poller_) poller_ = std::make_shared<sampling::StatsPoller>(system_, *time_);
    recent = poller_->reading(target.port.netdev, max_sample_age_);
  }
  if (recent) {
    options.stats = &*recent;
    if (recent->names && recent->names != memory.stats_names) {
      memory.stats_names = recent->names;
      memory.stats_kept.clear();
      for (size_t i = 0; i < recent->names->size(); ++i) {
        if (exports_ethtool_stat((*recent->names)[i])) memory.stats_kept.push_back(i);
      }
    }
    if (recent->names) options.stats_kept = &memory.stats_kept;
  }
  PortSample sample = sample_port(system_, target.port, options);
  if (recent) sample.ethtool_age = now - recent->answered;
  if (rdma_counters != nullptr && reading.kept) sample.rdma_age = reading.age;
  if (options.gid) {
    memory.hw_counter_names.clear();
    for (const auto& entry : sample.rdma) memory.hw_counter_names.push_back(entry.first);
    memory.gid_index = sample.rocev2_gid_index;
    memory.gid_ok = !sample.sources.count("gid") || sample.sources.at("gid").ok;
    memory.gid_family = target.gid_family;
    memory.ifindex = ifindex;
    memory.gid_read_at = now;
  } else if (!target.port.rdma_device.empty()) {
    // As last read: the collector's health says what that read said.
    sample.rocev2_gid_index = memory.gid_index;
    sample.sources["gid"] = SourceOutcome{memory.gid_ok, {}};
  }
  if (read_firmware) {
    memory.firmware = sample.firmware;
    memory.driver_tree = sample.driver_tree;
    memory.driver_tree_version = sample.driver_tree_version;
    memory.pci = target.port.pci;
    memory.firmware_read_at = now;
  } else {
    sample.firmware = memory.firmware;
    sample.driver_tree = memory.driver_tree;
    sample.driver_tree_version = memory.driver_tree_version;
  }
  carry_totals(sample, memory);
  carry_ethtool_totals(sample, memory);
  return sample;
}

NodeSample NodeSampler::sample() {
  std::lock_guard lock(mutex_);
  NodeSample out;
  const std::vector<PortTarget> targets = targets_();

  // One RTM_GETLINK dump for every port; a port missing from it is read on its own.
  std::map<std::string, LinkInfo> links;
  if (auto all = LinkClient(system_).list()) {
    for (auto& link : *all) links.emplace(link.name, std::move(link));
  }

  // Each port's memory moves into its slot; sample_one touches only that. (Reading ports on
  // several threads was tried: against the single-threaded simulator on two cores it gained
  // nothing, so the ports are read in turn.)
  const RdmaReading rdma = rdma_counters(targets);
  std::vector<PortMemory> memories(targets.size());
  out.ports.reserve(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    if (auto it = memory_.find(targets[i].port.netdev); it != memory_.end()) {
      memories[i] = std::move(it->second);
    }
    const Result<rdma::CounterValues>* counters = rdma.counters[i] ? &*rdma.counters[i] : nullptr;
    out.ports.push_back(sample_one(targets[i], links, counters, rdma, memories[i]));
  }

  std::map<std::string, PortMemory> still_there;
  for (size_t i = 0; i < targets.size(); ++i) {
    PortSample& sample = out.ports[i];
    sample.expected_gid_index = targets[i].expected_gid_index;
    for (const auto& [name, outcome] : sample.sources) {
      SourceOutcome& total = out.sources[name];
      total.ok = total.ok && outcome.ok;
      total.took += outcome.took;
    }
    if (sample.errors != memories[i].errors) {
      if (on_errors_) on_errors_(targets[i].port.netdev, sample.errors);
      memories[i].errors = sample.errors;
    }
    still_there[targets[i].port.netdev] = std::move(memories[i]);
  }
  // A port no longer targeted is forgotten; if it comes back its counters start a new series.
  memory_ = std::move(still_there);
  return out;
}

}  // namespace roced::telemetry
