// SPDX-License-Identifier: Apache-2.0
// Reads one profile section key by key, over the settings table's keys (settings::profile_keys):
// a key with a dot ("pfc.priorities") is read inside its section (`pfc:`). A key given replaces
// the base's value.
#include "daemon/config/read_profile.hpp"

namespace roced::config::detail {

namespace {

// The entries of `node`, the section `group` ("" for the profile itself), each read by its row
// or, for a section, one level down.
void read_group(settings::ProfileReader& r, const YAML::Node& node, Location where,
                const std::string& group) {
  const std::string field = group.empty() ? r.prefix : r.path(group);
  r.reader.entries(node, where, field, settings::profile_keys_under(group), [&](const Entry& e) {
    const std::string key = group.empty() ? e.key : group + "." + e.key;
    if (const settings::ProfileKey* row = settings::find_profile_key(key)) {
      row->read(r, e);
    } else {
      read_group(r, e.value, e.value_at, key);
    }
  });
}

}  // namespace

void read_profile(Reader& reader, const YAML::Node& node, Location where, const std::string& prefix,
                  Profile& profile, FieldLocations& set_here) {
  settings::ProfileReader r{reader, profile, set_here, prefix};
  read_group(r, node, where, "");
}

}  // namespace roced::config::detail
