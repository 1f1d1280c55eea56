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

#include "dcb/types.hpp"
#include "port/discovery.hpp"
#include "telemetry/exporter_settings.hpp"
#include "util/enum_names.hpp"
#include "watchdog/settings.hpp"

namespace roced::config {

enum class DcbxMode { Host, Firmware };
inline constexpr auto kDcbxModeNames =
    enum_names<DcbxMode>({{DcbxMode::Host, "host"}, {DcbxMode::Firmware, "firmware"}});
static_assert(kDcbxModeNames.covers<DcbxMode::Firmware>(), "name every DcbxMode");

struct EtsProfile {
  std::array<uint8_t, 8> prio_tc{0, 1, 2, 3, 4, 5, 6, 7};  // priority -> traffic class
  std::array<dcb::Tsa, 8> tsa{};                           // per traffic class
  std::array<uint8_t, 8> bandwidth{};  // per TC, percent; the ETS TCs sum to 100
  bool operator==(const EtsProfile&) const = default;
};

// ETHTOOL_PFC_PREVENTION_TOUT as the user writes it: off | auto | 80-8000 (ms).
struct StallPrevention {
  enum class Mode { Off, Auto, Manual } mode = Mode::Auto;
  uint16_t timeout_ms = 0;         // Manual only
  uint16_t tunable_value() const;  // 0, 0xffff or timeout_ms
  bool operator==(const StallPrevention&) const = default;
};

struct EcnProfile {
  // Priorities on which ECN marking/reaction is enabled (bit p = priority p). Only NVIDIA's
  // out-of-tree driver can set this per priority; the inbox driver reports it unsupported.
  std::optional<uint8_t> enabled_priorities;
  uint8_t cnp_dscp = 48;
  uint8_t cnp_priority = 6;
  // DCQCN thresholds and timers by their upstream cc_params name ("rp_ai_rate",
  // "np_min_time_between_cnps"); rdma/ecn maps them to the OFED driver's names. Only the knobs
  // named here are managed.
  std::map<std::string, uint64_t> dcqcn;
  bool operator==(const EcnProfile&) const = default;
};

struct RoceProfile {
  std::string rdma_cm_mode = "RoCE v2";  // configfs default_roce_mode: "RoCE v2" | "IB/RoCE v1"
  uint8_t tos = 106;                     // configfs default_roce_tos: the whole ToS byte
  std::string gid_family = "ipv4";       // the RoCE v2 GID jobs use: "ipv4" | "ipv6"
  std::optional<int> gid_index;          // the index jobs hard-code (NCCL_IB_GID_INDEX), if any
  bool operator==(const RoceProfile&) const = default;
};

struct BufferProfile {
  std::array<uint8_t, 8> prio2buffer{};
  std::array<uint32_t, 8> buffer_size{};  // bytes
  bool operator==(const BufferProfile&) const = default;
};

// The lossless profile for one port. Defaults are the common recipe (docs/config.md).
struct Profile {
  DcbxMode dcbx = DcbxMode::Host;
  dcb::Trust trust = dcb::Trust::Dscp;
  std::array<uint8_t, 64> dscp_map{};  // DSCP -> priority; default d >> 3 with 26->3, 48->6
  uint8_t pfc_priorities = 1u << 3;    // bit p = PFC on priority p
  uint16_t cable_length_m = 7;         // ieee_pfc.delay for mlx5
  EtsProfile ets;
  uint32_t mtu = 9000;
  EcnProfile ecn;
  StallPrevention stall_prevention;
  RoceProfile roce;
  std::optional<BufferProfile> buffers;  // left to the driver when absent
  // Per-TC transmit rate caps in Mbit/s, 0 = none (ieee_maxrate); left alone when absent.
  std::optional<std::array<uint32_t, 8>> maxrate_mbps;
  bool operator==(const Profile&) const = default;
};
Profile default_profile();  // the recipe, with ETS: TC0..5 ETS sharing 100, TC6 strict (CNPs)

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
};

// `overrides.<netdev or glob>`: the same keys as `profile`, applied over it.
struct PortOverride {
  std::string pattern;
  Profile profile;  // the whole profile with the override's keys applied
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
  DaemonSettings daemon;
  MetricsSettings metrics;
  watchdog::WatchdogSettings watchdog;  // `watchdog:` (read and checked; issue 6 wires it in)
  PortSelection ports;
  Profile profile;
  std::vector<PortOverride> overrides;  // in file order; the first match wins
  const Profile& profile_for(const std::string& netdev) const;
};

// One problem found in the file: "roced.yaml:12:9: profile.pfc.priorities: 9 is not a priority
// (0-7)". line and column are 1-based; 0 when the problem is not at one place.
struct Diagnostic {
  enum class Severity { Error, Warning } severity = Severity::Error;
  std::string file;
  int line = 0;
  int column = 0;
  std::string field;  // dotted path: "profile.pfc.priorities", "ports.overrides.lan3.mtu"
  std::string message;
  std::string to_string() const;
};
inline constexpr auto kSeverityNames = enum_names<Diagnostic::Severity>(
    {{Diagnostic::Severity::Error, "error"}, {Diagnostic::Severity::Warning, "warning"}});
static_assert(kSeverityNames.covers<Diagnostic::Severity::Warning>());

struct LoadResult {
  std::optional<Config> config;         // set when there is no error (warnings allowed)
  std::vector<Diagnostic> diagnostics;  // errors and warnings, in file order
  bool ok() const { return config.has_value(); }
};

LoadResult load_file(const std::string& path);
LoadResult load_string(const std::string& text, const std::string& name);  // name for messages

}  // namespace roced::config
