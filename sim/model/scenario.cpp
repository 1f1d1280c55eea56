// SPDX-License-Identifier: Apache-2.0
// The scenario runner: plays a parsed Scenario (scenario_file.cpp) against a Node on its
// simulated timeline.
#include "sim/model/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/model/yaml_reader.hpp"

namespace roce_sim {
namespace {

using std::chrono::microseconds;
namespace ev = scenario_event;

std::string seconds_text(microseconds t) {
  char text[32];
  std::snprintf(text, sizeof text, "t=%.3fs", static_cast<double>(t.count()) / 1e6);
  return text;
}

std::string op_text(SetOp op) {
  return op == SetOp::Any ? std::string("set request") : set_op_name(op) + " set";
}

std::string mask_text(uint8_t mask) {
  std::string text;
  for (int p = 0; p < 8; ++p) {
    if (mask & (1U << p)) text += (text.empty() ? "" : ",") + std::to_string(p);
  }
  return text.empty() ? "none" : text;
}

// ETS fields an event sets over the port's current ones: bandwidth (a TC with a share is ETS,
// one without strict) and the priority to TC map.
void merge_ets(ieee_ets& ets, const std::optional<std::array<uint8_t, 8>>& bandwidth,
               const std::optional<std::array<uint8_t, 8>>& prio_tc) {
  if (bandwidth) {
    for (size_t tc = 0; tc < 8; ++tc) {
      ets.tc_tx_bw[tc] = (*bandwidth)[tc];
      ets.tc_tsa[tc] = (*bandwidth)[tc] > 0 ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
    }
  }
  if (prio_tc) std::copy(prio_tc->begin(), prio_tc->end(), ets.prio_tc);
}

// A tool's trust setting: dscp adds the default 64-entry DSCP map, pcp removes every DSCP entry.
// The last failure, if any.
int set_trust(Port& port, bool dscp_trust) {
  int rc = 0;
  if (dscp_trust) {
    for (uint16_t dscp = 0; dscp < 64; ++dscp) {
      const dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, static_cast<uint8_t>(dscp >> 3), dscp};
      if (const int r = port.ieee_setapp(app); r != 0) rc = r;
    }
  } else {
    for (const dcb_app& app : port.app_table()) {
      if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP) continue;
      if (const int r = port.ieee_delapp(app); r != 0) rc = r;
    }
  }
  return rc;
}

int set_pfc(Port& port, uint8_t pfc_enable) {
  ieee_pfc pfc{};
  int rc = port.ieee_getpfc(pfc);
  pfc.pfc_en = pfc_enable;
  if (rc == 0) rc = port.ieee_setpfc(pfc);
  return rc;
}

int set_ets(Port& port, const std::optional<std::array<uint8_t, 8>>& bandwidth,
            const std::optional<std::array<uint8_t, 8>>& prio_tc) {
  ieee_ets ets{};
  int rc = port.ieee_getets(ets);
  merge_ets(ets, bandwidth, prio_tc);
  if (rc == 0) rc = port.ieee_setets(ets);
  return rc;
}

}  // namespace

ScenarioRunner::ScenarioRunner(Node& node, Scenario scenario)
    : node_(node), scenario_(std::move(scenario)), traffic_(node) {
  check(scenario_);
  for (const Flow& flow : scenario_.traffic) traffic_.add_flow(flow);
  schedule(0);
}

void ScenarioRunner::check(const Scenario& scenario) const {
  const auto fail = [&](const SourcePlace& place, const std::string& message) {
    throw FileError(scenario.file, place.line, place.column, place.field, message);
  };
  std::string known;
  for (Port* port : node_.ports()) known += (known.empty() ? "" : ", ") + port->netdev();
  // A port away during a driver reload is still the node's: its events are skipped (or bring
  // it back) when they fire.
  const auto check_port = [&](const std::string& netdev, const SourcePlace& place) -> Port* {
    Port* port = node_.find_any(netdev);
    if (port == nullptr)
      fail(place, "no port '" + netdev + "' in this node (it has " + known + ")");
    return port;
  };

  std::map<std::pair<std::string, Direction>, uint64_t> running, offered;
  for (const Flow& flow : traffic_.flows()) running[{flow.port, flow.direction}] += flow.rate_bps;
  offered = running;
  for (size_t i = 0; i < scenario.traffic.size(); ++i) {
    const Flow& flow = scenario.traffic[i];
    const Port* port = check_port(flow.port, scenario.traffic_places[i]);
    const uint64_t speed_bps = uint64_t{port->speed_mbps()} * 1'000'000;
    uint64_t& total = offered[{flow.port, flow.direction}];
    total += flow.rate_bps;
    if (total > speed_bps) {
      const uint64_t before = running[{flow.port, flow.direction}];
      fail(scenario.traffic_places[i],
           "flows on " + flow.port + " " + direction_name(flow.direction) + " add up to " +
               yaml_reader::format_rate(total) + ", more than the port's " +
               yaml_reader::format_rate(speed_bps) +
               (before > 0 ? " (" + yaml_reader::format_rate(before) + " of it already running)"
                           : std::string()));
    }
  }
  for (const ScenarioEvent& event : scenario.events) {
    if (!event.port.empty()) check_port(event.port, event.port_place);
  }
}

void ScenarioRunner::schedule(size_t first_event) {
  for (size_t i = first_event; i < scenario_.events.size(); ++i) {
    const ScenarioEvent& event = scenario_.events[i];
    actions_.push_back({event.at, actions_.size(), i, false});
    if (event.end() != event.at) actions_.push_back({event.end(), actions_.size(), i, true});
  }
  sort_pending();
}

void ScenarioRunner::sort_pending() {
  // At one instant, ends go before beginnings (a storm ending at 10s and another beginning at 10s
  // leave the second in force), then file order; an injection's after what was already due.
  std::sort(actions_.begin() + static_cast<std::ptrdiff_t>(next_action_), actions_.end(),
            [](const Action& a, const Action& b) {
              if (a.at != b.at) return a.at < b.at;
              if (a.is_end != b.is_end) return a.is_end;
              return a.sequence < b.sequence;
            });
  for (size_t i = 0; i < actions_.size(); ++i) actions_[i].sequence = i;
}

void ScenarioRunner::inject(Scenario extra) {
  check(extra);
  const size_t first = scenario_.events.size();
  for (ScenarioEvent& event : extra.events) {
    event.at += now_;
    scenario_.events.push_back(std::move(event));
  }
  for (size_t i = 0; i < extra.traffic.size(); ++i) {
    traffic_.add_flow(extra.traffic[i]);
    scenario_.traffic.push_back(extra.traffic[i]);
    scenario_.traffic_places.push_back(extra.traffic_places[i]);
  }
  schedule(first);
  const auto count = [](size_t n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  log_.push_back(seconds_text(now_) + " injected " + extra.file +
                 (extra.name.empty() ? std::string() : " (" + extra.name + ")") + ": " +
                 count(extra.events.size(), "event") + ", " + count(extra.traffic.size(), "flow"));
}

bool ScenarioRunner::finished() const {
  return next_action_ >= actions_.size() && now_ >= scenario_.end();
}

std::vector<std::string> ScenarioRunner::take_log() {
  for (auto& note : traffic_.take_notes()) log_.push_back(seconds_text(now_) + " " + note);
  return std::exchange(log_, {});
}

void ScenarioRunner::schedule_fired_vanishes() {
  bool added = false;
  for (const WriteTrigger& fired : node_.take_fired_vanishes()) {
    // The request that fired it came at now_: the server advances the runner before each one.
    log(fired.netdev, "vanished at a " + set_op_name(fired.fired_by) +
                          " set (driver unbound, the request fails with ENODEV) for " +
                          yaml_reader::format_duration(fired.duration));
    actions_.push_back({now_ + fired.duration, actions_.size(), fired.id, true});
    added = true;
  }
  if (added) sort_pending();
}

void ScenarioRunner::advance(microseconds simulated_dt) {
  schedule_fired_vanishes();
  const microseconds target = now_ + std::max(simulated_dt, microseconds{0});
  while (next_action_ < actions_.size() && actions_[next_action_].at <= target) {
    const Action action = actions_[next_action_];
    if (action.at > now_) {
      node_.advance(action.at - now_);
      traffic_.advance(action.at - now_);
      now_ = action.at;
      for (auto& note : traffic_.take_notes()) log_.push_back(seconds_text(now_) + " " + note);
    }
    ++next_action_;
    fire(action);
  }
  if (target > now_) {
    node_.advance(target - now_);
    traffic_.advance(target - now_);
    now_ = target;
  }
}

void ScenarioRunner::log(const std::string& netdev, const std::string& text) {
  log_.push_back(seconds_text(now_) + " " + (netdev.empty() ? std::string("all ports") : netdev) +
                 ": " + text);
}

std::vector<std::string> ScenarioRunner::targets(const ScenarioEvent& event) {
  if (!event.port.empty()) return {event.port};
  std::vector<std::string> all;
  for (Port* port : node_.ports()) all.push_back(port->netdev());
  return all;
}

void ScenarioRunner::fire(const Action& action) {
  const ScenarioEvent& event = scenario_.events[action.event];
  if (action.is_end) {
    finish(event);
  } else {
    begin(event);
  }
}

// The start of each kind of event, one operator() per kind; a nested class of the runner, so it
// reaches the node, the traffic and the log.
struct ScenarioRunner::EventStart {
  ScenarioRunner& runner;
  const std::string& netdev;
  Port* port;  // null when the event names all ports or the port is absent
  size_t event_index;

  void log(const std::string& text) const { runner.log(netdev, text); }

  void operator()(const ev::Congestion& b) const {
    runner.traffic_.start_congestion(netdev, b.priority,
                                     {b.ecn_mark_ratio, b.cnp_per_second, b.pause_ratio});
    char text[160];
    std::snprintf(text, sizeof text,
                  "congestion on priority %d begins (ECN marks %.0f%%, %g CNP/s, paused "
                  "%.0f%% of the time) for %s",
                  b.priority, b.ecn_mark_ratio * 100, b.cnp_per_second, b.pause_ratio * 100,
                  yaml_reader::format_duration(b.duration).c_str());
    log(text);
  }

  void operator()(const ev::PhyErrors& b) const {
    runner.traffic_.start_phy_errors(
        netdev, {b.symbol_errors_per_second, b.corrected_bits_per_second, b.lane});
    char text[160];
    std::snprintf(text, sizeof text,
                  "the PHY errs (%g uncorrectable symbol errors/s, %g corrected bits/s) for %s",
                  b.symbol_errors_per_second, b.corrected_bits_per_second,
                  yaml_reader::format_duration(b.duration).c_str());
    log(text);
  }

  // devlink_health_report: the count, the state, and no recovery within the grace period after
  // the last one (MLX5_REPORTER_FW_GRACEFUL_PERIOD, 20 minutes on mainline 6.1).
  void operator()(const ev::FirmwareFatal& b) const {
    auto reporter = port->health_reporters().find("fw_fatal");
    if (reporter == port->health_reporters().end()) {
      return log("firmware_fatal skipped: the port has no fw_fatal reporter");
    }
    Port::HealthReporter& fatal = reporter->second;
    ++fatal.errors;
    fatal.healthy = false;
    runner.node_.note_reporter_changed(netdev, "fw_fatal");
    constexpr auto kGracePeriod = std::chrono::minutes(20);
    const bool aborted = fatal.last_recovery && runner.now() - *fatal.last_recovery < kGracePeriod;
    runner.fatal_aborted_[event_index] = aborted;
    log(aborted
            ? "firmware fatal error; no recovery within 20 min of the last: the device stays down"
            : "firmware fatal error; the driver recovers in " +
                  yaml_reader::format_duration(b.recovery));
  }

  void operator()(const ev::FirmwareError& b) const {
    auto reporter = port->health_reporters().find("fw");
    if (reporter == port->health_reporters().end()) {
      return log("firmware_error skipped: the port has no fw reporter");
    }
    reporter->second.errors += b.count;
    reporter->second.healthy = false;  // a reporter without a recover op stays in error
    runner.node_.note_reporter_changed(netdev, "fw");
    log("firmware reports " + std::to_string(b.count) + " error(s) (fw health reporter)");
  }

  void operator()(const ev::PcieErrors& b) const {
    runner.traffic_.start_pcie_errors(netdev, b.recoveries_per_second);
    char text[160];
    std::snprintf(text, sizeof text,
                  "the PCIe link recovers from signal integrity errors (%g/s) for %s",
                  b.recoveries_per_second, yaml_reader::format_duration(b.duration).c_str());
    log(text);
  }

  void operator()(const ev::OpticDegrade& b) const {
    Transceiver* module = port->transceiver();
    if (module == nullptr) return log("optic_degrade skipped: the port has no module of its own");
    char text[160];
    int used = std::snprintf(text, sizeof text, "the optic degrades:");
    if (b.rx_power_dbm) {
      module->set_rx_power_mw(b.lane - 1, std::pow(10.0, *b.rx_power_dbm / 10));
      used += std::snprintf(text + used, sizeof text - static_cast<size_t>(used),
                            " lane %d receives %g dBm", b.lane, *b.rx_power_dbm);
    }
    if (b.temperature_c) {
      module->set_temperature_c(*b.temperature_c);
      used += std::snprintf(text + used, sizeof text - static_cast<size_t>(used), " module at %g C",
                            *b.temperature_c);
    }
    log(std::string(text) + " for " + yaml_reader::format_duration(b.duration));
  }

  void operator()(const ev::PfcStorm& b) const {
    runner.traffic_.start_storm(netdev, b.priority, b.direction, b.ignores_remediation);
    std::string note;
    ieee_pfc pfc{};
    if (b.ignores_remediation) {
      note = b.direction == Direction::Rx
                 ? " (ignores remediation: the NIC honours the pauses even "
                   "with PFC off)"
                 : " (ignores remediation: the NIC keeps pausing with PFC off "
                   "and past "
                   "stall prevention)";
    } else if (port != nullptr && port->ieee_getpfc(pfc) == 0 &&
               !((pfc.pfc_en >> b.priority) & 1U)) {
      note = b.direction == Direction::Rx
                 ? " (PFC is off on it: the NIC ignores the pauses)"
                 : " (PFC is off on it: the stalled receive side drops instead "
                   "of pausing)";
    }
    log("PFC storm (" + direction_name(b.direction) + ") on priority " +
        std::to_string(b.priority) + " begins for " + yaml_reader::format_duration(b.duration) +
        note);
  }

  void operator()(const ev::LinkFlap& b) const {
    port->set_peer_carrier(false);
    runner.node_.note_link_changed(netdev);
    log("link down (peer) for " + yaml_reader::format_duration(b.down_for));
  }

  void operator()(const ev::DriverReload& b) const {
    runner.node_.unbind(netdev);
    log("driver unbound for " + yaml_reader::format_duration(b.down_for));
  }

  void operator()(const ev::ForeignTool& b) const {
    const uint64_t toggles = port->link_toggles();
    const uint32_t mtu_before = port->mtu();
    std::vector<std::string> done;
    const auto record = [&](const std::string& what, int rc) {
      done.push_back(rc == 0 ? what : what + " failed (" + std::to_string(rc) + ")");
    };
    // Each dcbnl IEEE request is announced, failed or not (dcbnl_ieee_notify); setdcbx, the MTU
    // and ethtool's tunables and channels are not DCB notifications.
    const auto dcb_request = [&](const std::string& what, int rc, uint8_t cmd) {
      record(what, rc);
      runner.node_.note_dcb_changed(netdev, cmd);
    };
    if (b.dcbx_host) {
      const uint8_t mode = *b.dcbx_host ? (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) : 0;
      record(std::string("dcbx ") + (*b.dcbx_host ? "host" : "firmware"), port->setdcbx(mode));
    }
    if (b.trust_dscp) {
      dcb_request(std::string("trust ") + (*b.trust_dscp ? "dscp" : "pcp"),
                  set_trust(*port, *b.trust_dscp),
                  *b.trust_dscp ? DCB_CMD_IEEE_SET : DCB_CMD_IEEE_DEL);
    }
    for (const auto& [dscp, prio] : b.dscp_to_priority) {
      const dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, static_cast<uint8_t>(prio),
                        static_cast<uint16_t>(dscp)};
      dcb_request("dscp " + std::to_string(dscp) + "->" + std::to_string(prio),
                  port->ieee_setapp(app), DCB_CMD_IEEE_SET);
    }
    if (b.pfc_enable) {
      dcb_request("pfc " + mask_text(*b.pfc_enable), set_pfc(*port, *b.pfc_enable),
                  DCB_CMD_IEEE_SET);
    }
    if (b.ets_bandwidth || b.prio_tc) {
      dcb_request("ets", set_ets(*port, b.ets_bandwidth, b.prio_tc), DCB_CMD_IEEE_SET);
    }
    if (b.mtu) record("mtu " + std::to_string(*b.mtu), port->set_mtu(*b.mtu));
    if (b.stall_prevention_ms) {
      record("pfc-prevention-tout " + std::to_string(*b.stall_prevention_ms),
             port->set_pfc_prevention_tout(*b.stall_prevention_ms));
    }
    if (b.global_pause) {
      // ethtool -A: an ethtool set, announced on ethtool's own genetlink group, not on DCB's.
      record(std::string("pause rx ") + (b.global_pause->rx ? "on" : "off") + " tx " +
                 (b.global_pause->tx ? "on" : "off"),
             port->set_pauseparam(PauseParam{false, b.global_pause->rx, b.global_pause->tx}));
    }
    if (b.channels) {
      record("channels " + std::to_string(*b.channels), port->set_channels(*b.channels));
    }
    if (port->link_toggles() != toggles || port->mtu() != mtu_before) {
      runner.node_.note_link_changed(netdev);
    }
    std::string summary;
    for (const auto& d : done) summary += (summary.empty() ? "" : ", ") + d;
    log(b.tool + " changes " + summary);
  }

  void operator()(const ev::DcbxPeer& b) const {
    ieee_pfc pfc{};
    ieee_ets ets{};
    port->ieee_getpfc(pfc);
    port->ieee_getets(ets);
    if (b.pfc_enable) pfc.pfc_en = *b.pfc_enable;
    merge_ets(ets, b.ets_bandwidth, b.prio_tc);
    const uint64_t toggles = port->link_toggles();
    const bool changed = port->apply_peer_dcbx(b.ets_bandwidth || b.prio_tc ? &ets : nullptr,
                                               b.pfc_enable ? &pfc : nullptr);
    if (!changed) {
      log("DCBX peer TLVs change nothing (host DCBX mode, or already equal)");
      return;
    }
    // mlx5 announces nothing the firmware agent does: only a re-read (or the ethtool string
    // set, which follows the PFC mask) finds it.
    if (port->link_toggles() != toggles) runner.node_.note_link_changed(netdev);
    log("DCBX peer (willing firmware agent) applies" +
        (b.pfc_enable ? " PFC " + mask_text(*b.pfc_enable) : std::string()) +
        (b.ets_bandwidth || b.prio_tc ? " ETS" : ""));
  }

  void operator()(const ev::NetlinkErrors& b) const {
    runner.node_.inject_set_errors(netdev, b.err, b.count, b.op);
    const std::string what = b.op == SetOp::Any ? std::string("set") : set_op_name(b.op) + " set";
    log("the next " + std::to_string(b.count) + " " + what + " operation(s) fail with " +
        b.err_name);
  }

  void operator()(const ev::VanishOnWrite& b) const {
    runner.node_.arm_trigger({WriteTrigger::Kind::Vanish, netdev, b.op, b.down_for, event_index});
    log("vanishes at its next " + op_text(b.op) + " for " +
        yaml_reader::format_duration(b.down_for));
  }

  void operator()(const ev::HoldReply& b) const {
    runner.node_.arm_trigger({WriteTrigger::Kind::Hold, netdev, b.op, b.duration, event_index});
    log("the reply to its next " + op_text(b.op) + " is held for " +
        yaml_reader::format_duration(b.duration));
  }

  void operator()(const ev::CounterClear& b) const {
    std::string cleared, missing;
    for (const std::string& name : b.counters) {
      // Both cleared (no short circuit): a name can be an ethtool stat and an RDMA counter.
      const bool in_stats = port->clear_stat(name);
      const bool in_hw_counters = port->rdma().clear_hw_counter(name);
      const bool found = in_stats || in_hw_counters;
      (found ? cleared : missing) += (found ? cleared : missing).empty() ? name : ", " + name;
    }
    log("counters restart from 0 without a driver reload: " +
        (cleared.empty() ? std::string("none") : cleared) +
        (missing.empty() ? std::string() : " (not counters of the port now: " + missing + ")"));
  }

  void operator()(const ev::UnreadableFile& b) const {
    runner.node_.set_file_unreadable(b.file, true);
    log(b.file + " is unreadable (mode 0000) for " + yaml_reader::format_duration(b.duration));
  }

  void operator()(const ev::PodChange& b) const {
    const auto started = port->start_pods(b.start);
    const auto stopped = port->stop_pods(b.stop);
    std::string text = "pods:";
    if (b.start > 0) {
      text += " " + std::to_string(started.size()) + " started";
      if (started.size() < b.start) text += " (the pod subnet has no more addresses)";
    }
    if (b.stop > 0) text += " " + std::to_string(stopped.size()) + " stopped";
    log(text + ", " + std::to_string(port->rdma().pods().size()) + " running");
  }

  void operator()(const ev::SwitchChange& b) const {
    runner.node_.set_switch(netdev, b.change);
    const SwitchPeer* peer = runner.node_.switch_of(netdev);
    std::string text = "switch " + peer->system_name + " " + peer->port + " sends";
    if (b.change.lldp == SwitchLldp::Off) text = "switch stops sending LLDP";
    if (b.change.lldp == SwitchLldp::Shutdown) text = "switch sends a shutdown LLDPDU and stops";
    if (peer->pfc) text += " PFC " + mask_text(*peer->pfc);
    if (peer->max_frame_size) text += ", max frame " + std::to_string(*peer->max_frame_size);
    if (!peer->dscp.empty()) text += ", " + std::to_string(peer->dscp.size()) + " DSCP entries";
    log(text + (port->dcbx_host_mode() ? "" : " (to the NIC's firmware DCBX agent)"));
    // In firmware DCBX mode the NIC's willing agent takes the switch's PFC and ETS.
    if (!port->dcbx_host_mode() && (b.change.pfc || b.change.ets_bandwidth || b.change.prio_tc)) {
      (*this)(ev::DcbxPeer{b.change.pfc, b.change.ets_bandwidth, b.change.prio_tc});
    }
  }

  void operator()(const ev::PcieRetrain& b) const {
    const PortSpec& spec = port->spec();
    if (spec.is_vf() || spec.is_representor() || spec.is_stacked() || spec.is_sf()) {
      log("pcie_retrain skipped: " + netdev + " is no PF");
      return;
    }
    const auto text = [](const PcieLink& link) {
      return std::to_string(link.speed_tenths_gts / 10) + "." +
             std::to_string(link.speed_tenths_gts % 10) + " GT/s x" + std::to_string(link.width);
    };
    const PcieLink cap = port->pcie_capability();
    const PcieLink now{b.speed_tenths_gts.value_or(cap.speed_tenths_gts),
                       b.width.value_or(cap.width)};
    // Link training settles on what both ends take: never above the endpoint's capability.
    if (now.speed_tenths_gts > cap.speed_tenths_gts || now.width > cap.width) {
      log("pcie_retrain skipped: " + text(now) + " is more than the NIC takes (" + text(cap) + ")");
      return;
    }
    port->retrain_pcie(now);
    log("the PCIe link trains at " + text(now) + " (built for " + text(cap) + ")");
  }
  void operator()(const ev::VfChange& b) const {
    if (port->spec().is_vf() || port->spec().is_representor()) {
      log("vfs skipped: " + netdev + " is no PF");
      return;
    }
    const uint32_t now = runner.node_.set_numvfs(netdev, b.count);
    std::string text = "sriov_numvfs " + std::to_string(b.count) + ": " + std::to_string(now) +
                       (now == 1 ? " VF" : " VFs");
    if (now < b.count) {
      text += " (the node file gives it " + std::to_string(port->spec().sriov_numvfs) + " at most)";
    }
    log(text);
  }

  void operator()(const ev::AddressChange& b) const {
    for (const auto& cidr : b.add) port->rdma().add_address(cidr);
    for (const auto& cidr : b.remove) port->rdma().remove_address(cidr);
    std::string text = "address change:";
    for (const auto& cidr : b.add) text += " +" + cidr;
    for (const auto& cidr : b.remove) text += " -" + cidr;
    log(text);
  }
};

void ScenarioRunner::begin(const ScenarioEvent& event) {
  const std::string& netdev = event.port;
  // Ports can be absent during a driver reload; events on them then have nothing to act on.
  Port* port = netdev.empty() ? nullptr : node_.find(netdev);
  const bool needs_port = !std::holds_alternative<ev::DriverReload>(event.body) &&
                          !std::holds_alternative<ev::Congestion>(event.body) &&
                          !std::holds_alternative<ev::PfcStorm>(event.body) &&
                          !std::holds_alternative<ev::PhyErrors>(event.body) &&
                          !std::holds_alternative<ev::PcieErrors>(event.body) &&
                          !std::holds_alternative<ev::UnreadableFile>(event.body);
  const size_t event_index = static_cast<size_t>(&event - scenario_.events.data());
  if (needs_port && port == nullptr) {
    log(netdev, event.kind() + " skipped: the port is absent (driver unbound)");
    return;
  }
  std::visit(EventStart{*this, netdev, port, event_index}, event.body);
}

void ScenarioRunner::finish(const ScenarioEvent& event) {
  const std::string& netdev = event.port;
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ev::Congestion>) {
          traffic_.stop_congestion(netdev, b.priority);
          log(netdev, "congestion on priority " + std::to_string(b.priority) + " ends");
        } else if constexpr (std::is_same_v<T, ev::PhyErrors>) {
          traffic_.stop_phy_errors(netdev);
          log(netdev, "the PHY's errors end");
        } else if constexpr (std::is_same_v<T, ev::FirmwareFatal>) {
          const size_t index = static_cast<size_t>(&event - scenario_.events.data());
          Port* port = node_.find(netdev);
          auto reporter = port ? port->health_reporters().find("fw_fatal")
                               : std::map<std::string, Port::HealthReporter>::iterator{};
          if (port && reporter != port->health_reporters().end() && !fatal_aborted_[index]) {
            ++reporter->second.recoveries;
            reporter->second.healthy = true;
            reporter->second.last_recovery = now_;
            node_.note_reporter_changed(netdev, "fw_fatal");
            log(netdev, "the driver recovered from the firmware's fatal error");
          }
        } else if constexpr (std::is_same_v<T, ev::OpticDegrade>) {
          Port* port = node_.find(netdev);
          if (Transceiver* module = port ? port->transceiver() : nullptr) {
            module->restore();
            log(netdev, "the optic reads healthy again");
          }
        } else if constexpr (std::is_same_v<T, ev::PcieErrors>) {
          traffic_.stop_pcie_errors(netdev);
          log(netdev, "the PCIe link's recoveries end");
        } else if constexpr (std::is_same_v<T, ev::PfcStorm>) {
          traffic_.stop_storm(netdev, b.priority, b.direction);
          log(netdev, "PFC storm (" + direction_name(b.direction) + ") on priority " +
                          std::to_string(b.priority) + " ends");
        } else if constexpr (std::is_same_v<T, ev::LinkFlap>) {
          if (Port* port = node_.find(netdev)) {
            port->set_peer_carrier(true);
            node_.note_link_changed(netdev);
            log(netdev, "link up (peer)");
          } else {
            log(netdev, "link up (peer) while the port is absent");
          }
        } else if constexpr (std::is_same_v<T, ev::DriverReload> ||
                             std::is_same_v<T, ev::VanishOnWrite>) {
          node_.rebind(netdev);
          log(netdev, "driver bound again: firmware defaults");
        } else if constexpr (std::is_same_v<T, ev::UnreadableFile>) {
          node_.set_file_unreadable(b.file, false);
          log(netdev, b.file + " is readable again");
        }
      },
      event.body);
}

}  // namespace roce_sim