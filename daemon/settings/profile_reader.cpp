// SPDX-License-Identifier: Apache-2.0
// The profile's keys: one per setting, from the settings table, then the keys that choose which
// RoCE v2 GID roced reports as the jobs' (read, compared with the GID table, never written).
#include "daemon/settings/profile_reader.hpp"

#include <algorithm>

#include "daemon/settings/spec.hpp"

namespace roced::settings {

namespace {

void read_gid_family(ProfileReader& r, const yaml::Entry& e) {
  if (auto family =
          r.reader.choice(e.value, e.value_at, r.path("roce.gid_family"), {"ipv4", "ipv6"})) {
    r.profile.roce.gid_family = *family;
    r.mark("roce.gid_family", e.value_at);
  }
}

void read_gid_index(ProfileReader& r, const yaml::Entry& e) {
  if (e.value.IsNull()) {
    r.profile.roce.gid_index.reset();
    r.mark("roce.gid_index", e.value_at);
  } else if (auto index = r.reader.integer(e.value, e.value_at, r.path("roce.gid_index"), 0, 255,
                                           "a GID index (0-255)")) {
    r.profile.roce.gid_index = static_cast<int>(*index);
    r.mark("roce.gid_index", e.value_at);
  }
}

bool same_gid_family(const Profile& a, const Profile& b) {
  return a.roce.gid_family == b.roce.gid_family;
}
bool same_gid_index(const Profile& a, const Profile& b) {
  return a.roce.gid_index == b.roce.gid_index;
}

std::vector<ProfileKey> make_keys() {
  std::vector<ProfileKey> keys;
  for (const Row& row : rows()) {
    keys.push_back({row.info->key, row.read, row.same_in, row.info->slaves_agree});
  }
  keys.push_back({"roce.gid_family", &read_gid_family, &same_gid_family, false});
  keys.push_back({"roce.gid_index", &read_gid_index, &same_gid_index, false});
  return keys;
}

}  // namespace

std::span<const ProfileKey> profile_keys() {
  static const std::vector<ProfileKey> keys = make_keys();
  return keys;
}

const ProfileKey* find_profile_key(std::string_view key) {
  for (const ProfileKey& k : profile_keys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

std::vector<std::string> profile_keys_under(std::string_view group) {
  std::vector<std::string> names;
  for (const ProfileKey& k : profile_keys()) {
    std::string_view rest = k.key;
    if (!group.empty()) {
      if (!rest.starts_with(group) || rest.size() <= group.size() || rest[group.size()] != '.') {
        continue;
      }
      rest.remove_prefix(group.size() + 1);
    }
    const std::string name(rest.substr(0, rest.find('.')));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace roced::settings
