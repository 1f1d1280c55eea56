// SPDX-License-Identifier: Apache-2.0
#pragma once
// A qualification report in its three forms: text for the person at the terminal, JSON for a bug
// report, and a roce-sim node description so the project's tests can run against this machine.
// The last two hold nothing private: no MAC or IP address, GID value or host name (unless
// asked), and the PCI functions renumbered 0000:01:00.0, 0000:02:00.0, ... per NIC.
#include <map>
#include <string>

#include "qualify/report.hpp"

namespace roced::qualify {

// Real PCI function -> its stand-in: one bus per NIC (bus and device of the real address), the
// function kept.
std::map<std::string, std::string> pci_stand_ins(const Report& report);

std::string report_text(const Report& report);
std::string report_json(const Report& report);  // docs/qualify.md, "The JSON report"
// YAML in docs/sim-formats.md's node format; mlx5 uplinks only (the others are listed in a
// comment).
std::string node_description(const Report& report);

}  // namespace roced::qualify
