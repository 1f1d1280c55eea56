// SPDX-License-Identifier: Apache-2.0
#pragma once
// The traffic engine: advances a node's hardware counters consistently with simulated time —
// steady flows, PFC storms in either direction and congestion episodes (docs/sim-formats.md;
// docs/config.md#watchdog for the signal the watchdog detects).

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/node.hpp"

namespace roce_sim {

__extension__ typedef unsigned __int128 TrafficUint128;  // exact bit accounting

enum class Direction { Tx, Rx };
// Rx storm: the peer pauses us. Tx storm: our stalled receive side makes us pause the peer.
using StormDirection = Direction;
std::string direction_name(Direction direction);  // "tx" | "rx"

// A steady stream of RoCE packets on one port and priority.
struct Flow {
  std::string port;  // netdev
  int priority = 3;
  Direction direction = Direction::Tx;
  uint64_t rate_bps = 0;        // offered rate, bits per second on the wire
  uint32_t packet_size = 4096;  // bytes per packet as counted by the port
};

struct CongestionSpec {
  double ecn_mark_ratio = 0;  // share of received packets that arrive CE-marked
  double cnp_per_second = 0;  // CNPs received by our reaction point; cap of CNPs our NP sends
  double pause_ratio = 0;     // share of the time the peer pauses us (< 1: progress continues)
};

// A PHY that errs at these rates while the link is up: a dirty or failing optic, a marginal cable.
// Corrected bits are errors FEC repaired (the pre-FEC error rate); symbol errors are what it could
// not, each one a frame lost with a bad FCS.
struct PhyErrorSpec {
  double symbol_errors_per_second = 0;
  double corrected_bits_per_second = 0;
  int lane = -1;  // the lane whose bits are corrected; -1: all four alike
};

class TrafficEngine {
 public:
  // A pause frame asks for the maximum 65535 quanta of 512 bit times; a pausing device refreshes
  // it when half has elapsed, so frames arrive every 65535 * 512 / 2 bit times: 41.94 us at
  // 400G, 167.8 us at 100G. In nanoseconds.
  static uint64_t pause_refresh_interval_ns(uint32_t speed_mbps);
  // A congestion pause episode: one XOFF (sets the pause), one XON (lifts it) frame, this long.
  static constexpr uint64_t kCongestionPauseEpisodeNs = 20'000;
  // mlx5 stall prevention: 0xffff ("auto") means 100 ms; the warning watermark is
  // max(80 ms, 85 % of the timeout) (en_ethtool.c: mlx5e_set_pfc_prevention_tout).
  static uint32_t stall_timeout_ms(uint16_t tunable);
  static uint32_t stall_warning_ms(uint32_t timeout_ms);

  explicit TrafficEngine(Node& node) : node_(node) {}

  void add_flow(Flow flow);
  const std::vector<Flow>& flows() const { return flows_; }

  // ignores_remediation: the firmware keeps this storm going whatever roced writes. An rx storm
  // is honoured with PFC off on the priority; a tx storm keeps pausing with PFC off and past the
  // stall prevention timeout (which then neither warns nor fires).
  void start_storm(const std::string& port, int priority, StormDirection direction,
                   bool ignores_remediation = false);
  void stop_storm(const std::string& port, int priority, StormDirection direction);
  bool storm_active(const std::string& port, int priority, StormDirection direction) const;

  void start_congestion(const std::string& port, int priority, CongestionSpec spec);
  void stop_congestion(const std::string& port, int priority);

  void start_phy_errors(const std::string& port, PhyErrorSpec spec);
  void stop_phy_errors(const std::string& port);
  // The port's PCIe link recovers this often for signal integrity errors (rx_pci_signal_integrity,
  // carrier or not) until stopped.
  void start_pcie_errors(const std::string& port, double recoveries_per_second);
  void stop_pcie_errors(const std::string& port);

  // Advances every present port with carrier by dt of simulated time.
  void advance(std::chrono::microseconds dt);

  // Human-readable notes of what the NIC did on its own (stall prevention firing), for the log.
  std::vector<std::string> take_notes();

 private:
  struct FlowState {
    TrafficUint128 bit_remainder = 0;  // in bit * us * ppm, below one byte
    uint64_t byte_remainder = 0;       // below one packet
  };
  struct PriorityState {
    bool rx_storm = false;
    bool tx_storm = false;
    bool rx_ignores_remediation = false;  // of the rx storm in force
    bool tx_ignores_remediation = false;
    bool congested = false;
    CongestionSpec congestion;
    bool rx_paused = false;              // the peer was pausing us at the end of the last step
    uint64_t rx_pause_ns_remainder = 0;  // paused time not yet a whole pause frame
    uint64_t tx_pause_ns_remainder = 0;
    uint64_t rx_duration_ns_remainder = 0;
    uint64_t episode_ns_remainder = 0;
    uint64_t tx_pausing_us = 0;  // how long we have been pausing the peer in this storm
    bool storm_warned = false;
    bool stall_prevention_fired = false;
    double marked_remainder = 0, cnp_sent_remainder = 0, cnp_received_remainder = 0;
  };
  using Key = std::pair<std::string, int>;
  struct PhyErrorState {
    PhyErrorSpec spec;
    double symbol_remainder = 0, corrected_remainder = 0;
  };
  // The firmware's one-second window of PCIe write stalls (outbound_pci_stalled_wr and its
  // _events): how far into the current second, and how much of it was stalled.
  struct PcieStallWindow {
    uint64_t elapsed_us = 0;
    uint64_t stalled_us = 0;
  };
  void count_pcie_stall(Port& port, uint64_t dt_us, bool stalled);

  // Bytes and packets a flow moves in active_us at ppm/1e6 of its rate.
  std::pair<uint64_t, uint64_t> move(size_t flow_index, uint64_t active_us, uint64_t ppm);
  void advance_port(Port& port, uint64_t dt_us);

  Node& node_;
  std::vector<Flow> flows_;
  std::vector<FlowState> flow_states_;
  std::map<Key, PriorityState> states_;
  std::map<std::string, PhyErrorState> phy_errors_;
  std::map<std::string, PcieStallWindow> pcie_stalls_;
  struct PcieErrorState {
    double recoveries_per_second = 0;
    double remainder = 0;
  };
  std::map<std::string, PcieErrorState> pcie_errors_;
  std::vector<std::string> notes_;
};

}  // namespace roce_sim
