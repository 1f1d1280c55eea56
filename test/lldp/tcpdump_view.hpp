// SPDX-License-Identifier: Apache-2.0
#pragma once
// What tcpdump's LLDP printer (print-lldp.c, `-v`/`-vv`) says about each packet, read back from
// its text: the independent answer roced's decoder is checked against.
#include <array>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace roced::test {

struct TcpdumpPacket {
  bool lldp = false;
  std::string chassis_mac;
  std::optional<int> ttl;
  std::string system_name;
  std::optional<int> pfc_willing, pfc_mbc, pfc_cap;
  std::optional<int> pfc_mask;
  std::optional<int> ets_willing, ets_cbs, ets_max_tcs;
  std::vector<std::array<int, 8>> ets_rows;  // each table's Value row, in order
  struct App {
    int priority, selector, protocol;
  };
  std::vector<App> apps;
  std::optional<int> max_frame_size;
  std::optional<int> cee_pfc_mask;  // from "Priority Bit N: Enabled"
  std::optional<int> cee_enable, cee_willing;
  std::array<int, 8> cee_pgid{};
  std::array<int, 8> cee_pg_percent{};
  bool cee_pg = false;
};

inline std::vector<TcpdumpPacket> parse_tcpdump(const std::string& text) {
  std::vector<TcpdumpPacket> packets;
  std::istringstream in(text);
  std::string line;
  enum class In { None, Pfc, Ets, CeePfc, CeePg } section = In::None;
  const std::regex ttl(R"(TTL (\d+)s)");
  const std::regex name(R"(System Name TLV \(5\), length \d+: (.*))");
  const std::regex mac(R"(Subtype MAC address \(4\): ([0-9a-f:]{17}))");
  const std::regex pfc(R"(Willing: (\d), MBC: (\d), RES: \d+, PFC cap:(\d+))");
  const std::regex ets(R"(Willing:(\d), CBS:(\d), RES:\d+, Max TCs:(\d+))");
  const std::regex value(R"(Value\s*:\s*((?:\d+\s*){8}))");
  const std::regex app(R"(Priority: (\d+), RES: \d+, Sel: (\d+), Protocol ID: (\d+))");
  const std::regex mtu(R"(MTU size (\d+))");
  const std::regex bit(R"(Priority Bit (\d): (Enabled|Disabled))");
  const std::regex info(R"(Enable bit: (\d), Willing bit: (\d))");
  const std::regex pgid(R"(PgId_(\d): (\d+))");
  const std::regex percent(R"(Pg percentage\[(\d)\]: (\d+))");
  const std::regex first(R"(^(\s*\d+\s+\d{4}-\d\d-\d\d |\d\d:\d\d:\d\d\.\d+ ))");
  std::smatch m;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    // A packet's first line: numbered with its date (tcpdump's test outputs) or a time.
    if (std::regex_search(line, first)) {
      packets.emplace_back();
      packets.back().lldp = line.find("LLDP, length") != std::string::npos;
      section = In::None;
      continue;
    }
    if (packets.empty()) continue;
    auto& p = packets.back();
    if (line.find("Priority Flow Control Configuration Subtype") != std::string::npos) {
      section = In::Pfc;
    } else if (line.find("ETS Configuration Subtype") != std::string::npos) {
      section = In::Ets;
    } else if (line.find("ETS Recommendation Subtype") != std::string::npos) {
      section = In::Ets;
    } else if (line.find("Feature - Priority Flow Control") != std::string::npos) {
      section = In::CeePfc;
      p.cee_pfc_mask = 0;
    } else if (line.find("Feature - Priority Group") != std::string::npos) {
      section = In::CeePg;
      p.cee_pg = true;
    } else if (line.find("TLV (") != std::string::npos) {
      section = In::None;
    }
    if (std::regex_search(line, m, ttl)) p.ttl = std::stoi(m[1]);
    if (std::regex_search(line, m, name)) p.system_name = m[1];
    if (p.chassis_mac.empty() && std::regex_search(line, m, mac)) p.chassis_mac = m[1];
    if (std::regex_search(line, m, pfc)) {
      p.pfc_willing = std::stoi(m[1]);
      p.pfc_mbc = std::stoi(m[2]);
      p.pfc_cap = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, ets)) {
      p.ets_willing = std::stoi(m[1]);
      p.ets_cbs = std::stoi(m[2]);
      p.ets_max_tcs = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, value)) {
      std::array<int, 8> row{};
      std::istringstream numbers(m[1].str());
      for (int& v : row) numbers >> v;
      if (section == In::Pfc) {
        int mask = 0;
        for (int i = 0; i < 8; ++i) mask |= row[i] != 0 ? 1 << i : 0;
        p.pfc_mask = mask;
      } else if (section == In::Ets) {
        p.ets_rows.push_back(row);
      }
    }
    if (std::regex_search(line, m, app)) {
      p.apps.push_back({std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])});
    }
    if (std::regex_search(line, m, mtu)) p.max_frame_size = std::stoi(m[1]);
    if (section == In::CeePfc && std::regex_search(line, m, bit) && m[2] == "Enabled") {
      *p.cee_pfc_mask |= 1 << std::stoi(m[1]);
    }
    if (std::regex_search(line, m, info)) {
      p.cee_enable = std::stoi(m[1]);
      p.cee_willing = std::stoi(m[2]);
    }
    if (std::regex_search(line, m, pgid)) p.cee_pgid[std::stoul(m[1])] = std::stoi(m[2]);
    if (std::regex_search(line, m, percent)) {
      p.cee_pg_percent[std::stoul(m[1])] = std::stoi(m[2]);
    }
  }
  return packets;
}

}  // namespace roced::test
