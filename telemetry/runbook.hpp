// SPDX-License-Identifier: Apache-2.0
#pragma once
// The alert runbook (packaging/prometheus/runbook.md), built into roced and rocectl: each alert's
// runbook_url leads to the alerting node's roced (GET /runbook/<alert>), and a shell on the node
// reads it with `rocectl runbook` when the network or the exporter is what broke.

#include <optional>
#include <string_view>
#include <vector>

namespace roced::telemetry {

// The whole document.
std::string_view runbook();

// The section `## <alert>` from its heading up to the next heading; nullopt when the runbook
// has no section of that name.
std::optional<std::string_view> runbook_section(std::string_view alert);

// The alerts the runbook has a section for, in its order.
std::vector<std::string_view> runbook_alerts();

}  // namespace roced::telemetry
