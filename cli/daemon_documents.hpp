// SPDX-License-Identifier: Apache-2.0
#pragma once
// The daemon's JSON documents back into the types rocectl's text formatters take, so `rocectl
// plan` and `rocectl apply` print the same lines whether the daemon or rocectl itself did the
// work; and the text form of GetStatus's document.

#include <nlohmann/json.hpp>
#include <string>

#include "daemon/apply/applier.hpp"
#include "daemon/plan/plan.hpp"

namespace roced::cli {

// Throw nlohmann::json::exception or std::invalid_argument on a document of another shape.
plan::Plan plan_from_json(const nlohmann::ordered_json& doc);
apply::ApplyResult apply_result_from_json(const nlohmann::ordered_json& doc);

// Per port: condition, what drifted, the last apply, failures; then the daemon's status line.
std::string format_daemon_status_text(const nlohmann::ordered_json& doc);

}  // namespace roced::cli
