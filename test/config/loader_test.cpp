// SPDX-License-Identifier: Apache-2.0
// load_string: defaults, every key's value, overrides, selection, and each type or range error
// at its exact line, column and field.
#include <fstream>

#include "expect.hpp"
#include "test/support/build_paths.hpp"

namespace roced::config {
namespace {

using test::load;

TEST(ConfigDefaults, EmptyFileAndEmptyMappingAreTheDefaultProfile) {
  for (const std::string text : {"", "{}", "# only a comment\n", "---\n"}) {
    const LoadResult result = load_string(text, "t.yaml");
    ASSERT_TRUE(result.ok()) << test::all_text(result);
    EXPECT_EQ(result.config->profile, default_profile()) << "for '" << text << "'";
    EXPECT_EQ(result.config->ports.drivers, std::vector<std::string>{"mlx5_core"});
    // No port named, none managed: an empty file must not reconfigure (and flap) every port.
    EXPECT_TRUE(result.config->ports.netdevs.empty());
    EXPECT_FALSE(result.config->ports.selects("lan2", "mlx5_core"));
    EXPECT_CONFIG_WARNING(result, 0, 0, "ports.netdevs",
                          "not given: roced manages no port until ports.netdevs names them, e.g. "
                          "[\"ens*\", lan3], or [\"*\"] for every port of ports.drivers");
    EXPECT_TRUE(result.config->overrides.empty());
    EXPECT_EQ(result.config->path, "t.yaml");
  }
}

TEST(ConfigDefaults, TheHashIsTheFilesAsSha256sumPrintsIt) {
  // python3 -c "import hashlib; print(hashlib.sha256(b'daemon:\n  log_level: info\n').hexdigest())"
  const LoadResult result = load_string("daemon:\n  log_level: info\n", "t.yaml");
  ASSERT_TRUE(result.config);
  EXPECT_EQ(result.config->sha256,
            "d3ab488dfb64130666bfe7b08fec7a52cc033d9538d7b13c97958e8a681bc2b5");
}

TEST(ConfigDefaults, TheInstalledFileNamesNoPortAndSaysSo) {
  const std::string path = std::string(ROCED_SOURCE_DIR) + "/packaging/etc/roced.yaml";
  const LoadResult result = load_file(path);
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  EXPECT_EQ(result.config->profile, default_profile());
  EXPECT_FALSE(result.config->ports.selects("lan2", "mlx5_core"));
  ASSERT_EQ(result.diagnostics.size(), 1u) << test::all_text(result);
  EXPECT_EQ(result.diagnostics[0].field, "ports.netdevs");
  EXPECT_EQ(result.diagnostics[0].message.rfind("empty: roced manages no port", 0), 0u)
      << result.diagnostics[0].message;
}

TEST(ConfigDefaults, ShippedExampleIsTheDefaultProfileWithoutWarnings) {
  const LoadResult result = load_file(std::string(ROCED_SOURCE_DIR) + "/packaging/roced.yaml");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  EXPECT_TRUE(result.diagnostics.empty()) << test::all_text(result);
  EXPECT_EQ(result.config->profile, default_profile());
}

TEST(ConfigLoad, MetricsAndWatchdogKeysLandInTheirSections) {
  const LoadResult result = load(R"(
metrics:
  enabled: false
  listen: "[::1]:9900"
  basic_auth: {username: prom, password_hash: "$2b$05$abcdefghijklmnopqrstuu5Zz1WbbmJxQ3YpSgRxk2xj9p6wqC8u2"}
  tls: {certificate: /etc/roced/metrics.pem}
watchdog:
  enabled: true
  poll_interval: 10ms
  detection_time: 50ms
  restoration_time: 2s
  action: disable-pfc
  verify_polls: 5
  max_actions_per_hour: 3
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const Config& config = *result.config;
  EXPECT_FALSE(config.metrics.enabled);
  EXPECT_EQ(config.metrics.listen, "[::1]:9900");
  ASSERT_TRUE(config.metrics.basic_auth);
  EXPECT_EQ(config.metrics.basic_auth->username, "prom");
  EXPECT_EQ(config.metrics.tls_certificate, "/etc/roced/metrics.pem");
  EXPECT_TRUE(config.watchdog.enabled);
  EXPECT_EQ(config.watchdog.poll_interval, std::chrono::milliseconds(10));
  EXPECT_EQ(config.watchdog.detection_time, std::chrono::milliseconds(50));
  EXPECT_EQ(config.watchdog.restoration_time, std::chrono::milliseconds(2000));
  EXPECT_EQ(config.watchdog.rx_action, watchdog::WatchdogAction::disable_pfc);
  EXPECT_EQ(config.watchdog.tx_action, watchdog::WatchdogAction::disable_pfc);
  EXPECT_EQ(config.watchdog.verify_polls, 5);
  EXPECT_EQ(config.watchdog.max_actions_per_hour, 3);
  std::string problem;
  const auto address = parse_listen_address(config.metrics.listen, problem);
  ASSERT_TRUE(address) << problem;
  EXPECT_TRUE(address->ipv6);
  EXPECT_EQ(address->civetweb(), "[::1]:9900");
}

TEST(ConfigLoad, HealthKeysLandInTheirSection) {
  const LoadResult defaults = load("");
  ASSERT_TRUE(defaults.ok()) << test::all_text(defaults);
  EXPECT_EQ(defaults.config->health, health::HealthSettings{});
  const LoadResult result = load(R"(
health:
  enabled: false
  interval: 30s
  symbol_errors_per_second: 5
  symbol_errors_per_hour: 60
  link_flaps_per_10m: 4
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const health::HealthSettings& health = result.config->health;
  EXPECT_FALSE(health.enabled);
  EXPECT_EQ(health.interval, std::chrono::seconds(30));
  EXPECT_EQ(health.symbol_errors_per_second, 5u);
  EXPECT_EQ(health.symbol_errors_per_hour, 60u);
  EXPECT_EQ(health.link_flaps_per_10m, 4u);
}

TEST(ConfigLoad, ProbeKeysLandInTheirSectionAndProbingIsOffUnlessSwitchedOn) {
  const LoadResult defaults = load("");
  ASSERT_TRUE(defaults.ok()) << test::all_text(defaults);
  EXPECT_EQ(defaults.config->probe, probe::ProbeSettings{});
  EXPECT_FALSE(defaults.config->probe.enabled);
  const LoadResult result = load(R"(
probe:
  enabled: true
  peers:
    - {address: 10.1.0.2, group: tor1}
    - {address: "fd00::7", group: tor2}
  rate: 20
  budget: 400
  loss_ratio: 0.05
  rtt_p99: 300us
  window: 1m
  timeout: 500ms
  q_key: 0x11223344
  self_probe: false
  service_port: 7000
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const probe::ProbeSettings& probe = result.config->probe;
  EXPECT_TRUE(probe.enabled);
  const std::vector<probe::ProbePeer> peers{{"10.1.0.2", "tor1"}, {"fd00::7", "tor2"}};
  EXPECT_EQ(probe.peers, peers);
  EXPECT_EQ(probe.rate, 20);
  EXPECT_EQ(probe.budget, 400);
  EXPECT_EQ(probe.loss_ratio, 0.05);
  EXPECT_EQ(probe.rtt_p99, std::chrono::microseconds(300));
  EXPECT_EQ(probe.window, std::chrono::seconds(60));
  EXPECT_EQ(probe.timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(probe.q_key, 0x11223344u);
  EXPECT_FALSE(probe.self_probe);
  EXPECT_EQ(probe.service_port, 7000);
}

TEST(ConfigLoad, WatchdogActionsPerDirection) {
  const auto both = load(
      "watchdog: {action: {rx: disable-pfc, tx: stall-prevention},\n"
      "           stall_prevention_timeout: 200ms}\n");
  ASSERT_TRUE(both.ok()) << test::all_text(both);
  EXPECT_EQ(both.config->watchdog.rx_action, watchdog::WatchdogAction::disable_pfc);
  EXPECT_EQ(both.config->watchdog.tx_action, watchdog::WatchdogAction::stall_prevention);
  EXPECT_EQ(both.config->watchdog.stall_prevention_timeout, std::chrono::milliseconds(200));
  // A single stall-prevention is for TX storms; RX storms are only alerted.
  const auto single = load("watchdog: {action: stall-prevention}\n");
  ASSERT_TRUE(single.ok()) << test::all_text(single);
  EXPECT_EQ(single.config->watchdog.rx_action, watchdog::WatchdogAction::alert);
  EXPECT_EQ(single.config->watchdog.tx_action, watchdog::WatchdogAction::stall_prevention);
  // Only one side named: the other stays alert.
  const auto rx_only = load("watchdog: {action: {rx: disable-pfc}}\n");
  ASSERT_TRUE(rx_only.ok()) << test::all_text(rx_only);
  EXPECT_EQ(rx_only.config->watchdog.tx_action, watchdog::WatchdogAction::alert);
}

TEST(ConfigLoad, EveryKeyLandsInTheProfile) {
  const LoadResult result = load(R"(
ports:
  drivers: [mlx5_core]
  netdevs: ["ens*", lan3]
  exclude: [lan5]
profile:
  dcbx: host
  trust: dscp
  dscp_map: {26: 3, 48: 6, 10: 5}
  pfc:
    priorities: [3]
    cable_length: 30
  ets:
    prio_tc: [0, 0, 1, 3, 4, 5, 6, 7]
    tcs:
      0: {tsa: ets, bandwidth: 30}
      1: {bandwidth: 0}
      2: {tsa: vendor}
  mtu: 4200
  ecn:
    priorities: [3]
    cnp_dscp: 48
    cnp_priority: 6
    dcqcn: {rp_ai_rate: 5, np_min_time_between_cnps: 0x4}
  stall_prevention: 500
  roce:
    rdma_cm_mode: v1
    tos: 106
    gid_family: ipv6
    gid_index: 3
  buffers:
    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]
    size: [262144, 262144, 0, 0, 0, 0, 0, 0]
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const Config& c = *result.config;
  EXPECT_EQ(c.ports.netdevs, (std::vector<std::string>{"ens*", "lan3"}));
  EXPECT_EQ(c.ports.exclude, std::vector<std::string>{"lan5"});
  const Profile& p = c.profile;
  EXPECT_EQ(p.dscp_map[10], 5);
  EXPECT_EQ(p.dscp_map[26], 3);
  EXPECT_EQ(p.dscp_map[11], 1);  // untouched: d >> 3
  EXPECT_EQ(p.pfc_priorities, 1u << 3);
  EXPECT_EQ(p.cable_length_m, 30);
  EXPECT_EQ(p.ets.prio_tc, (std::array<uint8_t, 8>{0, 0, 1, 3, 4, 5, 6, 7}));
  EXPECT_EQ(p.ets.tsa[0], dcb::Tsa::Ets);
  EXPECT_EQ(p.ets.bandwidth[0], 30);
  EXPECT_EQ(p.ets.tsa[1], dcb::Tsa::Ets);  // no tsa: ets
  EXPECT_EQ(p.ets.bandwidth[1], 0);
  EXPECT_EQ(p.ets.tsa[2], dcb::Tsa::Vendor);
  EXPECT_EQ(p.ets.bandwidth[2], 0);
  EXPECT_EQ(p.ets.tsa[6], dcb::Tsa::Strict);  // not given: the default
  EXPECT_EQ(p.ets.bandwidth[3], 50);
  EXPECT_EQ(p.mtu, 4200u);
  EXPECT_EQ(p.ecn.enabled_priorities, std::optional<uint8_t>(1u << 3));
  EXPECT_EQ(p.ecn.dcqcn,
            (std::map<std::string, uint64_t>{{"rp_ai_rate", 5}, {"np_min_time_between_cnps", 4}}));
  EXPECT_EQ(p.stall_prevention.mode, StallPrevention::Mode::Manual);
  EXPECT_EQ(p.stall_prevention.tunable_value(), 500);
  EXPECT_EQ(p.roce.rdma_cm_mode, "IB/RoCE v1");
  EXPECT_EQ(p.roce.gid_family, "ipv6");
  EXPECT_EQ(p.roce.gid_index, std::optional<int>(3));
  ASSERT_TRUE(p.buffers.has_value());
  EXPECT_EQ(p.buffers->prio2buffer[3], 1);
  EXPECT_EQ(p.buffers->buffer_size[1], 262144u);
}

TEST(ConfigLoad, StallPreventionWords) {
  EXPECT_EQ(load("profile: {stall_prevention: 'off'}").config->profile.stall_prevention.mode,
            StallPrevention::Mode::Off);
  EXPECT_EQ(load("profile: {stall_prevention: auto}").config->profile.stall_prevention.mode,
            StallPrevention::Mode::Auto);
}

TEST(ConfigOverrides, MergeOverTheProfileAndFirstMatchWins) {
  const LoadResult result = load(R"(
profile:
  mtu: 9000
  pfc: {cable_length: 10}
  ecn: {dcqcn: {rp_ai_rate: 5}}
overrides:
  lan5:
    mtu: 4200
    ecn: {dcqcn: {rp_hai_rate: 50}}
  "lan*":
    pfc: {cable_length: 3}
    buffers:
      prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]
      size: [262144, 262144, 0, 0, 0, 0, 0, 0]
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const Config& c = *result.config;
  ASSERT_EQ(c.overrides.size(), 2u);
  const Profile& lan5 = c.profile_for("lan5");
  EXPECT_EQ(lan5.mtu, 4200u);
  EXPECT_EQ(lan5.cable_length_m, 10);  // from profile, not from the later "lan*"
  EXPECT_EQ(lan5.ecn.dcqcn,
            (std::map<std::string, uint64_t>{{"rp_ai_rate", 5}, {"rp_hai_rate", 50}}));
  EXPECT_FALSE(lan5.buffers.has_value());
  const Profile& lan3 = c.profile_for("lan3");
  EXPECT_EQ(lan3.mtu, 9000u);
  EXPECT_EQ(lan3.cable_length_m, 3);
  EXPECT_TRUE(lan3.buffers.has_value());
  const Profile& eth0 = c.profile_for("eth0");
  EXPECT_EQ(&eth0, &c.profile);
  EXPECT_EQ(eth0.cable_length_m, 10);
}

TEST(ConfigOverrides, AnEmptyValueUnsetsAnOptionalSetting) {
  const LoadResult result = load(R"(
profile:
  roce: {gid_index: 3}
  buffers: {prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0], size: [65536, 262144, 0, 0, 0, 0, 0, 0]}
overrides:
  lan5:
    roce: {gid_index: }
    buffers:
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  EXPECT_TRUE(result.config->profile.buffers.has_value());
  EXPECT_FALSE(result.config->profile_for("lan5").buffers.has_value());
  EXPECT_FALSE(result.config->profile_for("lan5").roce.gid_index.has_value());
}

TEST(ConfigSelection, DriversNetdevsAndExclude) {
  const LoadResult result = load(R"(
ports:
  netdevs: ["ens*", lan3]
  exclude: [ens9]
)");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const PortSelection& ports = result.config->ports;
  EXPECT_TRUE(ports.selects("ens1", "mlx5_core"));
  EXPECT_TRUE(ports.selects("lan3", "mlx5_core"));
  EXPECT_FALSE(ports.selects("lan4", "mlx5_core"));
  EXPECT_FALSE(ports.selects("ens9", "mlx5_core"));
  EXPECT_FALSE(ports.selects("ens1", "ice"));
  // The default drivers: an rxe-backed veth is not mlx5's, by either driver.
  EXPECT_FALSE(ports.selects("ens1", "", "rxe"));
}

// A VF, a representor or a sub-function runs on mlx5_core too, but only an exact name selects
// it: "*" on a node with SR-IOV must not put DCB, MTU and stall prevention on every function.
TEST(ConfigSelection, FunctionsOfAPortOnlyByTheirExactName) {
  const LoadResult result = load("ports:\n  netdevs: [\"*\", lan2v1]\n");
  ASSERT_TRUE(result.ok()) << test::all_text(result);
  const PortSelection& ports = result.config->ports;
  DiscoveredPort uplink{"lan2", "mlx5_core", "0000:17:00.0", "mlx5_0", 1, "mlx5_core", true};
  EXPECT_TRUE(ports.selects(uplink));
  for (const PortRole role : {PortRole::Vf, PortRole::Representor, PortRole::SubFunction}) {
    DiscoveredPort function = uplink;
    function.netdev = "lan2v0";
    function.role = role;
    EXPECT_FALSE(ports.selects(function)) << kPortRoleNames.name(role);
    function.netdev = "lan2v1";
    EXPECT_TRUE(ports.selects(function)) << kPortRoleNames.name(role);
  }
}

// `drivers` names the netdev's driver or its RDMA device's: rxe selects the veths it runs on.
TEST(ConfigSelection, DriversMatchTheRdmaDriverToo) {
  const LoadResult rxe = load("ports:\n  drivers: [rxe]\n  netdevs: [\"*\"]\n");
  ASSERT_TRUE(rxe.ok()) << test::all_text(rxe);
  EXPECT_TRUE(rxe.config->ports.selects("veth0", "", "rxe"));
  EXPECT_TRUE(rxe.config->ports.selects("veth1", "", "rxe"));
  EXPECT_FALSE(rxe.config->ports.selects("veth2", ""));  // no RDMA device
  EXPECT_FALSE(rxe.config->ports.selects("lan2", "mlx5_core", "mlx5_core"));
  EXPECT_FALSE(rxe.config->ports.selects("ens1", "ice", "irdma"));
  EXPECT_CONFIG_WARNING(rxe, 2, 13, "ports.drivers",
                        "'rxe' is not mlx5_core: its ports get the MTU, rdma_cm defaults, GID "
                        "checks and telemetry; the mlx5-only settings (DCB, buffers, stall "
                        "prevention, ECN/DCQCN) are reported unsupported on them");

  const LoadResult one = load("ports:\n  drivers: [rxe]\n  netdevs: [veth0]\n");
  ASSERT_TRUE(one.ok()) << test::all_text(one);
  EXPECT_TRUE(one.config->ports.selects("veth0", "", "rxe"));
  EXPECT_FALSE(one.config->ports.selects("veth1", "", "rxe"));

  // Either driver may be the one named: irdma's netdev is ice's.
  const LoadResult irdma = load("ports:\n  drivers: [mlx5_core, irdma]\n  netdevs: [\"*\"]\n");
  ASSERT_TRUE(irdma.ok()) << test::all_text(irdma);
  EXPECT_TRUE(irdma.config->ports.selects("ens1", "ice", "irdma"));
  EXPECT_TRUE(irdma.config->ports.selects("lan2", "mlx5_core", "mlx5_core"));
  EXPECT_FALSE(irdma.config->ports.selects("ens2", "ice"));
}

TEST(ConfigTypes, RangesAndTypesAtTheirPlace) {
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    priorities: [3, 9]\n"), 3, 21,
                      "profile.pfc.priorities", "9 is not a priority (0-7)");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    priorities: [three]\n"), 3, 18,
                      "profile.pfc.priorities", "'three' is not an integer");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    priorities: 3\n"), 3, 17,
                      "profile.pfc.priorities", "expected a list of priorities");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    priorities: [3, 4, 3]\n"), 3, 24,
                      "profile.pfc.priorities", "priority 3 is listed twice");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc: {cable_length: 0}\n"), 2, 23,
                      "profile.pfc.cable_length", "(1-999");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc: {cable_length: 1000}\n"), 2, 23,
                      "profile.pfc.cable_length", "1000 is not a cable length");
  EXPECT_CONFIG_ERROR(load("profile:\n  dscp_map: {64: 3}\n"), 2, 14, "profile.dscp_map",
                      "64 is not a DSCP value (0-63)");
  EXPECT_CONFIG_ERROR(load("profile:\n  dscp_map: {26: 8}\n"), 2, 18, "profile.dscp_map.26",
                      "8 is not a priority (0-7)");
  EXPECT_CONFIG_ERROR(load("profile:\n  roce: {tos: 256}\n"), 2, 15, "profile.roce.tos",
                      "256 is not a ToS byte (0-255");
  EXPECT_CONFIG_ERROR(load("profile:\n  roce: {gid_index: -1}\n"), 2, 21, "profile.roce.gid_index",
                      "-1 is not a GID index (0-255)");
  EXPECT_CONFIG_ERROR(load("profile:\n  roce: {gid_family: ipv5}\n"), 2, 22,
                      "profile.roce.gid_family", "did you mean 'ipv4'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  mtu: 67\n"), 2, 8, "profile.mtu",
                      "67 is not an MTU in bytes (68-9978)");
  EXPECT_CONFIG_ERROR(load("profile:\n  mtu: 9979\n"), 2, 8, "profile.mtu", "9979 is not");
  EXPECT_CONFIG_ERROR(load("profile:\n  mtu: 9000.5\n"), 2, 8, "profile.mtu",
                      "'9000.5' is not an integer");
  EXPECT_CONFIG_ERROR(load("profile:\n  mtu:\n"), 2, 3, "profile.mtu", "got nothing");
  EXPECT_CONFIG_ERROR(load("profile:\n  stall_prevention: 79\n"), 2, 21, "profile.stall_prevention",
                      "79 is not off, auto or a timeout in ms");
  EXPECT_CONFIG_ERROR(load("profile:\n  stall_prevention: 8001\n"), 2, 21,
                      "profile.stall_prevention", "(80-8000)");
  EXPECT_CONFIG_ERROR(load("profile:\n  stall_prevention: atuo\n"), 2, 21,
                      "profile.stall_prevention", "did you mean 'auto'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  dcbx: hots\n"), 2, 9, "profile.dcbx",
                      "'hots' is not one of host | firmware (did you mean 'host'?)");
  EXPECT_CONFIG_ERROR(load("profile:\n  trust: ip\n"), 2, 10, "profile.trust",
                      "is not one of dscp | pcp");
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn: {cnp_dscp: 64}\n"), 2, 19, "profile.ecn.cnp_dscp",
                      "64 is not a DSCP value");
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn: {cnp_priority: 8}\n"), 2, 23,
                      "profile.ecn.cnp_priority", "8 is not a priority");
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn: {dcqcn: {rp_ai_rate: 4294967296}}\n"), 2, 29,
                      "profile.ecn.dcqcn.rp_ai_rate", "is not a knob value");
}

TEST(ConfigTypes, EtsListsAndTrafficClasses) {
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    prio_tc: [0, 1, 2, 3, 4, 5, 6]\n"), 3, 14,
                      "profile.ets.prio_tc", "needs 8 entries");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    prio_tc: [0, 1, 2, 3, 4, 5, 6, 8]\n"), 3, 36,
                      "profile.ets.prio_tc", "8 is not a traffic class (0-7)");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      8: {tsa: strict}\n"), 4, 7,
                      "profile.ets.tcs", "8 is not a traffic class");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: ets, bandwidth: 101}\n"), 4,
                      32, "profile.ets.tcs.3.bandwidth", "101 is not a bandwidth share");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      6: {tsa: strict, bandwidth: 5}\n"), 4,
                      35, "profile.ets.tcs.6.bandwidth", "a strict TC takes no bandwidth");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: ets}\n"), 4, 10,
                      "profile.ets.tcs.3", "an ets TC needs a bandwidth");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: cbs}\n"), 4, 16,
                      "profile.ets.tcs.3.tsa", "mlx5 does not implement the cbs TSA");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: stirct}\n"), 4, 16,
                      "profile.ets.tcs.3.tsa", "did you mean 'strict'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: 50\n"), 4, 10, "profile.ets.tcs.3",
                      "expected {tsa:");
}

TEST(ConfigTypes, BuffersNeedBothListsOfEight) {
  EXPECT_CONFIG_ERROR(load("profile:\n  buffers:\n    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]\n"), 3,
                      5, "profile.buffers", "needs both prio2buffer and size (size is missing)");
  EXPECT_CONFIG_ERROR(load("profile:\n  buffers:\n    prio2buffer: [0, 0, 0, 1, 0, 0, 0, 0]\n"
                           "    size: [1, 2, 3, 4, 5, 6, 7, 8, 9]\n"),
                      4, 11, "profile.buffers.size", "needs 8 entries");
  EXPECT_CONFIG_ERROR(load("profile:\n  buffers:\n    prio2buffer: [0, 0, 0, 8, 0, 0, 0, 0]\n"
                           "    size: [262144, 262144, 0, 0, 0, 0, 0, 0]\n"),
                      3, 28, "profile.buffers.prio2buffer", "8 is not a buffer (0-7)");
}

TEST(ConfigKeys, UnknownKeysAtEveryLevelWithASuggestion) {
  EXPECT_CONFIG_ERROR(load("profle:\n  mtu: 9000\n"), 1, 1, "profle",
                      "unknown key 'profle' at the top level (did you mean 'profile'?)");
  EXPECT_CONFIG_ERROR(load("ports:\n  netdev: [lan3]\n"), 2, 3, "ports.netdev",
                      "did you mean 'netdevs'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    priorites: [3]\n"), 3, 5, "profile.pfc.priorites",
                      "unknown key 'priorites' in profile.pfc (did you mean 'priorities'?)");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc:\n    cable-length: 7\n"), 3, 5,
                      "profile.pfc.cable-length", "did you mean 'cable_length'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  roce:\n    tso: 106\n"), 3, 5, "profile.roce.tso",
                      "did you mean 'tos'?");
  EXPECT_CONFIG_ERROR(load("profile:\n  ets:\n    tcs:\n      3: {tsa: ets, bw: 50}\n"), 4, 21,
                      "profile.ets.tcs.3.bw", "unknown key 'bw'");
  EXPECT_CONFIG_ERROR(load("overrides:\n  lan5:\n    mtuu: 4200\n"), 3, 5, "overrides.lan5.mtuu",
                      "did you mean 'mtu'?");
  const LoadResult far_off = load("profile:\n  colour: blue\n");
  EXPECT_CONFIG_ERROR(far_off, 2, 3, "profile.colour", "unknown key 'colour' in profile");
  EXPECT_EQ(far_off.diagnostics.at(0).message.find("did you mean"), std::string::npos);
}

TEST(ConfigKeys, DcqcnKnobNamesAreChecked) {
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn:\n    dcqcn: {rp_ai_rte: 5}\n"), 3, 13,
                      "profile.ecn.dcqcn.rp_ai_rte",
                      "unknown DCQCN knob 'rp_ai_rte' (did you mean 'rp_ai_rate'?)");
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn:\n    dcqcn: {rpg_ai_rate: 5}\n"), 3, 13,
                      "profile.ecn.dcqcn.rpg_ai_rate", "upstream cc_params names");
  EXPECT_CONFIG_ERROR(load("profile:\n  ecn:\n    dcqcn: {np_cnp_dscp: 48}\n"), 3, 13,
                      "profile.ecn.dcqcn.np_cnp_dscp", "set by ecn.cnp_dscp");
}

TEST(ConfigKeys, DuplicateKeysAreErrors) {
  EXPECT_CONFIG_ERROR(load("profile:\n  mtu: 9000\n  mtu: 4200\n"), 3, 3, "profile.mtu",
                      "duplicate key 'mtu' (first at line 2)");
}

// What a person can act on first, yaml-cpp's words after it.
TEST(ConfigSyntax, CommonMistakesAreSaidInPlainWords) {
  EXPECT_CONFIG_ERROR(load("profile:\n\tmtu: 9000\n"), 2, 1, "",
                      "a tab in the indentation: YAML indents with spaces only (YAML syntax "
                      "error: ");
  EXPECT_CONFIG_ERROR(load("ports:\n  netdevs: [lan2\nprofile: {mtu: 9000}\n"), 2, 12, "",
                      "this '[' is never closed by a ']' (YAML syntax error: ");
  EXPECT_CONFIG_ERROR(load("profile: {mtu: 9000\n"), 1, 10, "",
                      "this '{' is never closed by a '}'");
  EXPECT_CONFIG_ERROR(load("profile:\n  pfc: {priorities: [3}\n"), 2, 23, "",
                      "this '}' closes the '[' at line 2, column 21, which wants a ']'");
  // A bracket in a comment or a quoted string is no bracket; an apostrophe opens no string.
  EXPECT_CONFIG_ERROR(load("profile: {roce: {note: don't [}\n"), 1, 31, "",
                      "this '}' closes the '['");
  EXPECT_CONFIG_ERROR(load("# [ignored\nprofile: {roce: {tos: \"[\"}\n"), 2, 10, "",
                      "this '{' is never closed");
}

TEST(ConfigSyntax, BytesThatAreNotTextAreSaidToBeSo) {
  EXPECT_CONFIG_ERROR(load(std::string("profile:\n  mtu: 9\0\0\n", 20)), 2, 9, "",
                      "byte 0x00 is a control character, not text: roced.yaml is a UTF-8 text");
  EXPECT_CONFIG_ERROR(load("# \xc3\xa9\x7f\x01\n"), 1, 5, "", "byte 0x01 is a control character");
  // UTF-8 text, and UTF-16 with its byte order mark (what some editors save), are read.
  const LoadResult utf8 = load("ports: {netdevs: [lan2]}  # \xc3\xa9t\xc3\xa9\n");
  EXPECT_TRUE(utf8.ok()) << test::all_text(utf8);
  std::string utf16 = "\xff\xfe";
  for (const char c : std::string("ports: {netdevs: [lan2]}\n")) utf16 += std::string{c, '\0'};
  const LoadResult wide = load_string(utf16, "t.yaml");
  ASSERT_TRUE(wide.ok()) << test::all_text(wide);
  EXPECT_EQ(wide.config->ports.netdevs, std::vector<std::string>{"lan2"});
}

TEST(ConfigSyntax, YamlErrorsGiveTheirOwnPlace) {
  const LoadResult result = load("profile:\n  pfc: {priorities: [3}\n");
  ASSERT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].line, 2);
  EXPECT_GT(result.diagnostics[0].column, 0);
  EXPECT_NE(result.diagnostics[0].message.find("YAML syntax error"), std::string::npos);
  const LoadResult tab = load("profile:\n\tmtu: 9000\n");
  ASSERT_FALSE(tab.ok());
  EXPECT_EQ(tab.diagnostics.at(0).line, 2);
}

TEST(ConfigSyntax, OneDocumentAndAMappingAtTheTop) {
  EXPECT_CONFIG_ERROR(load("profile: {}\n---\nprofile: {}\n"), 3, 1, "", "a second YAML document");
  EXPECT_CONFIG_ERROR(load("- mtu: 9000\n"), 1, 1, "", "expected a mapping");
  EXPECT_CONFIG_ERROR(load("profile: [mtu]\n"), 1, 10, "profile", "expected a mapping");
}

// Found by fuzz/config_fuzz: yaml-cpp 0.7's LoadAll never returns on this stream, allocating a
// document a turn (jbeder/yaml-cpp#1040); the loader reads two documents at most.
TEST(ConfigSyntax, StreamThatYamlCppLoadAllNeverEndsIsAnError) {
  const LoadResult result = load("[]\n,x");
  ASSERT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].severity, Diagnostic::Severity::Error);
  EXPECT_EQ(result.diagnostics[0].line, 2);
  EXPECT_NE(result.diagnostics[0].message.find("second YAML document"), std::string::npos);
}

TEST(ConfigSelectionRules, NamesAndPatterns) {
  EXPECT_CONFIG_ERROR(load("ports:\n  netdevs: [averyveryverylongname0]\n"), 2, 13, "ports.netdevs",
                      "at most 15 characters");
  EXPECT_CONFIG_ERROR(load("ports:\n  exclude: [\"lan 3\"]\n"), 2, 13, "ports.exclude",
                      "not an interface name");
  EXPECT_CONFIG_ERROR(load("ports:\n  netdevs: lan3\n"), 2, 12, "ports.netdevs",
                      "expected a list of interface names");
  EXPECT_CONFIG_WARNING(load("ports:\n  drivers: [mlx5_core, ice]\n"), 2, 24, "ports.drivers",
                        "'ice' is not mlx5_core");
  EXPECT_CONFIG_WARNING(load("ports:\n  drivers: []\n"), 2, 3, "ports.drivers",
                        "ports of every driver");
  EXPECT_CONFIG_WARNING(load("ports:\n  netdevs: [lan3, lan5]\n  exclude: [lan5]\n"), 3, 13,
                        "ports.exclude", "lan5 is both in netdevs and in exclude");
  EXPECT_CONFIG_WARNING(load("ports:\n  netdevs: [lan3]\noverrides:\n  lan4: {mtu: 9000}\n"), 4, 3,
                        "overrides.lan4", "never applies");
  EXPECT_CONFIG_WARNING(load("overrides:\n  \"lan*\": {mtu: 9000}\n  lan4: {mtu: 4200}\n"), 3, 3,
                        "overrides.lan4", "already matches the earlier override 'lan*'");
}

// A string where the list belongs is one error, not also the "empty" warning of a file that
// names no port: the operator named one, in the wrong shape.
TEST(ConfigSelectionRules, AStringForNetdevsIsOnlyATypeError) {
  const LoadResult result = load("ports:\n  netdevs: \"lan*\"\n");
  EXPECT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 1u) << test::all_text(result);
  EXPECT_NE(result.diagnostics[0].message.find("expected a list of interface names"),
            std::string::npos)
      << test::all_text(result);
}

TEST(ConfigFile, MissingFileNamesIt) {
  const LoadResult result = load_file("/nonexistent/roced.yaml");
  ASSERT_FALSE(result.ok());
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].file, "/nonexistent/roced.yaml");
  EXPECT_NE(result.diagnostics[0].message.find("No such file"), std::string::npos);
  EXPECT_EQ(result.diagnostics[0].to_string().rfind("/nonexistent/roced.yaml: ", 0), 0u);
  const LoadResult dir = load_file("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.diagnostics.at(0).message.find("directory"), std::string::npos);
}

TEST(ConfigFile, ErrorsNameTheFileLineColumnAndField) {
  const LoadResult result =
      load_string(test::naming_ports("profile:\n  pfc:\n    priorities: [9]\n"), "roced.yaml");
  ASSERT_EQ(result.diagnostics.size(), 1u);
  EXPECT_EQ(result.diagnostics[0].to_string(),
            "roced.yaml:3:18: profile.pfc.priorities: 9 is not a priority (0-7)");
}

TEST(ConfigFile, EveryProblemIsReportedInFileOrder) {
  const LoadResult result = load(R"(profile:
  mtu: 1500
  roce: {tos: 300}
  pfc: {priorities: [8]}
  ets:
    tcs:
      3: {tsa: ets, bandwidth: 40}
overrides:
  lan5: {mtu: 10}
)");
  ASSERT_FALSE(result.ok());
  std::vector<std::string> fields;
  for (const auto& d : result.diagnostics) fields.push_back(d.field);
  EXPECT_EQ(fields,
            (std::vector<std::string>{"profile.mtu", "profile.roce.tos", "profile.pfc.priorities",
                                      "profile.ets.tcs", "overrides.lan5.mtu"}))
      << test::all_text(result);
  for (size_t i = 1; i < result.diagnostics.size(); ++i) {
    EXPECT_LE(result.diagnostics[i - 1].line, result.diagnostics[i].line);
  }
}

}  // namespace
}  // namespace roced::config
