// SPDX-License-Identifier: Apache-2.0
#include "probe/settings.hpp"

#include <arpa/inet.h>

#include <set>

namespace roced::probe {

namespace {

bool is_address(const std::string& text) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

// A group is a label value and a word in a finding: short, and nothing that needs quoting.
bool is_group_name(const std::string& text) {
  if (text.empty() || text.size() > 63) return false;
  for (const char c : text) {
    const bool fits = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (!fits) return false;
  }
  return true;
}

}  // namespace

std::vector<ProbeProblem> ProbeSettings::validate() const {
  std::vector<ProbeProblem> problems;
  if (enabled && peers.empty()) {
    problems.push_back({"peers",
                        "probing is on but names no peer: list each peer's address "
                        "and group, or set enabled: false"});
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < peers.size(); ++i) {
    const std::string at = "peers[" + std::to_string(i) + "]";
    if (!is_address(peers[i].address)) {
      problems.push_back(
          {at + ".address", "'" + peers[i].address + "' is not an IPv4 or IPv6 address"});
    } else if (!seen.insert(peers[i].address).second) {
      problems.push_back({at + ".address", peers[i].address + " is listed twice"});
    }
    if (!is_group_name(peers[i].group)) {
      problems.push_back({at + ".group", "'" + peers[i].group +
                                             "' is not a group name (1 to 63 letters, digits, "
                                             "'-', '_' or '.')"});
    }
  }
  if (!(rate > 0 && rate <= kMaxProbeRate)) {
    problems.push_back({"rate", "probes a second a port must be above 0 and at most 1000"});
  }
  if (!(budget > 0 && budget <= kMaxProbeBudget)) {
    problems.push_back(
        {"budget", "probes a second for the node must be above 0 and at most 100000"});
  }
  if (!(loss_ratio > 0 && loss_ratio <= 1)) {
    problems.push_back(
        {"loss_ratio", "a share of the probes: above 0 and at most 1 (0.02 is 2 %)"});
  }
  if (rtt_p99 < std::chrono::microseconds(1) || rtt_p99 > std::chrono::seconds(10)) {
    problems.push_back({"rtt_p99", "must be between 1us and 10s"});
  }
  if (window < std::chrono::seconds(5) || window > std::chrono::hours(1)) {
    problems.push_back({"window", "must be between 5s and 1h"});
  }
  if (timeout < std::chrono::milliseconds(10) || timeout > std::chrono::seconds(10)) {
    problems.push_back({"timeout", "must be between 10ms and 10s"});
  } else if (timeout >= window) {
    problems.push_back({"timeout", "must be shorter than the window"});
  }
  if (q_key == 0 || q_key >= 0x80000000U) {
    problems.push_back({"q_key",
                        "must be between 1 and 0x7fffffff (the high bit asks for a "
                        "privileged Q_Key)"});
  }
  return problems;
}

}  // namespace roced::probe
