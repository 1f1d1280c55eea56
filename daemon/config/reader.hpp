// SPDX-License-Identifier: Apache-2.0
#pragma once
// The names the config reader uses from the layers below: the YAML reader (daemon/yaml) and the
// profile's field locations (daemon/settings).

#include "daemon/config/config.hpp"
#include "daemon/settings/profile_reader.hpp"
#include "daemon/yaml/reader.hpp"

namespace roced::config::detail {

using settings::FieldLocations;
using yaml::Diagnostics;
using yaml::Entry;
using yaml::Location;
using yaml::location_of;
using yaml::Reader;

}  // namespace roced::config::detail
