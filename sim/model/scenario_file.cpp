// SPDX-License-Identifier: Apache-2.0
// Scenario documents (docs/sim-formats.md) read into a typed Scenario: every field checked, and
// a FileError naming the line, column and field of the first one that is wrong.
#include "sim/model/scenario_file.hpp"

#include <algorithm>
#include <cerrno>
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

}  // namespace roce_sim
