// SPDX-License-Identifier: Apache-2.0
// Text, JSON and node description of a report. Every string that leaves the machine goes through
// scrub(), which puts each PCI stand-in in place of the real function.
#include "qualify/report_out.hpp"

#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace roced::qualify {
namespace {

using json = nlohmann::ordered_json;

std::string scrub(std::string text, const std::map<std::string, std::string>& stand_ins) {
  for (const auto& [real, stand_in] : stand_ins) {
    for (size_t at = text.find(real); at != std::string::npos;
         at = text.find(real, at + stand_in.size())) {
      text.replace(at, real.size(), stand_in);
    }
  }
  return text;
}

json optional_bool(const std::optional<bool>& value) {
  return value ? json(*value) : json(nullptr);
}

// A value the port did not give is null, never "" (docs/status-json.md, the rules).
json text_or_null(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json port_json(const PortReport& port, const std::map<std::string, std::string>& stand_ins) {
  const PortFacts& f = port.facts;
  json out;
  out["netdev"] = f.netdev;
  out["pci"] = stand_ins.count(f.pci) ? json(stand_ins.at(f.pci)) : json(nullptr);
  out["rdma_device"] = text_or_null(f.rdma_device);
  out["driver"] = text_or_null(f.driver);
  out["driver_version"] = text_or_null(f.driver_version);
  out["flavour"] = text_or_null(f.flavour);
  out["driver_tree"] = text_or_null(f.driver_tree);
  out["driver_evidence"] = f.driver_evidence;
  out["firmware"] = text_or_null(f.firmware);
  out["board_id"] = text_or_null(f.board_id);
  out["hca_type"] = text_or_null(f.hca_type);
  out["model"] = text_or_null(f.model);
  out["speed_mbps"] = f.speed_mbps ? json(*f.speed_mbps) : json(nullptr);
  out["mtu"] = f.mtu ? json(f.mtu) : json(nullptr);
  out["max_mtu"] = f.max_mtu ? json(f.max_mtu) : json(nullptr);
  out["channels"] = f.channels ? json(f.channels) : json(nullptr);
  out["dcbx_host"] = optional_bool(f.dcbx_host);
  out["trust_dscp"] = optional_bool(f.trust_dscp);
  out["capabilities"] = {{"stall_prevention", optional_bool(f.stall_prevention)},
                         {"buffers", optional_bool(f.buffers)},
                         {"pause_storm_events", optional_bool(f.pause_storm_events)},
                         {"prio_discard_counters", optional_bool(f.prio_discard_counters)}};
  out["ecn_flavour"] = text_or_null(f.ecn_flavour);
  out["lockdown"] = text_or_null(f.lockdown);
  out["addresses"] = {{"ipv4", f.ipv4_addresses}, {"ipv6", f.ipv6_addresses}};
  out["statistics"] = f.statistics;
  out["statistics_pfc_on"] = f.statistics_pfc_on;
  out["statistics_pfc_off"] = f.statistics_pfc_off;
  out["hw_counters"] = f.hw_counters;
  out["link_training_ms"] = f.link_training_ms ? json(*f.link_training_ms) : json(nullptr);
  out["firmware_command_us"] = f.firmware_command_us ? json(*f.firmware_command_us) : json(nullptr);
  out["cable_length_in_firmware"] = optional_bool(f.cable_length_in_firmware);
  json checks = json::array();
  for (const auto& check : port.checks) {
    checks.push_back({{"id", check.id},
                      {"verdict", std::string(kVerdictNames.name(check.verdict))},
                      {"assumes", check.wanted},
                      {"evidence", scrub(check.found, stand_ins)}});
  }
  out["checks"] = checks;
  json touched = json::array();
  for (const auto& item : port.touched) {
    touched.push_back({{"what", item.what},
                       {"restored", item.restored},
                       {"detail", text_or_null(scrub(item.detail, stand_ins))}});
  }
  out["touched"] = touched;
  out["error"] = text_or_null(scrub(port.error, stand_ins));
  return out;
}

// "400G" for the speeds a node description takes; empty for any other.
std::string speed_key(const std::optional<uint32_t>& mbps) {
  static constexpr std::array<uint32_t, 9> kSpeeds = {1000,   10000,  25000,  40000, 50000,
                                                      100000, 200000, 400000, 800000};
  if (!mbps) return {};
  for (uint32_t speed : kSpeeds) {
    if (*mbps == speed) return std::to_string(speed / 1000) + "G";
  }
  return {};
}

bool is_captured(const PortReport& port) {
  return port.error.empty() && port.facts.uplink && port.facts.driver == "mlx5_core" &&
         !port.facts.pci.empty();
}

std::string stand_in_addresses(size_t ipv4, size_t ipv6, size_t number) {
  std::string addresses;
  for (size_t i = 0; i < ipv4; ++i) {
    addresses += (addresses.empty() ? "" : ", ") + std::string("198.18.") + std::to_string(number) +
                 "." + std::to_string(10 + i) + "/24";
  }
  for (size_t i = 0; i < ipv6; ++i) {
    addresses += (addresses.empty() ? "" : ", ") + std::string("2001:db8:") +
                 std::to_string(number) + "::" + std::to_string(10 + i) + "/64";
  }
  return addresses;
}

// The NIC a PCI function belongs to: domain, bus and device ("0000:17:00").
// The driver as roce-sim's node files name it: the tree roced told, else the kernel's own
// driver or OFED as the version showed (a tree roced cannot tell is captured as the one it runs
// like most, and the report's driver_evidence says why).
std::string node_file_flavour(const PortFacts& f) {
  if (f.driver_tree == "mlnx-ofed") return "ofed";
  if (f.driver_tree == "debian-6.1" || f.driver_tree == "debian-6.12") return f.driver_tree;
  return f.flavour;
}

std::string card_of(const std::string& pci) {
  return pci.find(':') == std::string::npos ? pci : pci.substr(0, pci.rfind('.'));
}

void capabilities_yaml(std::ostringstream& out, const PortFacts& f) {
  std::vector<std::pair<const char*, std::optional<bool>>> caps = {
      {"stall_prevention", f.stall_prevention},
      {"buffers", f.buffers},
      {"prio_discard_counters", f.prio_discard_counters}};
  if (!f.ecn_flavour.empty()) caps.push_back({"ecn", f.ecn_flavour != "none"});
  if (f.cable_length_in_firmware) caps.push_back({"cable_length", *f.cable_length_in_firmware});
  std::string line;
  for (const auto& [name, value] : caps) {
    if (!value) continue;
    line += std::string(line.empty() ? "" : ", ") + name + ": " + (*value ? "true" : "false");
  }
  if (!line.empty()) out << "    capabilities: {" << line << "}\n";
}

void port_yaml(std::ostringstream& out, const PortFacts& f, size_t number) {
  out << "      - netdev: " << f.netdev << "\n";
  if (!f.rdma_device.empty()) {
    out << "        rdma_device: " << f.rdma_device << "\n";
  } else if (!f.lag_bond.empty()) {
    // The device the slave has without the LAG (mlx5_lag_remove_devices took it): a stand-in.
    out << "        rdma_device: mlx5_lag" << number << "  # stand-in: gone under the LAG\n";
  }
  if (f.rdma_port > 1) out << "        rdma_port: " << f.rdma_port << "\n";
  if (const std::string speed = speed_key(f.speed_mbps); !speed.empty()) {
    out << "        speed: " << speed << "\n";
  } else {
    out << "        # speed: not one the node format takes (or the link was down)\n";
  }
  if (f.max_mtu >= 1500 && f.max_mtu <= 9978) out << "        max_mtu: " << f.max_mtu << "\n";
  if (f.channels >= 1 && f.channels <= 128) out << "        channels: " << f.channels << "\n";
  if (f.link_training_ms && *f.link_training_ms <= 60000) {
    out << "        link_training: " << *f.link_training_ms << "ms  # measured\n";
  }
  const std::string addresses =
      f.lag_bond.empty() ? stand_in_addresses(f.ipv4_addresses, f.ipv6_addresses, number) : "";
  if (!addresses.empty()) out << "        addresses: [" << addresses << "]\n";
  if (f.trust_dscp && f.dcbx_host) {
    out << "        firmware_defaults: {trust: " << (*f.trust_dscp ? "dscp" : "pcp")
        << ", dcbx: " << (*f.dcbx_host ? "host" : "firmware") << "}  # as found\n";
  }
}

}  // namespace

std::map<std::string, std::string> pci_stand_ins(const Report& report) {
  std::map<std::string, int> cards;
  std::map<std::string, std::string> stand_ins;
  for (const auto& port : report.ports) {
    const std::string& pci = port.facts.pci;
    if (pci.empty() || stand_ins.count(pci)) continue;
    // A device that is no PCI function (a platform device, a test module's) is a NIC of its own.
    const bool is_pci = pci.find(':') != std::string::npos && pci.rfind('.') != std::string::npos;
    const std::string card = is_pci ? card_of(pci) : pci;
    if (!cards.count(card)) cards[card] = static_cast<int>(cards.size()) + 1;
    char text[16];
    std::snprintf(text, sizeof text, "0000:%02x:00", cards[card] % 256);
    stand_ins[pci] = text + (is_pci ? pci.substr(pci.rfind('.')) : std::string(".0"));
  }
  return stand_ins;
}

std::string report_json(const Report& report) {
  const auto stand_ins = pci_stand_ins(report);
  json out;
  out["schema"] = "roced.qualify/v1";
  out["roced_version"] = report.roced_version;
  out["kernel"] = text_or_null(report.kernel);
  out["hostname"] = text_or_null(report.hostname);
  out["mode"] = report.wrote ? "write" : "read-only";
  out["interrupted"] = report.interrupted;
  json summary;
  for (const auto& [verdict, count] : tally(report)) {
    summary[std::string(kVerdictNames.name(verdict))] = count;
  }
  out["summary"] = summary;
  json ports = json::array();
  for (const auto& port : report.ports) ports.push_back(port_json(port, stand_ins));
  out["ports"] = ports;
  return out.dump(2) + "\n";
}

std::string report_text(const Report& report) {
  const auto stand_ins = pci_stand_ins(report);
  std::ostringstream out;
  for (const auto& port : report.ports) {
    const PortFacts& f = port.facts;
    out << f.netdev;
    if (!f.model.empty()) out << " (" << f.model << ", firmware " << f.firmware << ")";
    out << "\n";
    if (!port.error.empty()) out << "  error: " << port.error << "\n";
    for (const auto& check : port.checks) {
      out << "  " << kVerdictNames.name(check.verdict) << " " << check.id << ": "
          << scrub(check.found, stand_ins) << "\n";
      if (check.verdict == Verdict::Differs) out << "      roced assumes " << check.wanted << "\n";
    }
    for (const auto& item : port.touched) {
      out << "  touched " << item.what << ": " << (item.restored ? "restored" : "NOT restored")
          << (item.detail.empty() ? "" : " (" + item.detail + ")") << "\n";
    }
  }
  const auto counts = tally(report);
  out << counts.at(Verdict::Holds) << " pass, " << counts.at(Verdict::Differs) << " differ, "
      << counts.at(Verdict::CannotTell) << " cannot tell"
      << (report.interrupted ? " (interrupted: everything touched was put back)" : "") << "\n";
  return out.str();
}

std::string node_description(const Report& report) {
  const auto stand_ins = pci_stand_ins(report);
  std::ostringstream out;
  out << "# A roce-sim node description captured by rocectl qualify (roced " << report.roced_version
      << ", kernel " << report.kernel << ").\n"
      << "# Format: docs/sim-formats.md. PCI functions are renumbered and the addresses are\n"
      << "# stand-ins (198.18.0.0/15, 2001:db8::/32) with the real ones' count per port.\n";
  std::string lockdown;
  for (const auto& port : report.ports) {
    if (!port.facts.lockdown.empty()) lockdown = port.facts.lockdown;
  }
  out << "node:\n  hostname: " << (report.hostname.empty() ? "qualified-node" : report.hostname)
      << "\n";
  if (!lockdown.empty()) out << "  lockdown: " << lockdown << "\n";
  out << "nics:\n";
  std::vector<std::string> cards;
  for (const auto& port : report.ports) {
    if (!is_captured(port)) continue;
    const std::string card = card_of(port.facts.pci);
    if (std::find(cards.begin(), cards.end(), card) == cards.end()) cards.push_back(card);
  }
  size_t number = 0;
  for (const auto& card : cards) {
    const PortReport* first = nullptr;
    for (const auto& port : report.ports) {
      if (is_captured(port) && card_of(port.facts.pci) == card && !first) first = &port;
    }
    const PortFacts& f = first->facts;
    out << "  - pci: " << stand_ins.at(f.pci) << "\n";
    if (!f.model.empty()) {
      out << "    model: " << f.model << "\n    firmware: " << f.firmware << "\n";
    }
    if (!f.flavour.empty()) {
      out << "    driver: {flavour: " << node_file_flavour(f) << ", version: " << f.driver_version
          << "}\n";
    }
    if (f.firmware_command_us && *f.firmware_command_us <= 100000) {
      out << "    firmware_command_us: " << *f.firmware_command_us
          << "  # debugfs commands/ACCESS_REG/average\n";
    }
    capabilities_yaml(out, f);
    out << "    ports:\n";
    const size_t first_number = number + 1;
    for (const auto& port : report.ports) {
      if (is_captured(port) && card_of(port.facts.pci) == card) {
        port_yaml(out, port.facts, ++number);
      }
    }
    if (!f.lag_bond.empty()) {
      out << "    lag: {bond: " << f.lag_bond << ", mode: " << f.lag_mode
          << ", rdma_device: " << f.lag_device;
      const std::string addresses = stand_in_addresses(f.ipv4_addresses, 0, first_number);
      if (!addresses.empty()) out << ", addresses: [" << addresses << "]";
      out << "}\n";
    }
  }
  for (const auto& port : report.ports) {
    if (!is_captured(port)) {
      out << "# " << port.facts.netdev << " ("
          << (port.facts.driver.empty() ? "?" : port.facts.driver) << "): "
          << (port.facts.uplink ? "not an mlx5 port" : "a function on a port (VF, SF, representor)")
          << ", left out\n";
    }
  }
  return out.str();
}

}  // namespace roced::qualify
