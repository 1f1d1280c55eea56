// SPDX-License-Identifier: Apache-2.0
// The cases: each states one thing mlx5 does (the driver function is named), asked through roced's
// own dcbnl and ethtool clients and read back. The read-only ones are rocectl qualify's checks, so
// what qualify asks a real NIC is first asked of roce-sim and the test module; the ones that change
// the port need a writable target.
#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"
#include "qualify/observe.hpp"
#include "qualify/read_checks.hpp"

namespace roced::conformance {

driver::Traits PortUnderTest::traits() {
  auto info = EthtoolClient(system()).driver_info(netdev());
  auto described = describe_netdev(*system().files, netdev());
  if (!info.ok() || !described.ok()) return {};
  return detect_driver(system(), *described, Field<DriverInfo>::of(*info)).value->traits;
}

namespace {

dcb::IeeeState read_dcb(PortUnderTest& port) {
  auto state = dcb::DcbClient(port.system()).get(port.netdev());
  EXPECT_TRUE(state.ok()) << state.error().message;
  return state.ok() ? *state : dcb::IeeeState{};
}

std::vector<std::string> stat_names(PortUnderTest& port) {
  auto names = StatsReader(port.system(), port.netdev()).names();
  EXPECT_TRUE(names.ok()) << names.error().message;
  return names.ok() ? *names : std::vector<std::string>{};
}

std::string carrier(PortUnderTest& port) {
  auto text = port.system().files->read("/sys/class/net/" + port.netdev() + "/carrier");
  return text.ok() ? text->substr(0, 1) : "?";
}

dcb::Pfc pfc_with(PortUnderTest& port, uint8_t mask, uint16_t delay) {
  dcb::Pfc pfc = read_dcb(port).pfc.value_or(dcb::Pfc{});
  pfc.enabled_mask = mask;
  pfc.delay = delay;
  return pfc;
}

// Sets the mask and waits out the link training it causes.
void set_pfc_mask(PortUnderTest& port, uint8_t mask) {
  const auto before = read_dcb(port).pfc;
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(dcb::DcbClient(port.system())
                  .set_pfc(port.netdev(), pfc_with(port, mask, before->delay))
                  .ok());
  ASSERT_TRUE(port.carrier_returns());
}

int error_code(const Result<void>& result) { return result.ok() ? 0 : result.error().code; }

// ---- read-only: rocectl qualify's own checks (qualify/read_checks.cpp) ----

// The check `id` of a read-only qualification of the port: passes, or skips when the port
// cannot answer it (no buffer commands, no stall prevention).
void expect_read_check_passes(PortUnderTest& port, const std::string& id) {
  auto described = describe_netdev(*port.system().files, port.netdev());
  ASSERT_TRUE(described.ok()) << described.error().message;
  const auto check =
      qualify::read_check(qualify::observe(port.system(), real_time(), *described), id);
  ASSERT_TRUE(check.has_value()) << "no check " << id;
  if (check->verdict == qualify::Verdict::CannotTell) GTEST_SKIP() << check->found;
  EXPECT_EQ(check->verdict, qualify::Verdict::Holds)
      << id << ": " << check->found << "\nassumes " << check->wanted;
}

// mlx5e_dcbnl_ieee_getpfc: pfc_cap = mlx5_max_tc() + 1.
TEST_P(Mlx5Port, PfcCapabilityIsEightPriorities) {
  expect_read_check_passes(port(), "pfc_capability");
}

// mlx5e_dcbnl_getdcbx: CEE and IEEE in firmware mode, the mode last set in host mode.
TEST_P(Mlx5Port, DcbxReportsBothVersions) { expect_read_check_passes(port(), "dcbx_versions"); }

// mlx5e_dcbnl_ieee_getets: ets_cap 8, each TC strict, ETS or vendor, priorities on TCs 0-7.
TEST_P(Mlx5Port, EtsReportsEightTrafficClassesOfKnownKinds) {
  expect_read_check_passes(port(), "ets_classes");
}

// mlx5e_get_sset_count, mlx5e_get_strings and mlx5e_get_ethtool_stats walk the same groups.
TEST_P(Mlx5Port, EveryStatisticHasOneNameAndAValue) {
  expect_read_check_passes(port(), "statistics_consistent");
}

// Whether the running kernel answers a mismatched statistics count with none: mainline
// 7b07be1ff1cb, in 6.19 and the stable lines from January 2026 (Debian's 6.1.192 and 6.12.107
// have it). Read from the package version Debian's /proc/version ends with; any other kernel is
// taken for the older kind.
bool kernel_checks_stats_count(PortUnderTest& port) {
  auto version = port.system().files->read("/proc/version");
  if (!version) return false;
  const size_t at = version->rfind(" Debian ");
  unsigned major = 0;
  unsigned minor = 0;
  unsigned patch = 0;
  if (at == std::string::npos ||
      std::sscanf(version->c_str() + at, " Debian %u.%u.%u", &major, &minor, &patch) != 3) {
    return false;
  }
  if (major > 6 || (major == 6 && minor >= 19)) return true;
  return major == 6 && ((minor == 1 && patch >= 192) || (minor == 12 && patch >= 107));
}

// net/ethtool/ioctl.c ethtool_get_stats and ethtool_get_strings: on a kernel that checks it, a
// caller's nonzero count that is not the set's answers a count of 0 and nothing else (so a
// reader that keeps its count learns of a change without overrunning its buffer); before, the
// driver's count and all of its values. 0 asks for the whole set on both.
TEST_P(Mlx5Port, AStatisticsReadOfAnotherCountAnswersNoneWhereTheKernelChecksIt) {
  const bool checks = kernel_checks_stats_count(port());
  const auto count = static_cast<uint32_t>(stat_names(port()).size());
  ASSERT_GT(count, 0u);
  EthtoolIoctl& ioctl = *port().system().ethtool;
  const auto stats_with = [&](uint32_t asked) {
    std::vector<uint8_t> bytes(sizeof(ethtool_stats) + (size_t{count} + 1) * sizeof(uint64_t));
    ethtool_stats header{};
    header.cmd = ETHTOOL_GSTATS;
    header.n_stats = asked;
    std::memcpy(bytes.data(), &header, sizeof header);
    EXPECT_TRUE(ioctl.call(port().netdev(), bytes, sizeof header).ok()) << asked;
    std::memcpy(&header, bytes.data(), sizeof header);
    return header.n_stats;
  };
  EXPECT_EQ(stats_with(count + 1), checks ? 0u : count);
  EXPECT_EQ(stats_with(count - 1), checks ? 0u : count);
  EXPECT_EQ(stats_with(count), count);
  EXPECT_EQ(stats_with(0), count);
  std::vector<uint8_t> bytes(sizeof(ethtool_gstrings) + (size_t{count} + 1) * ETH_GSTRING_LEN);
  ethtool_gstrings strings{};
  strings.cmd = ETHTOOL_GSTRINGS;
  strings.string_set = ETH_SS_STATS;
  strings.len = count + 1;
  std::memcpy(bytes.data(), &strings, sizeof strings);
  ASSERT_TRUE(ioctl.call(port().netdev(), bytes, sizeof strings).ok());
  std::memcpy(&strings, bytes.data(), sizeof strings);
  EXPECT_EQ(strings.len, checks ? 0u : count);
}

// mlx5e_grp_per_prio_pfc_fill_strings: the per-priority pause counters exist only for the
// priorities with PFC (pfc_combined).
TEST_P(Mlx5Port, PausePerPriorityCountersOnlyForPfcPriorities) {
  expect_read_check_passes(port(), "pause_counters_follow_pfc");
}

// en/port_buffer.c mlx5e_port_query_buffer: sizes are cells times the cell size.
TEST_P(Mlx5Port, BufferSizesAreWholeCells) { expect_read_check_passes(port(), "buffer_cells"); }

// mlx5e_get_pfc_prevention_tout: 0 (off) or the critical watermark, 80-8000 ms.
TEST_P(Mlx5Port, StallPreventionReadsOffOrWithinRange) {
  expect_read_check_passes(port(), "stall_prevention_range");
}

// en_ethtool.c mlx5e_ethtool_get_pauseparam never sets autoneg, and
// mlx5e_grp_per_prio_pfc_fill_strings lists the five global pause counters exactly while rx or
// tx global pause is on (mlx5e_query_global_pause_combined).
TEST_P(Mlx5Port, GlobalPauseIsNeverAutonegotiatedAndItsCountersFollowIt) {
  auto pause = EthtoolClient(port().system()).pause(port().netdev());
  ASSERT_TRUE(pause.ok()) << pause.error().message;
  EXPECT_FALSE(pause->autoneg);
  const auto names = stat_names(port());
  for (const char* name : {"rx_global_pause", "rx_global_pause_duration", "tx_global_pause",
                           "tx_global_pause_duration", "rx_global_pause_transition"}) {
    EXPECT_EQ(std::count(names.begin(), names.end(), name), pause->rx || pause->tx ? 1 : 0)
        << name << " with rx " << pause->rx << ", tx " << pause->tx;
  }
}

// ---- changing the port ----

// port.c mlx5_set_port_pause writes PFCC's pause bits alone (PFC stays),
// mlx5e_ethtool_set_pauseparam refuses autoneg (-EINVAL), and mlx5_set_port_pfc writes pptx/pprx 0
// with every new PFC mask.
TEST_P(Mlx5Port, GlobalPauseIsSetAloneAndAPfcMaskChangeTurnsItOff) {
  CONFORMANCE_REQUIRE_WRITES();
  EthtoolClient ethtool(port().system());
  const PauseParams on{false, true, true}, off{false, false, false};
  const auto before = read_dcb(port()).pfc;
  ASSERT_TRUE(before.has_value());
  ASSERT_TRUE(ethtool.set_pause(port().netdev(), on).ok());
  EXPECT_EQ(ethtool.pause(port().netdev()).value_or(off), on);
  EXPECT_EQ(read_dcb(port()).pfc->enabled_mask, before->enabled_mask);
  EXPECT_EQ(error_code(ethtool.set_pause(port().netdev(), PauseParams{true, true, true})), EINVAL);
  set_pfc_mask(port(), before->enabled_mask == 0x08 ? 0x18 : 0x08);
  EXPECT_EQ(ethtool.pause(port().netdev()).value_or(on), off);
  const auto names = stat_names(port());
  EXPECT_EQ(std::count(names.begin(), names.end(), "rx_global_pause"), 0);
}

// cong.c mlx5_ib_set_cc_param_mask_val: MLX5_SET keeps the field's low bits, so 70 written to the
// 6-bit cnp_dscp reads back 6; writing the CNP priority switches its mode to 0.
TEST_P(Mlx5Port, ADcqcnKnobKeepsTheLowBitsOfItsField) {
  CONFORMANCE_REQUIRE_WRITES();
  auto pci = port().system().files->read_link("/sys/class/net/" + port().netdev() + "/device");
  ASSERT_TRUE(pci.ok()) << pci.error().message;
  const std::string cc = "/sys/kernel/debug/mlx5/" + pci->filename().string() + "/cc_params/";
  FileTree& files = *port().system().files;
  if (!files.exists(cc)) GTEST_SKIP() << "no inbox cc_params on this port";
  const auto read = [&](const std::string& knob) {
    auto text = files.read(cc + knob);
    return text.ok() ? std::stoul(*text) : 999ul;
  };
  ASSERT_TRUE(files.write(cc + "np_cnp_dscp", "70\n").ok());
  EXPECT_EQ(read("np_cnp_dscp"), 6u);
  ASSERT_TRUE(files.write(cc + "np_cnp_prio", "5\n").ok());
  EXPECT_EQ(read("np_cnp_prio"), 5u);
  EXPECT_EQ(read("np_cnp_prio_mode"), 0u);
  ASSERT_TRUE(files.write(cc + "rp_clamp_tgt_rate", "3\n").ok());
  EXPECT_EQ(read("rp_clamp_tgt_rate"), 1u);
}

// mlx5e_dbcnl_validate_ets: ETS bandwidths must add up to 100.
TEST_P(Mlx5Port, EtsBandwidthsNotSummingTo100AreRefusedAndChangeNothing) {
  CONFORMANCE_REQUIRE_WRITES();
  const auto before = read_dcb(port()).ets;
  ASSERT_TRUE(before.has_value());
  dcb::Ets ets = *before;
  ets.tc_tsa.fill(dcb::Tsa::Ets);
  ets.tc_tx_bw = {50, 50, 50, 0, 0, 0, 0, 0};
  EXPECT_EQ(error_code(dcb::DcbClient(port().system()).set_ets(port().netdev(), ets)), EINVAL);
  EXPECT_EQ(read_dcb(port()).ets, before);
}

// mlx5e_dcbnl_ieee_setpfc: a new mask goes in with mlx5_toggle_port_link (the carrier drops
// while the link trains again); the same mask does not touch the link.
TEST_P(Mlx5Port, APfcMaskChangeFlapsTheLinkAndTheSameMaskDoesNot) {
  CONFORMANCE_REQUIRE_WRITES();
  ASSERT_TRUE(port().carrier_returns());
  const auto before = read_dcb(port()).pfc;
  ASSERT_TRUE(before.has_value());
  const uint8_t mask = before->enabled_mask == 0x08 ? 0x18 : 0x08;
  dcb::DcbClient client(port().system());
  ASSERT_TRUE(client.set_pfc(port().netdev(), pfc_with(port(), mask, before->delay)).ok());
  EXPECT_EQ(carrier(port()), "0");
  EXPECT_TRUE(port().carrier_returns());
  EXPECT_EQ(read_dcb(port()).pfc->enabled_mask, mask);
  ASSERT_TRUE(client.set_pfc(port().netdev(), pfc_with(port(), mask, before->delay)).ok());
  EXPECT_EQ(carrier(port()), "1");
}

// Mainline and MLNX_OFED (mlx5e_dcbnl_ieee_setpfc) keep a cable length of 1-999 m in the driver
// and ignore any other. nic-kernel (en/port_buffer.c mlx5e_port_set_cable_len) hands 0 to
// firmware with PCAM cable_length, or refuses it without, and refuses more than its maximum
// (roce-sim takes mainline's MLX5E_MAX_CABLE_LENGTH, 1000 m).
TEST_P(Mlx5Port, ACableLengthOutside1To999IsIgnoredOrRefused) {
  CONFORMANCE_REQUIRE_WRITES();
  const auto before = read_dcb(port()).pfc;
  ASSERT_TRUE(before.has_value());
  dcb::DcbClient client(port().system());
  const auto set = [&](uint16_t metres) {
    return error_code(
        client.set_pfc(port().netdev(), pfc_with(port(), before->enabled_mask, metres)));
  };
  ASSERT_EQ(set(25), 0);
  EXPECT_EQ(read_dcb(port()).pfc->delay, 25);
  const driver::CableLength home = port().traits().cable_length;
  if (home == driver::CableLength::Unknown) GTEST_SKIP() << "the tree's cable length is unknown";
  if (home == driver::CableLength::Driver) {
    for (uint16_t ignored : {uint16_t{0}, uint16_t{1000}}) {
      EXPECT_EQ(set(ignored), 0);
      EXPECT_EQ(read_dcb(port()).pfc->delay, 25) << "after " << ignored;
    }
    return;
  }
  EXPECT_EQ(set(1001), EINVAL);
  EXPECT_EQ(read_dcb(port()).pfc->delay, 25);
  const int zero = set(0);
  EXPECT_TRUE(zero == 0 || zero == EINVAL) << zero;
  EXPECT_EQ(read_dcb(port()).pfc->delay, zero == 0 ? 0 : 25);
}

// mlx5e_dcbnl_ieee_setapp / delapp: DSCP entries only; a delete must name the priority the DSCP
// maps to now (-ENOENT otherwise); the kernel's APP table holds what the driver accepted.
TEST_P(Mlx5Port, ADscpEntryIsDeletedOnlyWithItsOwnPriority) {
  CONFORMANCE_REQUIRE_WRITES();
  dcb::DcbClient client(port().system());
  const dcb::AppEntry entry{5, 3, 26};
  ASSERT_TRUE(client.add_apps(port().netdev(), {entry}).ok());
  auto apps = read_dcb(port()).apps;
  EXPECT_NE(std::find(apps.begin(), apps.end(), entry), apps.end());
  EXPECT_EQ(error_code(client.delete_apps(port().netdev(), {dcb::AppEntry{5, 4, 26}})), ENOENT);
  EXPECT_TRUE(client.delete_apps(port().netdev(), {entry}).ok());
  apps = read_dcb(port()).apps;
  EXPECT_EQ(std::find(apps.begin(), apps.end(), entry), apps.end());
  EXPECT_EQ(error_code(client.add_apps(port().netdev(), {dcb::AppEntry{1, 3, 0x8915}})), EINVAL);
}

// net/dcb/dcbnl.c dcbnl_ieee_set: every IEEE_SET is multicast on RTNLGRP_DCB as RTM_SETDCB with
// its command, whether the driver took it or not.
TEST_P(Mlx5Port, EveryIeeeSetIsNotifiedFailedOnesToo) {
  CONFORMANCE_REQUIRE_WRITES();
  auto socket = port().system().open_rtnl();
  ASSERT_TRUE(socket.ok()) << socket.error().message;
  ASSERT_TRUE((*socket)->join_group(RTNLGRP_DCB).ok());
  const auto before = read_dcb(port());
  ASSERT_TRUE(before.pfc && before.ets);
  dcb::DcbClient client(port().system());
  ASSERT_TRUE(client.set_pfc(port().netdev(), *before.pfc).ok());
  dcb::Ets refused = *before.ets;
  refused.tc_tsa.fill(dcb::Tsa::Ets);
  refused.tc_tx_bw = {90, 90, 0, 0, 0, 0, 0, 0};
  ASSERT_FALSE(client.set_ets(port().netdev(), refused).ok());
  int notified = 0;
  for (int reads = 0; reads < 20 && notified < 2; ++reads) {
    auto datagram = (*socket)->receive(std::chrono::milliseconds(500));
    ASSERT_TRUE(datagram.ok()) << datagram.error().message;
    if (datagram->empty()) break;
    size_t offset = 0;
    while (offset + sizeof(nlmsghdr) <= datagram->size()) {
      nlmsghdr header;
      std::memcpy(&header, datagram->data() + offset, sizeof header);
      if (header.nlmsg_len < sizeof header || offset + header.nlmsg_len > datagram->size()) break;
      if (header.nlmsg_type == RTM_SETDCB && header.nlmsg_len >= NLMSG_LENGTH(sizeof(dcbmsg))) {
        dcbmsg message;
        std::memcpy(&message, datagram->data() + offset + NLMSG_HDRLEN, sizeof message);
        EXPECT_EQ(message.cmd, DCB_CMD_IEEE_SET);
        ++notified;
      }
      offset += NLMSG_ALIGN(header.nlmsg_len);
    }
  }
  EXPECT_EQ(notified, 2);
}

// mlx5e_set_pfc_prevention_tout: auto is 100 ms, 0 off, otherwise 80-8000 ms.
TEST_P(Mlx5Port, StallPreventionTakesMlx5sRange) {
  CONFORMANCE_REQUIRE_WRITES();
  EthtoolClient ethtool(port().system());
  const std::string& netdev = port().netdev();
  auto now = ethtool.pfc_prevention_timeout(netdev);
  if (!now.ok() && now.error().code == EOPNOTSUPP) GTEST_SKIP() << "no stall prevention";
  for (uint16_t refused : {uint16_t{79}, uint16_t{8001}}) {
    EXPECT_EQ(error_code(ethtool.set_pfc_prevention_timeout(netdev, refused)), EINVAL) << refused;
  }
  ASSERT_TRUE(ethtool.set_pfc_prevention_timeout(netdev, 0xffff).ok());
  EXPECT_EQ(ethtool.pfc_prevention_timeout(netdev).value_or(0), 100);
  ASSERT_TRUE(ethtool.set_pfc_prevention_timeout(netdev, 0).ok());
  EXPECT_EQ(ethtool.pfc_prevention_timeout(netdev).value_or(1), 0);
  ASSERT_TRUE(ethtool.set_pfc_prevention_timeout(netdev, 500).ok());
  EXPECT_EQ(ethtool.pfc_prevention_timeout(netdev).value_or(0), 500);
}

// mlx5e_dcbnl_ieee_setmaxrate: 100 Mbit/s steps below 26 Gbit/s, whole Gbit/s above, in a u8
// that wraps past 255 (mainline before 6.1.159 and 6.12.63, MLNX_OFED), or is refused past it
// before anything is written (mainline since); nic-kernel holds a u16.
TEST_P(Mlx5Port, MaxrateStepsAndWhatComesPast255Gbits) {
  CONFORMANCE_REQUIRE_WRITES();
  dcb::DcbClient client(port().system());
  dcb::Maxrate rates;
  rates.tc_kbps = {1234567, 30500000, 0, 0, 0, 0, 0, 0};
  ASSERT_TRUE(client.set_maxrate(port().netdev(), rates).ok());
  const driver::Maxrate encoding = port().traits().maxrate;
  auto read = read_dcb(port()).maxrate;
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->tc_kbps[0], 1200000u);
  // A u16 counts 100 Mbit/s up to 6553.5 Gbit/s.
  EXPECT_EQ(read->tc_kbps[1], encoding == driver::Maxrate::U16 ? 30500000u : 30000000u);
  rates.tc_kbps[2] = 300000000;
  const int past = error_code(client.set_maxrate(port().netdev(), rates));
  read = read_dcb(port()).maxrate;
  ASSERT_TRUE(read.has_value());
  switch (encoding) {
    case driver::Maxrate::U8Wrapping:
      EXPECT_EQ(past, 0);
      EXPECT_EQ(read->tc_kbps[2], uint64_t{300 % 256} * 1000000);
      break;
    case driver::Maxrate::U8Checked:
      EXPECT_EQ(past, EINVAL);
      EXPECT_EQ(read->tc_kbps[2], 0u);
      break;
    case driver::Maxrate::U16:
      EXPECT_EQ(past, 0);
      EXPECT_EQ(read->tc_kbps[2], 300000000u);
      break;
    case driver::Maxrate::Unknown:
      GTEST_SKIP() << "the tree's rate cap encoding is unknown";
  }
}

// mlx5e_ethtool_set_channels: new channels get statistics for good (priv->stats_nch grows, and
// fewer channels later do not shrink the set).
TEST_P(Mlx5Port, MoreChannelsGrowTheStatisticsForGood) {
  CONFORMANCE_REQUIRE_WRITES();
  const size_t before = stat_names(port()).size();
  ethtool_channels channels{};
  channels.cmd = ETHTOOL_GCHANNELS;
  auto bytes = std::span(reinterpret_cast<uint8_t*>(&channels), sizeof channels);
  ASSERT_TRUE(port().system().ethtool->call(port().netdev(), bytes, sizeof channels).ok());
  const uint32_t was = channels.combined_count;
  ASSERT_GE(channels.max_combined, was + 2);
  channels.cmd = ETHTOOL_SCHANNELS;
  channels.combined_count = was + 2;
  ASSERT_TRUE(port().system().ethtool->call(port().netdev(), bytes, sizeof channels).ok());
  const size_t grown = stat_names(port()).size();
  EXPECT_GT(grown, before);
  channels.combined_count = was;
  ASSERT_TRUE(port().system().ethtool->call(port().netdev(), bytes, sizeof channels).ok());
  EXPECT_EQ(stat_names(port()).size(), grown);
}

// en/port_buffer.c port_set_buffer: sizes go to the register in cells, rounded down; a lossless
// buffer smaller than Xoff + max MTU + a cell is -ENOMEM after the PFC mask is already set
// (update_xoff_threshold). This leaves the port in manual buffer mode: it comes last. A tree
// that asks the firmware who owns the buffers sizes nothing when the firmware cannot say (no
// PCAM buffer_ownership), so there the PFC change goes through. nic-kernel sizes buffers its own
// way (roce-sim's NvidiaBuffer cases).
TEST_P(Mlx5Port, HostBuffersAreCellsAndAnEmptyLosslessBufferIsRefusedAfterTheMask) {
  CONFORMANCE_REQUIRE_WRITES();
  const driver::Traits traits = port().traits();
  if (traits.cable_length != driver::CableLength::Driver) {
    GTEST_SKIP() << "the port buffer code of a tree that keeps the cable length in the firmware";
  }
  set_pfc_mask(port(), 0);
  auto buffer = read_dcb(port()).buffer;
  if (!buffer) GTEST_SKIP() << "no buffer commands on this port";
  dcb::DcbClient client(port().system());
  buffer->buffer_size[0] = 100000;
  buffer->prio2buffer[3] = 2;  // buffer 2 is empty
  ASSERT_TRUE(client.set_buffer(port().netdev(), *buffer).ok());
  EXPECT_EQ(read_dcb(port()).buffer->buffer_size[0], 99968u);
  const int refused = error_code(client.set_pfc(port().netdev(), pfc_with(port(), 0x08, 7)));
  if (traits.buffer_recompute == driver::BufferRecompute::ManualFlag) {
    EXPECT_EQ(refused, ENOMEM);
  } else {
    EXPECT_TRUE(refused == ENOMEM || refused == 0) << refused;
  }
  EXPECT_EQ(read_dcb(port()).pfc->enabled_mask, 0x08);
}

}  // namespace
}  // namespace roced::conformance
