// SPDX-License-Identifier: Apache-2.0
#pragma once
// The profile's keys in roced.yaml, one row each: every setting's (its Spec<S>::read parses the
// value and checks it alone; config/validate.cpp checks the rules between settings) and the few
// keys that are read but not written (which RoCE v2 GID jobs use). daemon/config loops over
// these rows; nothing else lists the keys under `profile:`.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/settings/profile.hpp"
#include "daemon/settings/setting.hpp"
#include "daemon/yaml/reader.hpp"

namespace roced::settings {

// Where one profile section (`profile` or one override) set each field, by its path inside the
// profile: "pfc.priorities", "dscp_map.26", "ets.tcs", "ecn.dcqcn.rp_ai_rate". The cross-setting
// rules point there, and an override is held to a rule only when it set one of its fields.
using FieldLocations = std::map<std::string, yaml::Location>;

// What a key's reader sees: the file's reader, the profile being built (over the base's values)
// and where each field was set.
struct ProfileReader {
  yaml::Reader& reader;
  Profile& profile;
  FieldLocations& set_here;
  const std::string& prefix;  // "profile", "overrides.lan5"

  // "profile.pfc.priorities" for "pfc.priorities".
  std::string path(const std::string& field) const { return prefix + "." + field; }
  void mark(const std::string& field, yaml::Location at) { set_here[field] = at; }
  yaml::Diagnostics& diagnostics() { return reader.diagnostics(); }
};

struct ProfileKey {
  std::string_view key;  // dotted, under `profile:`: "pfc.priorities"
  // Reads the entry whose key is the last part of `key` into the profile.
  void (*read)(ProfileReader&, const yaml::Entry&);
  // Whether two profiles want the same value for this key.
  bool (*same)(const Profile&, const Profile&);
  // A RoCE LAG's slaves must be given the same value (SettingInfo::slaves_agree).
  bool slaves_agree = false;
};

// Every key under `profile:`, the settings' first, in the table's order.
std::span<const ProfileKey> profile_keys();
const ProfileKey* find_profile_key(std::string_view key);
// The names one level under `group` ("" for the profile's own keys, "pfc" for its section):
// "pfc", "mtu", ...; "priorities", "cable_length".
std::vector<std::string> profile_keys_under(std::string_view group);

}  // namespace roced::settings
