// SPDX-License-Identifier: Apache-2.0
#include "daemon/settings/setting.hpp"

namespace roced::settings {

std::string setting_name(Setting setting, std::string_view instance) {
  const SettingInfo& row = info(setting);
  std::string name(row.key);
  if (row.keyed && !instance.empty()) {
    name += '.';
    name += instance;
  }
  return name;
}

std::optional<std::pair<Setting, std::string>> parse_setting_name(std::string_view name) {
  for (const SettingInfo& row : kSettings) {
    if (name == row.key) return std::pair{row.id, std::string()};
    // "ecn.dcqcn.rp_ai_rate": the key, a dot, the instance.
    if (row.keyed && name.size() > row.key.size() + 1 && name.starts_with(row.key) &&
        name[row.key.size()] == '.') {
      return std::pair{row.id, std::string(name.substr(row.key.size() + 1))};
    }
  }
  return std::nullopt;
}

}  // namespace roced::settings
