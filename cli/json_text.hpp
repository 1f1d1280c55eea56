// SPDX-License-Identifier: Apache-2.0
#pragma once
// A field of one of roced's documents (GetStatus, GetPlan...) as text: the string it holds, or
// empty when it is missing or not a string, as the older daemons' documents may leave it.
#include <nlohmann/json.hpp>
#include <string>

namespace roced::cli {

inline std::string json_text(const nlohmann::ordered_json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

}  // namespace roced::cli
