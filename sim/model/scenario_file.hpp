// SPDX-License-Identifier: Apache-2.0
#pragma once
// Scenarios: steady traffic plus events on a simulated timeline (docs/sim-formats.md), as read
// from a scenario file. The runner that plays one against a Node is in scenario.hpp.

#include <linux/dcbnl.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/model/file_error.hpp"
#include "sim/model/node.hpp"
#include "sim/model/traffic.hpp"
#include "sim/model/yaml_reader.hpp"

namespace roce_sim {

// Where a scenario item was written, so later checks (ports missing from the node) can point there.
struct SourcePlace {
  int line = 0;       // 1-based
  int column = 0;     // 1-based
  std::string field;  // "events[2].port"
};

namespace scenario_event {

// ECN marks, CNPs and partial pausing on one port/priority; progress continues.
struct Congestion {
  int priority = 3;
  std::chrono::microseconds duration{0};
  double ecn_mark_ratio = 0;  // share of received packets on the priority that arrive CE-marked
  double cnp_per_second = 0;  // CNPs our reaction point receives (and the most our NP sends)
  double pause_ratio = 0;     // share of time the switch pauses us, < 1
};

// The peer pauses us without end (rx), or our stalled receive side pauses the peer (tx).
struct PfcStorm {
  int priority = 3;
  StormDirection direction = StormDirection::Rx;
  std::chrono::microseconds duration{0};
  // Firmware that accepts roced's remediation (PFC off, stall prevention) and does not act on it.
  bool ignores_remediation = false;
};

// Carrier lost (cable, switch port) and back.
struct LinkFlap {
  std::chrono::microseconds down_for{0};
};

// Driver unbind/rebind: the port (all ports when port is empty) vanishes and returns with
// firmware defaults.
struct DriverReload {
  std::chrono::microseconds down_for{0};
};

// Another tool (mlnx_qos, dcb, ethtool) changing settings through the same driver ops.
struct ForeignTool {
  std::string tool = "mlnx_qos";
  std::optional<uint8_t> pfc_enable;    // bitmask of priorities
  std::optional<bool> trust_dscp;       // dscp: add the default 64-entry map; pcp: remove all
  std::map<int, int> dscp_to_priority;  // extra APP entries
  std::optional<bool> dcbx_host;        // host | firmware
  std::optional<uint32_t> mtu;
  std::optional<uint16_t> stall_prevention_ms;          // 0 off, 0xffff auto
  std::optional<GlobalPause> global_pause;              // ethtool -A rx R tx T
  std::optional<uint32_t> channels;                     // ethtool -L combined
  std::optional<std::array<uint8_t, 8>> ets_bandwidth;  // per traffic class, sum 100
  std::optional<std::array<uint8_t, 8>> prio_tc;        // priority -> traffic class
};

// The switch's DCBX TLVs as a willing firmware agent applies them.
struct DcbxPeer {
  std::optional<uint8_t> pfc_enable;
  std::optional<std::array<uint8_t, 8>> ets_bandwidth;
  std::optional<std::array<uint8_t, 8>> prio_tc;
};

// The switch at the other end of the cable changes what it sends (Node::set_switch); a willing
// firmware DCBX agent applies its PFC and ETS as for dcbx_peer.
struct SwitchChange {
  SwitchPeerChange change;
};

// The next `count` set operations of kind `op` on the port fail with -err.
struct NetlinkErrors {
  int err = 16;  // EBUSY
  std::string err_name = "EBUSY";
  int count = 1;
  SetOp op = SetOp::Any;
};

// Addresses added to / removed from the netdev; the RoCE GID table follows.
struct AddressChange {
  std::vector<std::string> add;
  std::vector<std::string> remove;
};

// Pods on macvlan over the port start (on the pod subnet's next addresses) or stop (the oldest
// first); their GID entries come and go with them.
struct PodChange {
  uint32_t start = 0;
  uint32_t stop = 0;
};

// sriov_numvfs is written on the PF: it has `count` VFs from now (Node::set_numvfs).
struct VfChange {
  uint32_t count = 0;
};

// The port vanishes (its driver unbinds) when its next matching set request arrives; the request
// fails with ENODEV and the port comes back with firmware defaults `down_for` later.
struct VanishOnWrite {
  SetOp op = SetOp::Any;
  std::chrono::microseconds down_for{0};
};

// The next matching set request on the port is carried out, and its reply held back this long.
struct HoldReply {
  SetOp op = SetOp::Any;
  std::chrono::microseconds duration{0};
};

// Counters of the port restart from 0 without a driver reload (mlxlink --pc, firmware bugs):
// ethtool -S names and hw_counters file names.
struct CounterClear {
  std::vector<std::string> counters;
};

// A file of the node's tree (path relative to its directory) reads as mode 0000 for a while.
struct UnreadableFile {
  std::string file;
  std::chrono::microseconds duration{0};
};

// The PCI function's PCIe link trains again at this speed and width (a marginal slot or riser, a
// retrain after an error); a retrain without them restores what the endpoint is built for.
struct PcieRetrain {
  std::optional<uint32_t> speed_tenths_gts;
  std::optional<uint32_t> width;
};

// The port's PHY errs for a while: symbol errors FEC could not correct and bits it corrected, per
// second, while the link is up.
struct PhyErrors {
  std::chrono::microseconds duration{0};
  double symbol_errors_per_second = 0;
  double corrected_bits_per_second = 0;
  int lane = -1;  // the lane (0-3) whose bits are corrected; -1: spread over all four
};

// The NIC's PCIe link goes into recovery for signal integrity errors for a while (a marginal slot
// or riser): recoveries per second, whether or not the port has carrier.
struct PcieErrors {
  std::chrono::microseconds duration{0};
  double recoveries_per_second = 0;
};

// The port's optical module degrades for a while: one lane's receive power drops to `rx_power_dbm`
// (a dirty connector, a dying laser at the far end) and/or the module runs at `temperature_c`.
struct OpticDegrade {
  std::chrono::microseconds duration{0};
  int lane = 0;  // 1-4; 0 when only the temperature changes
  std::optional<double> rx_power_dbm;
  std::optional<double> temperature_c;
};

// The NIC's firmware reports a fatal error (mlx5's fw_fatal devlink health reporter); the driver
// recovers from it after `recovery` (mlx5_fw_fatal_reporter_recover), unless the last recovery
// was within the reporter's grace period (devlink_health_report aborts it: the device stays down).
struct FirmwareFatal {
  std::chrono::microseconds recovery{0};
};

// The firmware reports `count` errors that are not fatal (mlx5's fw reporter: health syndromes).
struct FirmwareError {
  uint32_t count = 1;
};
}  // namespace scenario_event

struct ScenarioEvent {
  using Body = std::variant<
      scenario_event::Congestion, scenario_event::PfcStorm, scenario_event::LinkFlap,
      scenario_event::DriverReload, scenario_event::ForeignTool, scenario_event::DcbxPeer,
      scenario_event::NetlinkErrors, scenario_event::AddressChange, scenario_event::VanishOnWrite,
      scenario_event::HoldReply, scenario_event::CounterClear, scenario_event::UnreadableFile,
      scenario_event::PodChange, scenario_event::VfChange, scenario_event::SwitchChange,
      scenario_event::PcieRetrain, scenario_event::PhyErrors, scenario_event::PcieErrors,
      scenario_event::OpticDegrade, scenario_event::FirmwareFatal, scenario_event::FirmwareError>;
  std::chrono::microseconds at{0};
  std::string port;  // netdev; empty = all ports (driver_reload only)
  Body body;
  SourcePlace place;         // the event itself ("events[2]")
  SourcePlace port_place;    // its port key
  SourcePlace at_place;      // its time
  std::string kind() const;  // "congestion", "pfc_storm", ... as written in the file
  // When the event's effect ends (at + duration/down_for), or `at` for instant events.
  std::chrono::microseconds end() const;
};

struct Scenario {
  std::string file;  // for error messages
  std::string name;
  std::string description;
  double clock_speed = 1.0;  // simulated seconds per real second
  // Scenario end; when absent, the end of the last event. Traffic keeps flowing afterwards.
  std::optional<std::chrono::microseconds> duration;
  std::vector<Flow> traffic;
  std::vector<SourcePlace> traffic_places;  // traffic[i]'s port key
  std::vector<ScenarioEvent> events;        // sorted by `at` (stable: file order at equal times)
  std::chrono::microseconds end() const;
};

// What a document is read for: the scenario a node starts with, or events played into a running
// node (`roce-sim inject`), which need no name.
enum class ScenarioUse { Run, Inject };

// A switch's keys (node file `switch:`, scenario event `switch`) and their reader.
const std::vector<std::string>& switch_keys();
SwitchPeerChange read_switch_change(const yaml_reader::YamlFile& reader,
                                    const yaml_reader::YamlFile::Map& map);

Scenario load_scenario_file(const std::filesystem::path& path);  // throws FileError
Scenario parse_scenario_yaml(const std::string& text, const std::string& file_name,
                             ScenarioUse use = ScenarioUse::Run);

}  // namespace roce_sim
