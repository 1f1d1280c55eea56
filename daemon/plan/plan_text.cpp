// SPDX-License-Identifier: Apache-2.0
// The plan as people read it: per port a header, then one aligned line per change, unsupported
// setting and warning.
#include <algorithm>
#include <sstream>

#include "daemon/plan/plan.hpp"

namespace roced::plan {

namespace {

constexpr size_t kMinNameWidth = 16;

std::string port_header(const PortPlan& port) {
  std::string out = port.port.netdev + " (";
  if (port.port.rdma_device.empty()) {
    out += "no RDMA device";
  } else {
    out += port.port.rdma_device + ":" + std::to_string(port.port.rdma_port);
  }
  if (port.roce_v2_gid_index) out += ", RoCE v2 GID " + std::to_string(*port.roce_v2_gid_index);
  out += "): ";
  // Partly read with changes: those are listed, the error on a line of its own.
  if (!port.error.empty() && (!port.partly_read || port.changes.empty())) {
    return out + "error: " + port.error;
  }
  if (port.changes.empty()) return out + "in sync";
  out += std::to_string(port.changes.size()) + (port.changes.size() == 1 ? " change" : " changes");
  if (port.disruptive()) out += ", disrupts traffic";
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

void write_port(std::ostringstream& out, const PortPlan& port) {
  out << port_header(port) << "\n";
  const size_t width = name_width(port);
  auto name = [width](const std::string& text) {
    return text + std::string(width + 2 - text.size(), ' ');
  };
  for (const auto& c : port.changes) {
    out << "  " << name(setting_name(c.setting, c.key)) << c.now << " -> " << c.wanted;
    if (c.disruptive) out << "   (disruptive: " << c.disruption << ")";
    out << "\n";
  }
  for (const auto& u : port.unsupported) {
    out << "  " << name(setting_name(u.setting, u.key)) << "unsupported: " << u.reason << "\n";
  }
  for (const auto& warning : port.warnings) out << "  warning: " << warning << "\n";
  if (port.partly_read && !port.changes.empty()) {
    out << "  error: " << port.error << " (left as it is; the changes above are made)\n";
  }
}

}  // namespace

std::string format_plan_text(const Plan& plan) {
  std::ostringstream out;
  if (!plan.error.empty()) out << "error: " << plan.error << "\n";
  for (const auto& port : plan.ports) write_port(out, port);
  for (const auto& name : plan.not_found) {
    out << name << ": not found (named in " << plan.config_path << ", no such netdev)\n";
  }
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
  std::string flapped;
  for (const auto& port : plan.ports) {
    if (port.disruptive()) flapped += (flapped.empty() ? "" : ", ") + port.port.netdev;
  }
  if (!flapped.empty()) {
    out << "links go down one port at a time, each back before the next: " << flapped << "\n";
  }
  return out.str();
}

}  // namespace roced::plan
