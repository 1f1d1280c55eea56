// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced.yaml as typed values. The loader (loader.cpp) fills these from YAML and validate.cpp checks
// the rules that tie settings together; every other layer only ever sees a validated Config.
// docs/config.md documents each key; packaging/roced.yaml is the shipped, commented example.

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/settings/profile.hpp"
#include "daemon/yaml/reader.hpp"
#include "dcb/types.hpp"
#include "health/settings.hpp"
#include "port/discovery.hpp"
#include "probe/settings.hpp"
#include "telemetry/exporter_settings.hpp"
#include "util/enum_names.hpp"
#include "watchdog/settings.hpp"

namespace roced::config {

// The profile is the settings' own type (daemon/settings/profile.hpp): the config names it.
using settings::BufferProfile;
using settings::DcbxMode;
using settings::default_profile;
using settings::EcnProfile;
using settings::EtsProfile;
using settings::kDcbxModeNames;
using settings::Profile;
using settings::RoceProfile;
using StallPrevention = settings::StallPreventionProfile;

// Why a configuration without ports.netdevs manages nothing, and what to write instead.
inline constexpr std::string_view kNoPortsNamed =
    "roced manages no port until ports.netdevs names them, e.g. [\"ens*\", lan3], or [\"*\"] "
    "for every port of ports.drivers";

struct PortSelection {
  // Driver names: the netdev's (sysfs device/driver) or its own RDMA device's ("rxe", "irdma").
  std::vector<std::string> drivers{"mlx5_core"};
  // Names or fnmatch globs ("*" for every port of `drivers`); empty = none, so that a new
  // install or an empty file touches nothing.
  std::vector<std::string> netdevs;
  std::vector<std::string> exclude;  // names or globs
  // `rdma_driver`: DiscoveredPort::own_rdma_driver(), empty when unknown or none.
  bool selects(const std::string& netdev, const std::string& driver,
               const std::string& rdma_driver = {}) const;
  // The same for a discovered port, where a VF, a representor or a sub-function is selected only
  // by an entry that names it exactly: "*" or "lan*" never reaches a function of a port.
  bool selects(const DiscoveredPort& port) const;
  bool operator==(const PortSelection&) const = default;
};

// `overrides.<netdev or glob>`: the same keys as `profile`, applied over it.
struct PortOverride {
  std::string pattern;
  Profile profile;  // the whole profile with the override's keys applied
  bool operator==(const PortOverride&) const = default;
};

// `daemon:`: how the service keeps the ports right (ignored by the one-shot rocectl apply).
struct DaemonSettings {
  enum class DriftPolicy { Enforce, Report } drift_policy = DriftPolicy::Enforce;
  // A full re-read of every port on this period, besides the netlink events that trigger one.
  std::chrono::milliseconds drift_check_interval{std::chrono::seconds(30)};
  std::string log_level = "info";  // spdlog level names: trace debug info warn error critical off
  // How many ports a disruptive change (a link flap, a channel rebuild) may take down together;
  // each waits for the ones before it to have their carrier back. A GPU node's rails: never all.
  int disruptive_ports_at_once = 1;
  bool operator==(const DaemonSettings&) const = default;
};
inline constexpr auto kDriftPolicyNames =
    enum_names<DaemonSettings::DriftPolicy>({{DaemonSettings::DriftPolicy::Enforce, "enforce"},
                                             {DaemonSettings::DriftPolicy::Report, "report"}});
static_assert(kDriftPolicyNames.covers<DaemonSettings::DriftPolicy::Report>());

// `metrics:`: the exporter's own settings (telemetry/exporter_settings.hpp).
using telemetry::kDefaultMetricsPort;
using telemetry::ListenAddress;
using telemetry::MetricsSettings;
using telemetry::parse_listen_address;

struct Config {
  std::string path;  // the file it came from, for messages
  // The SHA-256 of the file's bytes, as sha256sum prints it: which configuration a node runs
  // (roced_config_info), the same on every node that runs the same file.
  std::string sha256;
  DaemonSettings daemon;
  MetricsSettings metrics;
  watchdog::WatchdogSettings watchdog;  // `watchdog:`
  health::HealthSettings health;        // `health:`
  probe::ProbeSettings probe;           // `probe:`
  PortSelection ports;
  Profile profile;
  std::vector<PortOverride> overrides;  // in file order; the first match wins
  const Profile& profile_for(const std::string& netdev) const;
};

using yaml::Diagnostic;
using yaml::kSeverityNames;

struct LoadResult {
  std::optional<Config> config;         // set when there is no error (warnings allowed)
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  bool ok() const { return config.has_value(); }
};

LoadResult load_file(const std::string& path);
LoadResult load_string(const std::string& text, const std::string& name);  // name for messages

}  // namespace roced::config
