// SPDX-License-Identifier: Apache-2.0
// Reads the `probe:` section over the defaults, then reports ProbeSettings::validate()'s problems
// at the key (or the peer) they are about.
#include "daemon/config/read_probe.hpp"

#include <charconv>
#include <map>
#include <string>

#include "daemon/config/read_daemon.hpp"

namespace roced::config::detail {

namespace {

const std::vector<std::string> kProbeKeys = {"enabled",    "peers",      "rate",        "budget",
                                             "loss_ratio", "rtt_p99",    "window",      "timeout",
                                             "q_key",      "self_probe", "service_port"};
const std::vector<std::string> kPeerKeys = {"address", "group"};

// "500us", or any duration parse_duration takes ("1ms", "2s").
std::optional<std::chrono::microseconds> parse_micros(const std::string& text) {
  if (text.size() > 2 && text.ends_with("us")) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size() - 2, value);
    if (error != std::errc() || end != text.data() + text.size() - 2 || value < 0) return {};
    return std::chrono::microseconds(value);
  }
  if (const auto value = parse_duration(text)) return *value;
  return {};
}

std::optional<double> real(Reader& reader, const Entry& e, const std::string& field) {
  if (e.value.IsScalar()) {
    const std::string& text = e.value.Scalar();
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size()) return value;
  }
  reader.diagnostics().error(e.value_at, field, "expected a number (10, 0.5)");
  return {};
}

bool read_duration(Reader& reader, const Entry& e, const std::string& field,
                   probe::ProbeSettings& settings) {
  const bool scalar = e.value.IsScalar() && !e.value.Scalar().empty();
  if (e.key == "rtt_p99") {
    if (const auto value = scalar ? parse_micros(e.value.Scalar()) : std::nullopt) {
      settings.rtt_p99 = *value;
      return true;
    }
  } else if (const auto value = scalar ? parse_duration(e.value.Scalar()) : std::nullopt) {
    if (e.key == "window") {
      settings.window = std::chrono::duration_cast<std::chrono::seconds>(*value);
    } else {
      settings.timeout = *value;
    }
    return true;
  }
  const std::string what = "a duration: an integer with a unit us, ms, s, m or h (500us, 30s)";
  reader.diagnostics().error(
      e.value_at, field, scalar ? "'" + e.value.Scalar() + "' is not " + what : "expected " + what);
  return false;
}

bool read_peers(Reader& reader, const Entry& e, std::vector<probe::ProbePeer>& peers,
                std::map<std::string, Location>& at) {
  bool ok = true;
  size_t index = 0;
  const bool listed = reader.list(
      e.value, e.value_at, "probe.peers", "a list of peers, each with an address and a group",
      [&](const YAML::Node& item, Location item_at) {
        const std::string field = "peers[" + std::to_string(index++) + "]";
        at[field] = item_at;
        probe::ProbePeer peer;
        reader.entries(item, item_at, "probe." + field, kPeerKeys, [&](const Entry& p) {
          at[field + "." + p.key] = p.value_at;
          auto value = reader.string(
              p.value, p.value_at, "probe." + field + "." + p.key,
              p.key == "address" ? "an IPv4 or IPv6 address" : "a group name (its switch)");
          if (!value) ok = false;
          (p.key == "address" ? peer.address : peer.group) = value.value_or("");
        });
        peers.push_back(std::move(peer));
      });
  return ok && listed;
}

}  // namespace

void read_probe(Reader& reader, const YAML::Node& node, Location where,
                probe::ProbeSettings& settings) {
  std::map<std::string, Location> at;
  bool unreadable = false;
  reader.entries(node, where, "probe", kProbeKeys, [&](const Entry& e) {
    at[e.key] = e.value_at;
    const std::string field = "probe." + e.key;
    bool ok = false;
    if (e.key == "enabled" || e.key == "self_probe") {
      if (auto value = reader.choice(e.value, e.value_at, field, {"true", "false"})) {
        (e.key == "enabled" ? settings.enabled : settings.self_probe) = *value == "true";
        ok = true;
      }
    } else if (e.key == "peers") {
      settings.peers.clear();
      ok = read_peers(reader, e, settings.peers, at);
    } else if (e.key == "rate" || e.key == "budget" || e.key == "loss_ratio") {
      if (const auto value = real(reader, e, field)) {
        (e.key == "rate"     ? settings.rate
         : e.key == "budget" ? settings.budget
                             : settings.loss_ratio) = *value;
        ok = true;
      }
    } else if (e.key == "rtt_p99" || e.key == "window" || e.key == "timeout") {
      ok = read_duration(reader, e, field, settings);
    } else if (e.key == "q_key") {
      if (auto value = reader.integer(e.value, e.value_at, field, 0, 0xffffffffLL,
                                      "a Q_Key (0x1 to 0x7fffffff)")) {
        settings.q_key = static_cast<uint32_t>(*value);
        ok = true;
      }
    } else if (e.key == "service_port") {
      if (auto value = reader.integer(e.value, e.value_at, field, 1, 65535,
                                      "an rdma_cm port number (1-65535)")) {
        settings.service_port = static_cast<uint16_t>(*value);
        ok = true;
      }
    }
    unreadable = unreadable || !ok;
  });
  // A key that could not be read has said so; its default would only add a confusing second
  // problem.
  if (unreadable) return;
  for (const auto& problem : settings.validate()) {
    auto it = at.find(problem.field);
    // A peer's missing key is reported at the peer; no peers at all, at what asks for them.
    if (it == at.end()) it = at.find(problem.field.substr(0, problem.field.find('.')));
    if (it == at.end() && problem.field == "peers") it = at.find("enabled");
    reader.diagnostics().error(it != at.end() ? it->second : where, "probe." + problem.field,
                               problem.message);
  }
}

}  // namespace roced::config::detail
