// SPDX-License-Identifier: Apache-2.0
#include "sim/model/traffic.hpp"

#include <algorithm>
#include <cmath>

namespace roce_sim {
namespace {

constexpr uint64_t kPpm = 1'000'000;

bool pfc_enabled(const Port& port, int priority) {
  ieee_pfc pfc{};
  if (port.ieee_getpfc(pfc) != 0) return false;
  return (pfc.pfc_en >> priority) & 1U;
}

// Whole units out of a fractional running total; the remainder stays for the next step.
uint64_t take_whole(double& remainder, double add) {
  remainder += add;
  const double whole = std::floor(remainder);
  remainder -= whole;
  return static_cast<uint64_t>(whole);
}

uint64_t take_whole(uint64_t& remainder, uint64_t add, uint64_t unit) {
  remainder += add;
  const uint64_t whole = remainder / unit;
  remainder %= unit;
  return whole;
}

}  // namespace

std::string direction_name(Direction direction) { return direction == Direction::Tx ? "tx" : "rx"; }

uint64_t TrafficEngine::pause_refresh_interval_ns(uint32_t speed_mbps) {
  // 65535 quanta * 512 bit times / 2, one bit time = 1000 / speed_mbps ns.
  const uint64_t mbps = std::max<uint32_t>(speed_mbps, 1);
  return std::max<uint64_t>(1, 65535ULL * 512ULL * 1000ULL / 2ULL / mbps);
}

uint32_t TrafficEngine::stall_timeout_ms(uint16_t tunable) {
  return tunable == 0xffff ? 100U : tunable;
}

uint32_t TrafficEngine::stall_warning_ms(uint32_t timeout_ms) {
  return std::max<uint32_t>(80U, timeout_ms * 85U / 100U);
}

void TrafficEngine::add_flow(Flow flow) {
  flows_.push_back(std::move(flow));
  flow_states_.emplace_back();
}

void TrafficEngine::start_storm(const std::string& port, int priority, StormDirection direction,
                                bool ignores_remediation) {
  auto& state = states_[{port, priority}];
  if (direction == Direction::Rx) {
    state.rx_storm = true;
    state.rx_ignores_remediation = ignores_remediation;
  } else {
    state.tx_storm = true;
    state.tx_ignores_remediation = ignores_remediation;
  }
}

void TrafficEngine::stop_storm(const std::string& port, int priority, StormDirection direction) {
  auto& state = states_[{port, priority}];
  if (direction == Direction::Rx) {
    state.rx_storm = false;
    state.rx_ignores_remediation = false;
  } else {
    state.tx_storm = false;
    state.tx_ignores_remediation = false;
    state.tx_pausing_us = 0;
    state.storm_warned = false;
    state.stall_prevention_fired = false;
  }
}

bool TrafficEngine::storm_active(const std::string& port, int priority,
                                 StormDirection direction) const {
  const auto it = states_.find({port, priority});
  if (it == states_.end()) return false;
  return direction == Direction::Rx ? it->second.rx_storm : it->second.tx_storm;
}

void TrafficEngine::start_congestion(const std::string& port, int priority, CongestionSpec spec) {
  auto& state = states_[{port, priority}];
  state.congested = true;
  state.congestion = spec;
}

void TrafficEngine::start_phy_errors(const std::string& port, PhyErrorSpec spec) {
  phy_errors_[port] = {spec, 0, 0};
}

void TrafficEngine::stop_phy_errors(const std::string& port) { phy_errors_.erase(port); }

void TrafficEngine::start_pcie_errors(const std::string& port, double recoveries_per_second) {
  pcie_errors_[port] = {recoveries_per_second, 0};
}

void TrafficEngine::stop_pcie_errors(const std::string& port) { pcie_errors_.erase(port); }

void TrafficEngine::stop_congestion(const std::string& port, int priority) {
  states_[{port, priority}].congested = false;
}

std::vector<std::string> TrafficEngine::take_notes() { return std::exchange(notes_, {}); }

std::pair<uint64_t, uint64_t> TrafficEngine::move(size_t flow_index, uint64_t active_us,
                                                  uint64_t ppm) {
  const Flow& flow = flows_[flow_index];
  FlowState& state = flow_states_[flow_index];
  // bytes = rate [bit/s] * t [us] / 1e6 * ppm / 1e6 / 8, exact with the remainder carried.
  constexpr TrafficUint128 kBitUsPpmPerByte = TrafficUint128{8} * 1'000'000 * kPpm;
  const TrafficUint128 total =
      TrafficUint128{flow.rate_bps} * active_us * ppm + state.bit_remainder;
  const auto bytes = static_cast<uint64_t>(total / kBitUsPpmPerByte);
  state.bit_remainder = total % kBitUsPpmPerByte;
  const uint64_t packets =
      take_whole(state.byte_remainder, bytes, std::max<uint32_t>(flow.packet_size, 1));
  return {bytes, packets};
}

void TrafficEngine::advance(std::chrono::microseconds dt) {
  if (dt.count() <= 0) return;
  const auto dt_us = static_cast<uint64_t>(dt.count());
  for (Port* port : node_.ports()) {
    // The PCIe link is the function's, up whether or not the port has carrier.
    if (auto errors = pcie_errors_.find(port->netdev()); errors != pcie_errors_.end()) {
      PcieErrorState& state = errors->second;
      port->counters().rx_pci_signal_integrity += take_whole(
          state.remainder, state.recoveries_per_second * static_cast<double>(dt_us) / 1e6);
    }
    // Without carrier nothing is sent or received: the NIC's DMA does not stall either.
    if (!port->carrier()) count_pcie_stall(*port, dt_us, false);
    advance_port(*port, dt_us);
  }
  // Ports that are absent (driver unbound) or down lose their transient state: a rebound driver
  // starts with no stall detected, and a dead link carries no pause.
  for (auto& [key, state] : states_) {
    const Port* port = node_.find(key.first);
    if (port == nullptr || !port->carrier()) {
      state.rx_paused = false;
      state.tx_pausing_us = 0;
      state.storm_warned = false;
      state.stall_prevention_fired = false;
    }
  }
}

// The firmware's figures are per second (mlx5 counters.rst): each whole second sets
// outbound_pci_stalled_wr to the share of it that was stalled, and counts it in _events when
// that share was above 30 %.
void TrafficEngine::count_pcie_stall(Port& port, uint64_t dt_us, bool stalled) {
  constexpr uint64_t kSecondUs = 1'000'000;
  PcieStallWindow& window = pcie_stalls_[port.netdev()];
  PortCounters& counters = port.counters();
  while (dt_us > 0) {
    const uint64_t step = std::min(dt_us, kSecondUs - window.elapsed_us);
    window.elapsed_us += step;
    if (stalled) window.stalled_us += step;
    dt_us -= step;
    if (window.elapsed_us < kSecondUs) break;
    counters.outbound_pci_stalled_wr = window.stalled_us * 100 / kSecondUs;
    if (counters.outbound_pci_stalled_wr > 30) ++counters.outbound_pci_stalled_wr_events;
    window = {};
  }
}

void TrafficEngine::advance_port(Port& port, uint64_t dt_us) {
  if (!port.carrier()) return;
  PortCounters& counters = port.counters();
  if (auto phy = phy_errors_.find(port.netdev()); phy != phy_errors_.end()) {
    PhyErrorState& state = phy->second;
    const double seconds = static_cast<double>(dt_us) / 1e6;
    const uint64_t symbols =
        take_whole(state.symbol_remainder, state.spec.symbol_errors_per_second * seconds);
    counters.rx_pcs_symbol_err_phy += symbols;
    counters.rx_symbol_err_phy += symbols;
    const uint64_t corrected =
        take_whole(state.corrected_remainder, state.spec.corrected_bits_per_second * seconds);
    // rx_err_lane_<n>_phy: the bits corrected on each lane (phy_corrected_bits_lane<n>); spread,
    // the odd bits go round the lanes from where the count stands, so that none is favoured.
    auto& lanes = counters.rx_corrected_bits_lane;
    if (state.spec.lane >= 0) {
      lanes[static_cast<size_t>(state.spec.lane)] += corrected;
    } else {
      const uint64_t first = counters.rx_corrected_bits_phy % lanes.size();
      for (size_t lane = 0; lane < lanes.size(); ++lane) {
        const uint64_t turn = (lane + lanes.size() - first) % lanes.size();
        lanes[lane] += corrected / lanes.size() + (turn < corrected % lanes.size() ? 1 : 0);
      }
    }
    counters.rx_corrected_bits_phy += corrected;
    // At the error rates of a working link a corrected codeword holds one bit error, and an
    // uncorrectable codeword is marked in the PCS as errored blocks (IEEE 802.3 clause 91.5.3.3):
    // one block per corrected bit, one symbol error per uncorrectable block.
    counters.rs_fec_corrected_blocks += corrected;
    counters.rs_fec_uncorrectable_blocks += symbols;
  }
  const uint64_t refresh_ns = pause_refresh_interval_ns(port.speed_mbps());
  const uint64_t dt_ns = dt_us * 1000;
  bool stalled = false;

  for (int priority = 0; priority < 8; ++priority) {
    auto found = states_.find({port.netdev(), priority});
    PriorityState idle;
    PriorityState& state = found != states_.end() ? found->second : idle;
    PriorityCounters& prio = counters.prio[static_cast<size_t>(priority)];
    const bool pfc = pfc_enabled(port, priority);

    // --- The peer pausing us (rx pause): stops our transmission on this priority, if honoured.
    // A NIC with PFC off on the priority ignores the frames (the MAC still counts them), unless
    // the storm ignores remediation. The per-priority frame counter counts them too where the
    // MAC does (caps.pause_counted_without_pfc); the pause duration only what the NIC honoured.
    const bool rx_stubborn = state.rx_storm && state.rx_ignores_remediation;
    uint64_t rx_paused_ppm = 0;
    if (state.rx_storm) {
      rx_paused_ppm = kPpm;
    } else if (state.congested) {
      rx_paused_ppm = static_cast<uint64_t>(std::llround(state.congestion.pause_ratio * kPpm));
    }
    const uint64_t rx_paused_ns = dt_ns * rx_paused_ppm / kPpm;
    uint64_t rx_pause_frames = 0;
    if (state.rx_storm) {
      rx_pause_frames = take_whole(state.rx_pause_ns_remainder, rx_paused_ns, refresh_ns);
    } else if (rx_paused_ns > 0) {
      // Short episodes: an XOFF frame starts each, an XON frame ends it.
      rx_pause_frames =
          2 * take_whole(state.episode_ns_remainder, rx_paused_ns, kCongestionPauseEpisodeNs);
    }
    counters.rx_pause_ctrl_phy += rx_pause_frames;
    const bool honoured = (pfc || rx_stubborn) && rx_paused_ppm > 0;
    if (honoured || port.spec().caps.pause_counted_without_pfc) prio.rx_pause += rx_pause_frames;
    if (honoured) {
      prio.rx_pause_duration_us +=
          take_whole(state.rx_duration_ns_remainder, rx_paused_ns, uint64_t{1000});
      // rx_prio_pause_transition counts XOFF -> XON: the end of each pause.
      if (!state.rx_storm) prio.rx_pause_transition += rx_pause_frames / 2;
    }
    const bool storm_paused = honoured && state.rx_storm;
    if (state.rx_paused && !storm_paused) ++prio.rx_pause_transition;  // a storm's pause lifted
    state.rx_paused = storm_paused;
    const uint64_t tx_ppm = honoured ? kPpm - rx_paused_ppm : kPpm;

    // --- We pausing the peer (tx storm: our receive side is stalled).
    // A storm that ignores remediation pauses with PFC off and is never stopped by stall
    // prevention (no warning or error event either).
    const bool tx_stubborn = state.tx_storm && state.tx_ignores_remediation;
    uint64_t tx_pausing_us = 0;  // of this step
    if (state.tx_storm && (pfc || tx_stubborn) && !state.stall_prevention_fired) {
      tx_pausing_us = dt_us;
      uint16_t tunable = 0;
      const bool prevention = !tx_stubborn && port.spec().caps.stall_prevention &&
                              port.get_pfc_prevention_tout(tunable) == 0 && tunable != 0;
      if (prevention) {
        const uint64_t timeout_us = uint64_t{stall_timeout_ms(tunable)} * 1000;
        const uint64_t warning_us = uint64_t{stall_warning_ms(stall_timeout_ms(tunable))} * 1000;
        const uint64_t before = state.tx_pausing_us;
        tx_pausing_us = std::min(dt_us, timeout_us > before ? timeout_us - before : 0);
        const uint64_t after = before + dt_us;
        const bool events = port.spec().caps.stall_prevention;
        if (!state.storm_warned && after >= warning_us) {
          state.storm_warned = true;
          if (events) ++counters.tx_pause_storm_warning_events;
        }
        if (after >= timeout_us) {
          state.stall_prevention_fired = true;
          if (events) ++counters.tx_pause_storm_error_events;
          notes_.push_back(port.netdev() + ": stall prevention stops pausing on priority " +
                           std::to_string(priority) + " after " +
                           std::to_string(stall_timeout_ms(tunable)) + " ms; received packets " +
                           "are dropped");
        }
      }
      state.tx_pausing_us += tx_pausing_us;
      const uint64_t frames =
          take_whole(state.tx_pause_ns_remainder, tx_pausing_us * 1000, refresh_ns);
      prio.tx_pause += frames;
      prio.tx_pause_duration_us += tx_pausing_us;
      counters.tx_pause_ctrl_phy += frames;
    }
    // The stuck receive pipeline back-pressures the NIC's PCIe writes into host memory.
    stalled = stalled || state.tx_storm;
    // While we pause the peer nothing arrives; afterwards (or with PFC off) packets arrive into a
    // stalled pipeline and are dropped.
    const uint64_t rx_arriving_us = dt_us - tx_pausing_us;

    // --- Flows.
    uint64_t rx_packets_here = 0;
    bool transmitting = false;
    for (size_t i = 0; i < flows_.size(); ++i) {
      const Flow& flow = flows_[i];
      if (flow.port != port.netdev() || flow.priority != priority) continue;
      if (flow.direction == Direction::Tx) {
        const auto [bytes, packets] = move(i, dt_us, tx_ppm);
        prio.tx_bytes += bytes;
        prio.tx_packets += packets;
        counters.tx_bytes += bytes;
        counters.tx_packets += packets;
        transmitting = transmitting || bytes > 0;
      } else {
        const auto [bytes, packets] = move(i, rx_arriving_us, kPpm);
        prio.rx_bytes += bytes;
        prio.rx_packets += packets;
        counters.rx_bytes += bytes;
        counters.rx_packets += packets;
        if (state.tx_storm) {
          prio.rx_discards += packets;
          counters.rx_discards_phy += packets;
          if (port.spec().caps.prio_discard_counters) prio.rx_buf_discard += packets;
        } else {
          rx_packets_here += packets;
        }
      }
    }

    // --- Congestion: CE marks on what we receive (we are the notification point), CNPs for
    // what we send (we are the reaction point).
    if (state.congested) {
      const CongestionSpec& c = state.congestion;
      const double seconds = static_cast<double>(dt_us) / 1e6;
      const uint64_t marked = take_whole(state.marked_remainder,
                                         static_cast<double>(rx_packets_here) * c.ecn_mark_ratio);
      RdmaDevice& rdma = port.rdma();
      if (marked > 0) {
        rdma.add_to_counter("np_ecn_marked_roce_packets", marked);
        if (port.spec().caps.prio_discard_counters) prio.rx_marked += marked;
        if (port.ecn().np_enabled[static_cast<size_t>(priority)]) {
          // One CNP per marked packet at most, and no faster than the CNP rate.
          const uint64_t cnps = std::min<uint64_t>(
              marked, take_whole(state.cnp_sent_remainder, c.cnp_per_second * seconds));
          rdma.add_to_counter("np_cnp_sent", cnps);
        }
      }
      if (transmitting) {
        const uint64_t cnps = take_whole(state.cnp_received_remainder, c.cnp_per_second * seconds);
        const bool reacting = port.ecn().rp_enabled[static_cast<size_t>(priority)];
        rdma.add_to_counter(reacting ? "rp_cnp_handled" : "rp_cnp_ignored", cnps);
      }
    }
  }
  count_pcie_stall(port, dt_us, stalled);
}

}  // namespace roce_sim
