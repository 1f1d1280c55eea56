// SPDX-License-Identifier: Apache-2.0
// Scenario documents (docs/sim-formats.md) read into a typed Scenario: every field checked, and
// a FileError naming the line, column and field of the first one that is wrong.
#include "sim/model/scenario_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/model/yaml_reader.hpp"

namespace roce_sim {
namespace {

using std::chrono::microseconds;
using yaml_reader::Field;
using yaml_reader::YamlFile;
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

int priority(const YamlFile& reader, const Field& field) {
  return static_cast<int>(reader.integer(field, 0, 7));
}

// [3] or [3, 4]: a PFC enable mask.
uint8_t priority_mask(const YamlFile& reader, const Field& field) {
  uint8_t mask = 0;
  for (const auto& item : reader.list(field)) {
    const int p = priority(reader, item);
    if (mask & (1U << p)) reader.fail(item, "priority " + std::to_string(p) + " is listed twice");
    mask = static_cast<uint8_t>(mask | (1U << p));
  }
  return mask;
}

std::array<uint8_t, 8> eight_values(const YamlFile& reader, const Field& field, int64_t max) {
  const auto items = reader.list(field);
  if (items.size() != 8) {
    reader.fail(field, "needs 8 values (one per traffic class or priority), got " +
                           std::to_string(items.size()));
  }
  std::array<uint8_t, 8> values{};
  for (size_t i = 0; i < 8; ++i) values[i] = static_cast<uint8_t>(reader.integer(items[i], 0, max));
  return values;
}

void read_ets(const YamlFile& reader, const Field& field, std::optional<std::array<uint8_t, 8>>& bw,
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

microseconds positive_duration(const YamlFile& reader, const Field& field) {
  const microseconds d = reader.duration(field);
  if (d.count() <= 0) reader.fail(field, "must be longer than 0");
  return d;
}

SetOp set_op(const YamlFile& reader, const Field& field) {
  const std::string op = reader.choice(field, set_op_names());
  const auto& ops = set_op_names();
  return static_cast<SetOp>(std::find(ops.begin(), ops.end(), op) - ops.begin());
}

using Map = YamlFile::Map;
using Body = ScenarioEvent::Body;

Body parse_congestion(const YamlFile& reader, const Map& map) {
  ev::Congestion c;
  c.priority = priority(reader, map.require("priority"));
  c.duration = positive_duration(reader, map.require("duration"));
  if (const auto f = map.get("ecn_mark_ratio")) c.ecn_mark_ratio = reader.number(*f, 0, 1);
  if (const auto f = map.get("cnp_rate")) c.cnp_per_second = reader.number(*f, 0, 1e9);
  if (const auto f = map.get("pause_ratio")) {
    c.pause_ratio = reader.number(*f, 0, 1);
    if (c.pause_ratio >= 1) {
      reader.fail(*f,
                  "must be below 1 (congestion still makes progress; a "
                  "pause_ratio of 1 is a "
                  "pfc_storm)");
    }
  }
  return c;
}

Body parse_pfc_storm(const YamlFile& reader, const Map& map) {
  ev::PfcStorm s;
  s.priority = priority(reader, map.require("priority"));
  s.direction =
      reader.choice(map.require("direction"), {"rx", "tx"}) == "rx" ? Direction::Rx : Direction::Tx;
  s.duration = positive_duration(reader, map.require("duration"));
  if (const auto f = map.get("ignores_remediation")) s.ignores_remediation = reader.boolean(*f);
  return s;
}

Body parse_link_flap(const YamlFile& reader, const Map& map) {
  return ev::LinkFlap{positive_duration(reader, map.require("down_for"))};
}

Body parse_driver_reload(const YamlFile& reader, const Map& map) {
  return ev::DriverReload{positive_duration(reader, map.require("down_for"))};
}

// foreign_tool's set.dscp: keys are DSCP values, values priorities.
void read_dscp_map(const YamlFile& reader, const Field& field,
                   std::map<int, int>& dscp_to_priority) {
  const auto entries = reader.map(field, {});  // keys are DSCP values; checked below
  for (auto it = field.value.begin(); it != field.value.end(); ++it) {
    const Field key{it->first, it->first.Mark(),
                    yaml_reader::child_path(field.path, it->first.Scalar())};
    const Field value{it->second, it->second.Mark(), key.path};
    dscp_to_priority[static_cast<int>(reader.integer(key, 0, 63))] = priority(reader, value);
  }
  (void)entries;
}

// foreign_tool's set.stall_prevention: off, auto, or a timeout in mlx5's range.
uint16_t stall_prevention_ms(const YamlFile& reader, const Field& field) {
  if (field.value.IsScalar() && field.value.Scalar() == "off") return 0;
  if (field.value.IsScalar() && field.value.Scalar() == "auto") return 0xffff;
  const auto d = reader.duration(field);
  if (d < std::chrono::milliseconds(80) || d > std::chrono::milliseconds(8000)) {
    reader.fail(field, "must be off, auto or 80ms-8s (mlx5's range)");
  }
  return static_cast<uint16_t>(d.count() / 1000);
}

Body parse_foreign_tool(const YamlFile& reader, const Map& map) {
  ev::ForeignTool t;
  if (const auto f = map.get("tool")) t.tool = reader.string(*f);
  const auto set_field = map.require("set");
  const auto set = reader.map(set_field, {"pfc", "trust", "dscp", "dcbx", "mtu", "stall_prevention",
                                          "global_pause", "ets", "channels"});
  if (const auto f = set.get("pfc")) t.pfc_enable = priority_mask(reader, *f);
  if (const auto f = set.get("trust")) t.trust_dscp = reader.choice(*f, {"pcp", "dscp"}) == "dscp";
  if (const auto f = set.get("dscp")) read_dscp_map(reader, *f, t.dscp_to_priority);
  if (const auto f = set.get("dcbx"))
    t.dcbx_host = reader.choice(*f, {"firmware", "host"}) == "host";
  if (const auto f = set.get("mtu")) t.mtu = static_cast<uint32_t>(reader.integer(*f, 68, 65535));
  if (const auto f = set.get("stall_prevention"))
    t.stall_prevention_ms = stall_prevention_ms(reader, *f);
  if (const auto f = set.get("global_pause")) {
    const std::string on = reader.choice(*f, {"on", "off", "rx", "tx"});
    t.global_pause = GlobalPause{on == "on" || on == "rx", on == "on" || on == "tx"};
  }
  if (const auto f = set.get("ets")) read_ets(reader, *f, t.ets_bandwidth, t.prio_tc);
  if (const auto f = set.get("channels"))
    t.channels = static_cast<uint32_t>(reader.integer(*f, 1, kMaxChannels));
  if (set_field.value.size() == 0) reader.fail(set_field, "names nothing to change");
  return t;
}

Body parse_dcbx_peer(const YamlFile& reader, const Map& map) {
  ev::DcbxPeer d;
  if (const auto f = map.get("pfc")) d.pfc_enable = priority_mask(reader, *f);
  if (const auto f = map.get("ets")) read_ets(reader, *f, d.ets_bandwidth, d.prio_tc);
  if (!d.pfc_enable && !d.ets_bandwidth && !d.prio_tc) {
    reader.fail(map.self(), "a dcbx_peer event needs pfc or ets");
  }
  return d;
}

}  // namespace

const std::vector<std::string>& switch_keys() {
  static const std::vector<std::string> keys = {
      "system_name", "port_id",        "pfc",  "willing", "dscp",     "udp",
      "ets",         "max_frame_size", "dcbx", "ttl",     "interval", "lldp"};
  return keys;
}

SwitchPeerChange read_switch_change(const YamlFile& reader, const YamlFile::Map& map) {
  SwitchPeerChange c;
  if (const auto f = map.get("system_name")) c.system_name = reader.string(*f);
  if (const auto f = map.get("port_id")) c.port = reader.string(*f);
  if (const auto f = map.get("pfc")) c.pfc = priority_mask(reader, *f);
  if (const auto f = map.get("willing")) c.willing = reader.boolean(*f);
  if (const auto f = map.get("dscp")) {
    std::map<int, int> dscp;
    read_dscp_map(reader, *f, dscp);
    c.dscp.emplace();
    for (const auto& [value, prio] : dscp) {
      c.dscp->emplace_back(static_cast<uint8_t>(value), static_cast<uint8_t>(prio));
    }
  }
  if (const auto f = map.get("udp")) {        // UDP port -> priority, APP selector 3
    const auto entries = reader.map(*f, {});  // keys are port numbers; checked below
    (void)entries;
    c.udp_ports.emplace();
    for (auto it = f->value.begin(); it != f->value.end(); ++it) {
      const Field key{it->first, it->first.Mark(),
                      yaml_reader::child_path(f->path, it->first.Scalar())};
      const Field value{it->second, it->second.Mark(), key.path};
      c.udp_ports->emplace_back(static_cast<uint16_t>(reader.integer(key, 1, 65535)),
                                static_cast<uint8_t>(priority(reader, value)));
    }
  }
  if (const auto f = map.get("ets")) read_ets(reader, *f, c.ets_bandwidth, c.prio_tc);
  if (const auto f = map.get("max_frame_size")) {
    c.max_frame_size = static_cast<uint16_t>(reader.integer(*f, 64, 65535));
  }
  if (const auto f = map.get("dcbx")) {
    const std::string mode = reader.choice(*f, {"ieee", "cee", "none"});
    c.dcbx = mode == "ieee" ? SwitchDcbx::Ieee : mode == "cee" ? SwitchDcbx::Cee : SwitchDcbx::None;
  }
  if (const auto f = map.get("ttl")) c.ttl = static_cast<uint16_t>(reader.integer(*f, 0, 65535));
  if (const auto f = map.get("interval")) {
    const microseconds d = reader.duration(*f);
    if (d < std::chrono::seconds(1) || d > std::chrono::hours(1)) {
      reader.fail(*f, "must be 1s to 1h (802.1AB msgTxInterval is 1 to 3600 seconds)");
    }
    c.interval_s = static_cast<uint32_t>(d.count() / 1'000'000);
  }
  if (const auto f = map.get("lldp")) {
    const std::string state = reader.choice(*f, {"on", "off", "shutdown"});
    c.lldp = state == "on"    ? SwitchLldp::On
             : state == "off" ? SwitchLldp::Off
                              : SwitchLldp::Shutdown;
  }
  return c;
}

namespace {

Body parse_switch(const YamlFile& reader, const Map& map) {
  if (map.self().value.size() <= 3) {  // at, kind, port
    reader.fail(
        map.self(), "a switch event needs something to change (" + [] {
          std::string keys;
          for (const auto& k : switch_keys()) keys += (keys.empty() ? "" : ", ") + k;
          return keys;
        }() + ")");
  }
  return ev::SwitchChange{read_switch_change(reader, map)};
}

Body parse_netlink_errors(const YamlFile& reader, const Map& map) {
  ev::NetlinkErrors n;
  std::vector<std::string> names;
  for (const auto& [name, value] : errno_names()) names.push_back(name);
  n.err_name = reader.choice(map.require("errno"), names);
  for (const auto& [name, value] : errno_names()) {
    if (name == n.err_name) n.err = value;
  }
  if (const auto f = map.get("count")) n.count = static_cast<int>(reader.integer(*f, 1, 100000));
  if (const auto f = map.get("op")) n.op = set_op(reader, *f);
  return n;
}

Body parse_address(const YamlFile& reader, const Map& map) {
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
  return a;
}

Body parse_pods(const YamlFile& reader, const Map& map) {
  ev::PodChange p;
  if (const auto f = map.get("start")) p.start = static_cast<uint32_t>(reader.integer(*f, 1, 1000));
  if (const auto f = map.get("stop")) p.stop = static_cast<uint32_t>(reader.integer(*f, 1, 1000));
  if (p.start == 0 && p.stop == 0) reader.fail(map.self(), "a pods event needs start or stop");
  return p;
}

Body parse_vfs(const YamlFile& reader, const Map& map) {
  ev::VfChange v;
  v.count = static_cast<uint32_t>(reader.integer(map.require("count"), 0, kMaxVfsPerPort));
  return v;
}

// `speed: 16.0` (GT/s, a PCIe generation's rate) and `width: 8` (lanes), as lspci names them.
Body parse_pcie_retrain(const YamlFile& reader, const Map& map) {
  ev::PcieRetrain r;
  if (const auto f = map.get("speed")) {
    const double gts = reader.number(*f, 2.5, 64);
    const auto tenths = static_cast<uint32_t>(std::lround(gts * 10));
    if (tenths != 25 && tenths != 50 && tenths != 80 && tenths != 160 && tenths != 320 &&
        tenths != 640) {
      reader.fail(*f, "is no PCIe rate: 2.5, 5.0, 8.0, 16.0, 32.0 or 64.0 (GT/s)");
    }
    r.speed_tenths_gts = tenths;
  }
  if (const auto f = map.get("width")) {
    const auto lanes = static_cast<uint32_t>(reader.integer(*f, 1, 32));
    if ((lanes & (lanes - 1)) != 0) reader.fail(*f, "is no PCIe link width: 1, 2, 4, 8, 16 or 32");
    r.width = lanes;
  }
  return r;
}

// Rates per second; a lane of 100G PAM4 carries 1.06e11 bits a second, so any rate a PHY can
// have fits below the bound.
Body parse_phy_errors(const YamlFile& reader, const Map& map) {
  ev::PhyErrors p;
  p.duration = positive_duration(reader, map.require("duration"));
  if (const auto f = map.get("symbol_error_rate"))
    p.symbol_errors_per_second = reader.number(*f, 0, 1e12);
  if (const auto f = map.get("corrected_bit_rate")) {
    p.corrected_bits_per_second = reader.number(*f, 0, 1e12);
  }
  if (p.symbol_errors_per_second == 0 && p.corrected_bits_per_second == 0) {
    reader.fail(map.self(), "a phy_errors event needs symbol_error_rate or corrected_bit_rate");
  }
  if (const auto f = map.get("lane")) p.lane = static_cast<int>(reader.number(*f, 0, 3));
  return p;
}

// A link recovers in microseconds; a thousand a second is already a link that barely works.
Body parse_pcie_errors(const YamlFile& reader, const Map& map) {
  ev::PcieErrors p;
  p.duration = positive_duration(reader, map.require("duration"));
  p.recoveries_per_second = reader.number(map.require("recovery_rate"), 0.001, 1e6);
  return p;
}

// Receive power from no light at all (-40 dBm) to more than any module takes (+10 dBm).
Body parse_optic_degrade(const YamlFile& reader, const Map& map) {
  ev::OpticDegrade o;
  o.duration = positive_duration(reader, map.require("duration"));
  if (const auto f = map.get("rx_power_dbm")) {
    o.rx_power_dbm = reader.number(*f, -40, 10);
    o.lane = static_cast<int>(reader.integer(map.require("lane"), 1, 4));
  }
  if (const auto f = map.get("temperature_c")) o.temperature_c = reader.number(*f, -40, 125);
  if (!o.rx_power_dbm && !o.temperature_c) {
    reader.fail(map.self(),
                "an optic_degrade event needs rx_power_dbm (with lane) or temperature_c");
  }
  return o;
}

Body parse_firmware_fatal(const YamlFile& reader, const Map& map) {
  ev::FirmwareFatal f;
  f.recovery = positive_duration(reader, map.require("recovery"));
  return f;
}

Body parse_firmware_error(const YamlFile& reader, const Map& map) {
  ev::FirmwareError f;
  if (const auto c = map.get("count"))
    f.count = static_cast<uint32_t>(reader.integer(*c, 1, 1000000));
  return f;
}

Body parse_vanish_on_write(const YamlFile& reader, const Map& map) {
  ev::VanishOnWrite v;
  if (const auto f = map.get("op")) v.op = set_op(reader, *f);
  v.down_for = positive_duration(reader, map.require("down_for"));
  return v;
}

Body parse_hold_reply(const YamlFile& reader, const Map& map) {
  ev::HoldReply h;
  if (const auto f = map.get("op")) h.op = set_op(reader, *f);
  h.duration = positive_duration(reader, map.require("duration"));
  return h;
}

Body parse_counter_clear(const YamlFile& reader, const Map& map) {
  ev::CounterClear c;
  const auto list_field = map.require("counters");
  for (const auto& item : reader.list(list_field)) c.counters.push_back(reader.string(item));
  if (c.counters.empty()) reader.fail(list_field, "names no counter");
  return c;
}

Body parse_unreadable_file(const YamlFile& reader, const Map& map) {
  ev::UnreadableFile u;
  const auto file_field = map.require("file");
  u.file = reader.string(file_field);
  const std::filesystem::path path(u.file);
  const bool escapes = std::any_of(path.begin(), path.end(),
                                   [](const std::filesystem::path& part) { return part == ".."; });
  if (u.file.empty() || path.is_absolute() || escapes) {
    reader.fail(file_field, "must be a path inside the node's directory (like sys/class/...)");
  }
  u.duration = positive_duration(reader, map.require("duration"));
  return u;
}

// One event kind: its name in the file, the keys it takes besides at/kind/port, its parser.
struct EventKind {
  std::string name;
  std::vector<std::string> keys;
  Body (*parse)(const YamlFile&, const Map&);
};

// In the order the kind choice lists them (and "did you mean" weighs them).
const std::vector<EventKind>& event_kinds() {
  static const std::vector<EventKind> kinds = {
      {"congestion",
       {"priority", "duration", "ecn_mark_ratio", "cnp_rate", "pause_ratio"},
       parse_congestion},
      {"pfc_storm", {"priority", "direction", "duration", "ignores_remediation"}, parse_pfc_storm},
      {"link_flap", {"down_for"}, parse_link_flap},
      {"driver_reload", {"down_for"}, parse_driver_reload},
      {"foreign_tool", {"tool", "set"}, parse_foreign_tool},
      {"dcbx_peer", {"pfc", "ets"}, parse_dcbx_peer},
      {"switch", switch_keys(), parse_switch},
      {"netlink_errors", {"errno", "count", "op"}, parse_netlink_errors},
      {"address", {"add", "remove"}, parse_address},
      {"vanish_on_write", {"op", "down_for"}, parse_vanish_on_write},
      {"hold_reply", {"op", "duration"}, parse_hold_reply},
      {"counter_clear", {"counters"}, parse_counter_clear},
      {"unreadable_file", {"file", "duration"}, parse_unreadable_file},
      {"pods", {"start", "stop"}, parse_pods},
      {"vfs", {"count"}, parse_vfs},
      {"pcie_retrain", {"speed", "width"}, parse_pcie_retrain},
      {"phy_errors",
       {"duration", "symbol_error_rate", "corrected_bit_rate", "lane"},
       parse_phy_errors},
      {"pcie_errors", {"duration", "recovery_rate"}, parse_pcie_errors},
      {"optic_degrade", {"duration", "lane", "rx_power_dbm", "temperature_c"}, parse_optic_degrade},
      {"firmware_fatal", {"recovery"}, parse_firmware_fatal},
      {"firmware_error", {"count"}, parse_firmware_error},
  };
  return kinds;
}

// The kind decides which keys are allowed; it is read first from a permissive look, which allows
// every kind's keys (in kind name order, as "did you mean" weighs them).
const EventKind& read_kind(const YamlFile& reader, const Field& field) {
  if (!field.value.IsMap()) reader.fail(field, "expected a map (at, kind, port, ...)");
  std::map<std::string, const EventKind*> by_name;
  std::vector<std::string> names;
  for (const EventKind& k : event_kinds()) {
    by_name[k.name] = &k;
    names.push_back(k.name);
  }
  std::vector<std::string> all = {"at", "kind", "port"};
  for (const auto& [name, k] : by_name) all.insert(all.end(), k->keys.begin(), k->keys.end());
  const auto loose = reader.map(field, all);
  return *by_name.at(reader.choice(loose.require("kind"), names));
}

ScenarioEvent parse_event(const YamlFile& reader, const Field& field) {
  const EventKind& kind = read_kind(reader, field);
  std::vector<std::string> known = {"at", "kind", "port"};
  known.insert(known.end(), kind.keys.begin(), kind.keys.end());
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
    if (kind.name != "driver_reload") reader.fail(port_field, "'all' is only for driver_reload");
    event.port.clear();
  }
  event.body = kind.parse(reader, map);
  return event;
}

}  // namespace

std::string ScenarioEvent::kind() const {
  static const char* const names[] = {"congestion",
                                      "pfc_storm",
                                      "link_flap",
                                      "driver_reload",
                                      "foreign_tool",
                                      "dcbx_peer",
                                      "netlink_errors",
                                      "address",
                                      "vanish_on_write",
                                      "hold_reply",
                                      "counter_clear",
                                      "unreadable_file",
                                      "pods",
                                      "vfs",
                                      "switch",
                                      "pcie_retrain",
                                      "phy_errors",
                                      "pcie_errors",
                                      "optic_degrade",
                                      "firmware_fatal",
                                      "firmware_error"};
  return names[body.index()];
}

microseconds ScenarioEvent::end() const {
  return std::visit(
      [&](const auto& b) -> microseconds {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, ev::Congestion> || std::is_same_v<T, ev::PfcStorm> ||
                      std::is_same_v<T, ev::PhyErrors> || std::is_same_v<T, ev::PcieErrors> ||
                      std::is_same_v<T, ev::OpticDegrade>) {
          return at + b.duration;
        } else if constexpr (std::is_same_v<T, ev::LinkFlap> ||
                             std::is_same_v<T, ev::DriverReload>) {
          return at + b.down_for;
        } else if constexpr (std::is_same_v<T, ev::UnreadableFile>) {
          return at + b.duration;
        } else if constexpr (std::is_same_v<T, ev::FirmwareFatal>) {
          return at + b.recovery;
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
  const YamlFile reader(file_name);
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
