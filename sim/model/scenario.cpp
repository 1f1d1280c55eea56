// SPDX-License-Identifier: Apache-2.0
#include "sim/model/scenario.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/model/yaml_reader.hpp"

namespace roce_sim {
namespace {

using std::chrono::microseconds;
using yaml_reader::Field;
using yaml_reader::Reader;
namespace ev = scenario_event;

SourcePlace place_of(const Field& field) {
  return SourcePlace{field.mark.is_null() ? 0 : field.mark.line + 1,
                     field.mark.is_null() ? 0 : field.mark.column + 1, field.path};
}

const std::vector<std::pair<std::string, int>>& errno_names() {
  static const std::vector<std::pair<std::string, int>> names = {
      {"EBUSY", EBUSY},         {"EAGAIN", EAGAIN},         {"EIO", EIO},
      {"ENOMEM", ENOMEM},       {"EINVAL", EINVAL},         {"EPERM", EPERM},
      {"ETIMEDOUT", ETIMEDOUT}, {"EOPNOTSUPP", EOPNOTSUPP},
  };
  return names;
}

int priority(const Reader& reader, const Field& field) {
  return static_cast<int>(reader.integer(field, 0, 7));
}

// [3] or [3, 4]: a PFC enable mask.
uint8_t priority_mask(const Reader& reader, const Field& field) {
  uint8_t mask = 0;
  for (const auto& item : reader.list(field)) {
    const int p = priority(reader, item);
    if (mask & (1U << p)) reader.fail(item, "priority " + std::to_string(p) + " is listed twice");
    mask = static_cast<uint8_t>(mask | (1U << p));
  }
  return mask;
}

std::array<uint8_t, 8> eight_values(const Reader& reader, const Field& field, int64_t max) {
  const auto items = reader.list(field);
  if (items.size() != 8) {
    reader.fail(field, "needs 8 values (one per traffic class or priority), got " +
                           std::to_string(items.size()));
  }
  std::array<uint8_t, 8> values{};
  for (size_t i = 0; i < 8; ++i) values[i] = static_cast<uint8_t>(reader.integer(items[i], 0, max));
  return values;
}

void read_ets(const Reader& reader, const Field& field, std::optional<std::array<uint8_t, 8>>& bw,
              std::optional<std::array<uint8_t, 8>>& prio_tc) {
  const auto ets = reader.map(field, {"bandwidth", "prio_tc"});
  if (const auto f = ets.get("bandwidth")) {
    bw = eight_values(reader, *f, 100);
    int sum = 0;
    for (const auto b : *bw) sum += b;
    if (sum != 100)
      reader.fail(*f, "bandwidth shares add up to " + std::to_string(sum) + ", not 100");
  }
  if (const auto f = ets.get("prio_tc")) prio_tc = eight_values(reader, *f, 7);
}

microseconds positive_duration(const Reader& reader, const Field& field) {
  const microseconds d = reader.duration(field);
  if (d.count() <= 0) reader.fail(field, "must be longer than 0");
  return d;
}

SetOp set_op(const Reader& reader, const Field& field) {
  const std::string op = reader.choice(field, set_op_names());
  const auto& ops = set_op_names();
  return static_cast<SetOp>(std::find(ops.begin(), ops.end(), op) - ops.begin());
}

ScenarioEvent parse_event(const Reader& reader, const Field& field) {
  static const std::vector<std::string> kinds = {
      "congestion",      "pfc_storm",  "link_flap",      "driver_reload",
      "foreign_tool",    "dcbx_peer",  "netlink_errors", "address",
      "vanish_on_write", "hold_reply", "counter_clear",  "unreadable_file"};
  static const std::map<std::string, std::vector<std::string>> kind_keys = {
      {"congestion", {"priority", "duration", "ecn_mark_ratio", "cnp_rate", "pause_ratio"}},
      {"pfc_storm", {"priority", "direction", "duration", "ignores_remediation"}},
      {"link_flap", {"down_for"}},
      {"driver_reload", {"down_for"}},
      {"foreign_tool", {"tool", "set"}},
      {"dcbx_peer", {"pfc", "ets"}},
      {"netlink_errors", {"errno", "count", "op"}},
      {"address", {"add", "remove"}},
      {"vanish_on_write", {"op", "down_for"}},
      {"hold_reply", {"op", "duration"}},
      {"counter_clear", {"counters"}},
      {"unreadable_file", {"file", "duration"}},
  };
  // The kind decides which keys are allowed; read it first from a permissive look.
  if (!field.value.IsMap()) reader.fail(field, "expected a map (at, kind, port, ...)");
  std::string kind;
  {
    std::vector<std::string> all = {"at", "kind", "port"};
    for (const auto& [k, keys] : kind_keys) all.insert(all.end(), keys.begin(), keys.end());
    const auto loose = reader.map(field, all);
    kind = reader.choice(loose.require("kind"), kinds);
  }
  std::vector<std::string> known = {"at", "kind", "port"};
  const auto& extra = kind_keys.at(kind);
  known.insert(known.end(), extra.begin(), extra.end());
  const auto map = reader.map(field, known);

  ScenarioEvent event;
  event.place = place_of(field);
  const auto at_field = map.require("at");
  event.at = reader.duration(at_field);
  event.at_place = place_of(at_field);
  const auto port_field = map.require("port");
  event.port = reader.string(port_field);
  event.port_place = place_of(port_field);
  if (event.port == "all") {
    if (kind != "driver_reload") reader.fail(port_field, "'all' is only for driver_reload");
    event.port.clear();
  }

  if (kind == "congestion") {
    ev::Congestion c;
    c.priority = priority(reader, map.require("priority"));
    c.duration = positive_duration(reader, map.require("duration"));
    if (const auto f = map.get("ecn_mark_ratio")) c.ecn_mark_ratio = reader.number(*f, 0, 1);
    if (const auto f = map.get("cnp_rate")) c.cnp_per_second = reader.number(*f, 0, 1e9);
    if (const auto f = map.get("pause_ratio")) {
      c.pause_ratio = reader.number(*f, 0, 1);
      if (c.pause_ratio >= 1) {
        reader.fail(*f,
                    "must be below 1 (congestion still makes progress; a pause_ratio of 1 is a "
                    "pfc_storm)");
      }
    }
    event.body = c;
  } else if (kind == "pfc_storm") {
    ev::PfcStorm s;
    s.priority = priority(reader, map.require("priority"));
    s.direction = reader.choice(map.require("direction"), {"rx", "tx"}) == "rx" ? Direction::Rx
                                                                                : Direction::Tx;
    s.duration = positive_duration(reader, map.require("duration"));
    if (const auto f = map.get("ignores_remediation")) s.ignores_remediation = reader.boolean(*f);
    event.body = s;
  } else if (kind == "link_flap") {
    event.body = ev::LinkFlap{positive_duration(reader, map.require("down_for"))};
  } else if (kind == "driver_reload") {
    event.body = ev::DriverReload{positive_duration(reader, map.require("down_for"))};
  } else if (kind == "foreign_tool") {
    ev::ForeignTool t;
    if (const auto f = map.get("tool")) t.tool = reader.string(*f);
    const auto set_field = map.require("set");
    const auto set =
        reader.map(set_field, {"pfc", "trust", "dscp", "dcbx", "mtu", "stall_prevention", "ets"});
    if (const auto f = set.get("pfc")) t.pfc_enable = priority_mask(reader, *f);
    if (const auto f = set.get("trust"))
      t.trust_dscp = reader.choice(*f, {"pcp", "dscp"}) == "dscp";
    if (const auto f = set.get("dscp")) {
      const auto entries = reader.map(*f, {});  // keys are DSCP values; checked below
      for (auto it = f->value.begin(); it != f->value.end(); ++it) {
        const Field key{it->first, it->first.Mark(),
                        yaml_reader::child_path(f->path, it->first.Scalar())};
        const Field value{it->second, it->second.Mark(), key.path};
        t.dscp_to_priority[static_cast<int>(reader.integer(key, 0, 63))] = priority(reader, value);
      }
      (void)entries;
    }
    if (const auto f = set.get("dcbx"))
      t.dcbx_host = reader.choice(*f, {"firmware", "host"}) == "host";
    if (const auto f = set.get("mtu")) t.mtu = static_cast<uint32_t>(reader.integer(*f, 68, 65535));
    if (const auto f = set.get("stall_prevention")) {
      if (f->value.IsScalar() && f->value.Scalar() == "off") {
        t.stall_prevention_ms = 0;
      } else if (f->value.IsScalar() && f->value.Scalar() == "auto") {
        t.stall_prevention_ms = 0xffff;
      } else {
        const auto d = reader.duration(*f);
        if (d < std::chrono::milliseconds(80) || d > std::chrono::milliseconds(8000)) {
          reader.fail(*f, "must be off, auto or 80ms-8s (mlx5's range)");
        }
        t.stall_prevention_ms = static_cast<uint16_t>(d.count() / 1000);
      }
    }
    if (const auto f = set.get("ets")) read_ets(reader, *f, t.ets_bandwidth, t.prio_tc);
    if (set_field.value.size() == 0) reader.fail(set_field, "names nothing to change");
    event.body = t;
  } else if (kind == "dcbx_peer") {
    ev::DcbxPeer d;
    if (const auto f = map.get("pfc")) d.pfc_enable = priority_mask(reader, *f);
    if (const auto f = map.get("ets")) read_ets(reader, *f, d.ets_bandwidth, d.prio_tc);
    if (!d.pfc_enable && !d.ets_bandwidth && !d.prio_tc) {
      reader.fail(map.self(), "a dcbx_peer event needs pfc or ets");
    }
    event.body = d;
  } else if (kind == "vanish_on_write") {
    ev::VanishOnWrite v;
    if (const auto f = map.get("op")) v.op = set_op(reader, *f);
    v.down_for = positive_duration(reader, map.require("down_for"));
    event.body = v;
  } else if (kind == "hold_reply") {
    ev::HoldReply h;
    if (const auto f = map.get("op")) h.op = set_op(reader, *f);
    h.duration = positive_duration(reader, map.require("duration"));
    event.body = h;
  } else if (kind == "counter_clear") {
    ev::CounterClear c;
    const auto list_field = map.require("counters");
    for (const auto& item : reader.list(list_field)) c.counters.push_back(reader.string(item));
    if (c.counters.empty()) reader.fail(list_field, "names no counter");
    event.body = c;
  } else if (kind == "unreadable_file") {
    ev::UnreadableFile u;
    const auto file_field = map.require("file");
    u.file = reader.string(file_field);
    const std::filesystem::path path(u.file);
    const bool escapes = std::any_of(
        path.begin(), path.end(), [](const std::filesystem::path& part) { return part == ".."; });
    if (u.file.empty() || path.is_absolute() || escapes) {
      reader.fail(file_field, "must be a path inside the node's directory (like sys/class/...)");
    }
    u.duration = positive_duration(reader, map.require("duration"));
    event.body = u;
  } else if (kind == "netlink_errors") {
    ev::NetlinkErrors n;
    std::vector<std::string> names;
    for (const auto& [name, value] : errno_names()) names.push_back(name);
    n.err_name = reader.choice(map.require("errno"), names);
    for (const auto& [name, value] : errno_names()) {
      if (name == n.err_name) n.err = value;
    }
    if (const auto f = map.get("count")) n.count = static_cast<int>(reader.integer(*f, 1, 100000));
    if (const auto f = map.get("op")) n.op = set_op(reader, *f);
    event.body = n;
  } else {
    ev::AddressChange a;
    for (const char* key : {"add", "remove"}) {
      if (const auto f = map.get(key)) {
        for (const auto& item : reader.list(*f)) {
          std::string address;
          yaml_reader::parse_cidr(reader, item, address);
          (std::string(key) == "add" ? a.add : a.remove).push_back(item.value.Scalar());
        }
      }
    }
    if (a.add.empty() && a.remove.empty())
      reader.fail(map.self(), "an address event needs add or remove");
    event.body = a;
  }
  return event;
}

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

}  // namespace

std::string ScenarioEvent::kind() const {
  static const char* const names[] = {"congestion",     "pfc_storm",     "link_flap",
                                      "driver_reload",  "foreign_tool",  "dcbx_peer",
                                      "netlink_errors", "address",       "vanish_on_write",
                                      "hold_reply",     "counter_clear", "unreadable_file"};
  return names[body.index()];
}

microseconds ScenarioEvent::end() const {
  return std::visit(
      [&](const auto& b) -> microseconds {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ev::Congestion> || std::is_same_v<T, ev::PfcStorm>) {
          return at + b.duration;
        } else if constexpr (std::is_same_v<T, ev::LinkFlap> ||
                             std::is_same_v<T, ev::DriverReload>) {
          return at + b.down_for;
        } else if constexpr (std::is_same_v<T, ev::UnreadableFile>) {
          return at + b.duration;
        } else {
          return at;
        }
      },
      body);
}

microseconds Scenario::end() const {
  microseconds last{0};
  for (const auto& e : events) last = std::max(last, e.end());
  return duration ? std::max(*duration, last) : last;
}

Scenario parse_scenario_yaml(const std::string& text, const std::string& file_name,
                             ScenarioUse use) {
  const Reader reader(file_name);
  const Field root{reader.parse(text), YAML::Mark(), ""};
  const auto top =
      reader.map(root, {"name", "description", "clock", "duration", "traffic", "events"});
  Scenario scenario;
  scenario.file = file_name;
  if (use == ScenarioUse::Run || top.get("name"))
    scenario.name = reader.string(top.require("name"));
  if (const auto f = top.get("description")) scenario.description = reader.string(*f);
  if (const auto f = top.get("clock")) {
    const auto clock = reader.map(*f, {"speed"});
    if (const auto s = clock.get("speed")) scenario.clock_speed = reader.number(*s, 0.01, 10000);
  }
  if (const auto f = top.get("duration")) scenario.duration = positive_duration(reader, *f);

  if (const auto f = top.get("traffic")) {
    for (const auto& item : reader.list(*f)) {
      const auto flow_map =
          reader.map(item, {"port", "priority", "direction", "rate", "packet_size"});
      Flow flow;
      const auto port_field = flow_map.require("port");
      flow.port = reader.string(port_field);
      flow.priority = priority(reader, flow_map.require("priority"));
      flow.direction = reader.choice(flow_map.require("direction"), {"tx", "rx"}) == "tx"
                           ? Direction::Tx
                           : Direction::Rx;
      const auto rate_field = flow_map.require("rate");
      flow.rate_bps = reader.rate_bps(rate_field);
      if (flow.rate_bps == 0) reader.fail(rate_field, "must be above 0");
      if (const auto p = flow_map.get("packet_size")) {
        flow.packet_size = static_cast<uint32_t>(reader.integer(*p, 64, 9216));
      }
      scenario.traffic.push_back(flow);
      scenario.traffic_places.push_back(place_of(port_field));
    }
  }

  if (const auto f = top.get("events")) {
    const auto items = reader.list(*f);
    for (const auto& item : items) {
      ScenarioEvent event = parse_event(reader, item);
      if (scenario.duration && event.at > *scenario.duration) {
        throw FileError(file_name, event.at_place.line, event.at_place.column, event.at_place.field,
                        yaml_reader::format_duration(event.at) +
                            " is after the scenario's duration (" +
                            yaml_reader::format_duration(*scenario.duration) + ")");
      }
      scenario.events.push_back(std::move(event));
    }
    std::stable_sort(scenario.events.begin(), scenario.events.end(),
                     [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
  }
  return scenario;
}

Scenario load_scenario_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path.string(), 0, 0, "", "cannot open the scenario");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scenario_yaml(text.str(), path.string());
}

// ---------------------------------------------------------------------------------------------

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
      traffic_.advance(action.at - now_);
      now_ = action.at;
      for (auto& note : traffic_.take_notes()) log_.push_back(seconds_text(now_) + " " + note);
    }
    ++next_action_;
    fire(action);
  }
  if (target > now_) {
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

void ScenarioRunner::begin(const ScenarioEvent& event) {
  const std::string& netdev = event.port;
  // Ports can be absent during a driver reload; events on them then have nothing to act on.
  Port* port = netdev.empty() ? nullptr : node_.find(netdev);
  const bool needs_port = !std::holds_alternative<ev::DriverReload>(event.body) &&
                          !std::holds_alternative<ev::Congestion>(event.body) &&
                          !std::holds_alternative<ev::PfcStorm>(event.body) &&
                          !std::holds_alternative<ev::UnreadableFile>(event.body);
  const size_t event_index = static_cast<size_t>(&event - scenario_.events.data());
  if (needs_port && port == nullptr) {
    log(netdev, event.kind() + " skipped: the port is absent (driver unbound)");
    return;
  }

  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ev::Congestion>) {
          traffic_.start_congestion(netdev, b.priority,
                                    {b.ecn_mark_ratio, b.cnp_per_second, b.pause_ratio});
          char text[160];
          std::snprintf(text, sizeof text,
                        "congestion on priority %d begins (ECN marks %.0f%%, %g CNP/s, paused "
                        "%.0f%% of the time) for %s",
                        b.priority, b.ecn_mark_ratio * 100, b.cnp_per_second, b.pause_ratio * 100,
                        yaml_reader::format_duration(b.duration).c_str());
          log(netdev, text);
        } else if constexpr (std::is_same_v<T, ev::PfcStorm>) {
          traffic_.start_storm(netdev, b.priority, b.direction, b.ignores_remediation);
          std::string note;
          ieee_pfc pfc{};
          if (b.ignores_remediation) {
            note = b.direction == Direction::Rx
                       ? " (ignores remediation: the NIC honours the pauses even with PFC off)"
                       : " (ignores remediation: the NIC keeps pausing with PFC off and past "
                         "stall prevention)";
          } else if (port != nullptr && port->ieee_getpfc(pfc) == 0 &&
                     !((pfc.pfc_en >> b.priority) & 1U)) {
            note = b.direction == Direction::Rx
                       ? " (PFC is off on it: the NIC ignores the pauses)"
                       : " (PFC is off on it: the stalled receive side drops instead of pausing)";
          }
          log(netdev, "PFC storm (" + direction_name(b.direction) + ") on priority " +
                          std::to_string(b.priority) + " begins for " +
                          yaml_reader::format_duration(b.duration) + note);
        } else if constexpr (std::is_same_v<T, ev::LinkFlap>) {
          port->set_peer_carrier(false);
          node_.note_link_changed(netdev);
          log(netdev, "link down (peer) for " + yaml_reader::format_duration(b.down_for));
        } else if constexpr (std::is_same_v<T, ev::DriverReload>) {
          node_.unbind(netdev);
          log(netdev, "driver unbound for " + yaml_reader::format_duration(b.down_for));
        } else if constexpr (std::is_same_v<T, ev::ForeignTool>) {
          const uint64_t toggles = port->link_toggles();
          const uint32_t mtu_before = port->mtu();
          std::vector<std::string> done;
          const auto record = [&](const std::string& what, int rc) {
            done.push_back(rc == 0 ? what : what + " failed (" + std::to_string(rc) + ")");
          };
          if (b.dcbx_host) {
            const uint8_t mode = *b.dcbx_host ? (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) : 0;
            record(std::string("dcbx ") + (*b.dcbx_host ? "host" : "firmware"),
                   port->setdcbx(mode));
          }
          if (b.trust_dscp) {
            int rc = 0;
            if (*b.trust_dscp) {
              for (uint16_t dscp = 0; dscp < 64; ++dscp) {
                const dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, static_cast<uint8_t>(dscp >> 3), dscp};
                if (const int r = port->ieee_setapp(app); r != 0) rc = r;
              }
            } else {
              for (const dcb_app& app : port->app_table()) {
                if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP) continue;
                if (const int r = port->ieee_delapp(app); r != 0) rc = r;
              }
            }
            record(std::string("trust ") + (*b.trust_dscp ? "dscp" : "pcp"), rc);
          }
          for (const auto& [dscp, prio] : b.dscp_to_priority) {
            const dcb_app app{IEEE_8021QAZ_APP_SEL_DSCP, static_cast<uint8_t>(prio),
                              static_cast<uint16_t>(dscp)};
            record("dscp " + std::to_string(dscp) + "->" + std::to_string(prio),
                   port->ieee_setapp(app));
          }
          if (b.pfc_enable) {
            ieee_pfc pfc{};
            int rc = port->ieee_getpfc(pfc);
            pfc.pfc_en = *b.pfc_enable;
            if (rc == 0) rc = port->ieee_setpfc(pfc);
            record("pfc " + mask_text(*b.pfc_enable), rc);
          }
          if (b.ets_bandwidth || b.prio_tc) {
            ieee_ets ets{};
            int rc = port->ieee_getets(ets);
            if (b.ets_bandwidth) {
              for (size_t tc = 0; tc < 8; ++tc) {
                ets.tc_tx_bw[tc] = (*b.ets_bandwidth)[tc];
                ets.tc_tsa[tc] =
                    (*b.ets_bandwidth)[tc] > 0 ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
              }
            }
            if (b.prio_tc) std::copy(b.prio_tc->begin(), b.prio_tc->end(), ets.prio_tc);
            if (rc == 0) rc = port->ieee_setets(ets);
            record("ets", rc);
          }
          if (b.mtu) record("mtu " + std::to_string(*b.mtu), port->set_mtu(*b.mtu));
          if (b.stall_prevention_ms) {
            record("pfc-prevention-tout " + std::to_string(*b.stall_prevention_ms),
                   port->set_pfc_prevention_tout(*b.stall_prevention_ms));
          }
          node_.note_dcb_changed(netdev);
          if (port->link_toggles() != toggles || port->mtu() != mtu_before) {
            node_.note_link_changed(netdev);
          }
          std::string summary;
          for (const auto& d : done) summary += (summary.empty() ? "" : ", ") + d;
          log(netdev, b.tool + " changes " + summary);
        } else if constexpr (std::is_same_v<T, ev::DcbxPeer>) {
          ieee_pfc pfc{};
          ieee_ets ets{};
          port->ieee_getpfc(pfc);
          port->ieee_getets(ets);
          if (b.pfc_enable) pfc.pfc_en = *b.pfc_enable;
          if (b.ets_bandwidth) {
            for (size_t tc = 0; tc < 8; ++tc) {
              ets.tc_tx_bw[tc] = (*b.ets_bandwidth)[tc];
              ets.tc_tsa[tc] =
                  (*b.ets_bandwidth)[tc] > 0 ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
            }
          }
          if (b.prio_tc) std::copy(b.prio_tc->begin(), b.prio_tc->end(), ets.prio_tc);
          const uint64_t toggles = port->link_toggles();
          const bool changed = port->apply_peer_dcbx(b.ets_bandwidth || b.prio_tc ? &ets : nullptr,
                                                     b.pfc_enable ? &pfc : nullptr);
          if (changed) {
            node_.note_dcb_changed(netdev);
            if (port->link_toggles() != toggles) node_.note_link_changed(netdev);
            log(netdev, "DCBX peer (willing firmware agent) applies" +
                            (b.pfc_enable ? " PFC " + mask_text(*b.pfc_enable) : std::string()) +
                            (b.ets_bandwidth || b.prio_tc ? " ETS" : ""));
          } else {
            log(netdev, "DCBX peer TLVs change nothing (host DCBX mode, or already equal)");
          }
        } else if constexpr (std::is_same_v<T, ev::NetlinkErrors>) {
          node_.inject_set_errors(netdev, b.err, b.count, b.op);
          const std::string what =
              b.op == SetOp::Any ? std::string("set") : set_op_name(b.op) + " set";
          log(netdev, "the next " + std::to_string(b.count) + " " + what +
                          " operation(s) fail with " + b.err_name);
        } else if constexpr (std::is_same_v<T, ev::VanishOnWrite>) {
          node_.arm_trigger({WriteTrigger::Kind::Vanish, netdev, b.op, b.down_for, event_index});
          log(netdev, "vanishes at its next " + op_text(b.op) + " for " +
                          yaml_reader::format_duration(b.down_for));
        } else if constexpr (std::is_same_v<T, ev::HoldReply>) {
          node_.arm_trigger({WriteTrigger::Kind::Hold, netdev, b.op, b.duration, event_index});
          log(netdev, "the reply to its next " + op_text(b.op) + " is held for " +
                          yaml_reader::format_duration(b.duration));
        } else if constexpr (std::is_same_v<T, ev::CounterClear>) {
          std::string cleared, missing;
          for (const std::string& name : b.counters) {
            // Both cleared (no short circuit): a name can be an ethtool stat and an RDMA counter.
            const bool in_stats = port->clear_stat(name);
            const bool in_hw_counters = port->rdma().clear_hw_counter(name);
            const bool found = in_stats || in_hw_counters;
            (found ? cleared : missing) += (found ? cleared : missing).empty() ? name : ", " + name;
          }
          log(netdev, "counters restart from 0 without a driver reload: " +
                          (cleared.empty() ? std::string("none") : cleared) +
                          (missing.empty() ? std::string()
                                           : " (not counters of the port now: " + missing + ")"));
        } else if constexpr (std::is_same_v<T, ev::UnreadableFile>) {
          node_.set_file_unreadable(b.file, true);
          log(netdev, b.file + " is unreadable (mode 0000) for " +
                          yaml_reader::format_duration(b.duration));
        } else {
          for (const auto& cidr : b.add) port->rdma().add_address(cidr);
          for (const auto& cidr : b.remove) port->rdma().remove_address(cidr);
          std::string text = "address change:";
          for (const auto& cidr : b.add) text += " +" + cidr;
          for (const auto& cidr : b.remove) text += " -" + cidr;
          log(netdev, text);
        }
      },
      event.body);
}

void ScenarioRunner::finish(const ScenarioEvent& event) {
  const std::string& netdev = event.port;
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ev::Congestion>) {
          traffic_.stop_congestion(netdev, b.priority);
          log(netdev, "congestion on priority " + std::to_string(b.priority) + " ends");
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
