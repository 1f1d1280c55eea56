// SPDX-License-Identifier: Apache-2.0
// The plan as people read it: per port (ports with the same plan together) a header, then one
// aligned line per change, unsupported setting and warning; why each disruptive change disrupts
// once at the end.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "daemon/plan/plan.hpp"
#include "util/name_list.hpp"

namespace roced::plan {

namespace {

constexpr size_t kMinNameWidth = 16;

std::string styled(const std::string& text, const char* sgr, const TextStyle& style) {
  return style.colour ? std::string("\033[") + sgr + "m" + text + "\033[0m" : text;
}
std::string alarm(const std::string& text, const TextStyle& style) {
  return styled(text, "1;31", style);  // bold red: a link goes down
}

// Ports whose plans read the same (changes, unsupported settings, warnings, errors, GID index)
// are shown once: 16 rails in the same state are one block, not sixteen.
bool same_plan(const PortPlan& a, const PortPlan& b) {
  const auto changes = [](const PortPlan& p) {
    std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
    for (const auto& c : p.changes) {
      out.emplace_back(setting_name(c.setting, c.key), c.now, c.wanted, c.disruption);
    }
    return out;
  };
  const auto unsupported = [](const PortPlan& p) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& u : p.unsupported) out.emplace_back(setting_name(u.setting, u.key), u.reason);
    return out;
  };
  return changes(a) == changes(b) && unsupported(a) == unsupported(b) &&
         finding::texts(a.findings) == finding::texts(b.findings) && a.error == b.error &&
         a.partly_read == b.partly_read && a.roce_v2_gid_index == b.roce_v2_gid_index &&
         a.port.rdma_device.empty() == b.port.rdma_device.empty();
}

std::string name_list(const std::vector<const PortPlan*>& ports) {
  std::vector<std::string> names;
  for (const auto* port : ports) names.push_back(port->port.netdev);
  return roced::name_list(names);
}

// A port's VFs on one line ("rail0: 16 VFs (rail0v0-rail0v15)"), its SFs and representors on
// others, the other functions one each: an SR-IOV node has hundreds.
void write_not_managed(std::ostream& out, const std::vector<Plan::NotManaged>& functions) {
  if (functions.empty()) return;
  out << "not managed (functions of a port: name one in ports.netdevs to manage it):\n";
  using Group = std::pair<std::string, PortRole>;  // the port, and VFs, SFs or representors
  std::vector<std::pair<Group, std::vector<std::string>>> groups;
  for (const auto& function : functions) {
    if (function.parent.empty()) {
      out << "  " << function.text() << "\n";
      continue;
    }
    const Group group{function.parent, function.kind};
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& entry) { return entry.first == group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {group, {}});
    it->second.push_back(function.netdev);
  }
  for (auto& [group, names] : groups) {
    sort_numerically(names);  // /sys/class/net lists lan2v10 before lan2v2
    const bool one = names.size() == 1;
    const char* noun = group.second == PortRole::Representor
                           ? (one ? " representor (" : " representors (")
                       : group.second == PortRole::SubFunction ? (one ? " SF (" : " SFs (")
                                                               : (one ? " VF (" : " VFs (");
    out << "  " << group.first << ": " << names.size() << noun << roced::name_list(names) << ")\n";
  }
}

std::string group_header(const std::vector<const PortPlan*>& group, const TextStyle& style) {
  const PortPlan& port = *group.front();
  const bool many = group.size() > 1;
  std::string out = many ? name_list(group) : port.port.netdev;
  std::string details;
  if (port.port.is_lag_slave()) {
    details = "slave of " + port.port.bond;
  } else if (port.port.rdma_device.empty()) {
    details = "no RDMA device";
  } else if (!many) {
    details = port.port.rdma_device + ":" + std::to_string(port.port.rdma_port);
  }
  if (port.roce_v2_gid_index) {
    details += (details.empty() ? "" : ", ") + std::string("RoCE v2 GID ") +
               std::to_string(*port.roce_v2_gid_index);
  }
  if (!details.empty()) out += " (" + details + ")";
  out += ": ";
  // Partly read with changes: those are listed, the error on a line of its own.
  if (!port.error.empty() && (!port.partly_read || port.changes.empty())) {
    return out + "error: " + port.error;
  }
  if (port.changes.empty()) return out + "in sync";
  out += std::to_string(port.changes.size()) + (port.changes.size() == 1 ? " change" : " changes");
  if (many) out += " each";
  if (port.disruptive()) out += ", " + alarm("disrupts traffic", style);
  return out;
}

size_t name_width(const PortPlan& port) {
  size_t width = kMinNameWidth;
  for (const auto& c : port.changes) width = std::max(width, setting_name(c.setting, c.key).size());
  for (const auto& u : port.unsupported) {
    width = std::max(width, setting_name(u.setting, u.key).size());
  }
  return width;
}

void write_group(std::ostringstream& out, const std::vector<const PortPlan*>& group,
                 const TextStyle& style) {
  const PortPlan& port = *group.front();
  out << group_header(group, style) << "\n";
  const size_t width = name_width(port);
  auto name = [width](const std::string& text) {
    return text + std::string(width + 2 - text.size(), ' ');
  };
  for (const auto& c : port.changes) {
    out << "  " << name(setting_name(c.setting, c.key)) << c.now << " -> " << c.wanted;
    if (c.disruptive) out << "   " << alarm("(disruptive)", style);
    out << "\n";
  }
  for (const auto& u : port.unsupported) {
    if (u.kind == settings::Lacking::RoceLag) continue;
    out << "  " << name(setting_name(u.setting, u.key)) << "unsupported: " << u.reason << "\n";
  }
  for (const auto& [names, reason] : elsewhere_by_reason(port.unsupported)) {
    out << "  elsewhere: " << names << ": " << reason << "\n";
  }
  for (const auto& found : port.findings) out << "  " << finding::headline(found) << "\n";
  if (port.partly_read && !port.changes.empty()) {
    out << "  error: " << port.error << " (left as it is; the changes above are made)\n";
  }
}

// Why each disruptive setting disrupts, once for the whole plan rather than on every port.
void write_disruptions(std::ostringstream& out, const Plan& plan) {
  std::vector<std::pair<std::string, std::string>> reasons;
  for (const auto& port : plan.ports) {
    for (const auto& c : port.changes) {
      if (!c.disruptive) continue;
      std::pair<std::string, std::string> reason{setting_name(c.setting, c.key), c.disruption};
      if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
        reasons.push_back(std::move(reason));
      }
    }
  }
  if (reasons.empty()) return;
  out << "disruptive:\n";
  for (const auto& [setting, why] : reasons) out << "  " << setting << ": " << why << "\n";
}

}  // namespace

std::string format_plan_text(const Plan& plan, const TextStyle& style) {
  std::ostringstream out;
  if (!plan.error.empty()) out << "error: " << plan.error << "\n";
  std::vector<std::vector<const PortPlan*>> groups;
  for (const auto& port : plan.ports) {
    const auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& group) {
      return same_plan(*group.front(), port);
    });
    if (same == groups.end()) {
      groups.push_back({&port});
    } else {
      same->push_back(&port);
    }
  }
  for (const auto& group : groups) write_group(out, group, style);
  for (const auto& name : plan.not_found) {
    out << name << ": not found (named in " << plan.config_path << ", no such netdev)\n";
  }
  write_not_managed(out, plan.not_managed);
  write_disruptions(out, plan);
  const auto pending = std::count_if(plan.ports.begin(), plan.ports.end(),
                                     [](const PortPlan& p) { return !p.changes.empty(); });
  if (plan.ports.empty()) {
    out << "no port selected on " << plan.source << "\n";
  } else if (pending == 0 && !plan.has_errors()) {
    out << (plan.ports.size() == 1
                ? "the port is in sync\n"
                : "all " + std::to_string(plan.ports.size()) + " ports in sync\n");
  } else if (pending > 0) {
    out << "changes pending on " << pending << " of " << plan.ports.size()
        << (plan.ports.size() == 1 ? " port\n" : " ports\n");
  }
  // The rollout: which links go down, in the order rocectl applies them.
  std::vector<const PortPlan*> flapped;
  for (const auto& port : plan.ports) {
    if (port.disruptive()) flapped.push_back(&port);
  }
  if (!flapped.empty()) {
    out << "links go down one port at a time, each back before the next: " << name_list(flapped)
        << "\n";
  }
  return out.str();
}

}  // namespace roced::plan
