// SPDX-License-Identifier: Apache-2.0
// EthtoolClient against a fake ioctl that behaves like the kernel's ethtool core
// (net/ethtool/ioctl.c: replies sized by the count at the time of the call, copied into the
// caller's memory as roce-sim's transport copies them: EFAULT at a guard page, and a stop where
// the kernel would have overwritten memory after the buffer).
#include "ethtool/ethtool.hpp"

#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <roce_sim.h>

#include <array>
#include <cstring>
#include <functional>

#include "os/local_transports.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roced {
namespace {

class FakeEthtool final : public EthtoolIoctl {
 public:
  std::vector<NamedCounter> counters;
  uint16_t pfc_prevention_timeout = 0;
  std::function<void(uint32_t cmd)> before_call;  // lets a test change the set mid-read
  std::vector<uint32_t> commands;

  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override {
    if (ifname != "lan2") return Error::from_errno(ENODEV, ifname);
    uint32_t cmd = 0;
    std::memcpy(&cmd, buffer.data(), 4);
    commands.push_back(cmd);
    if (before_call) before_call(cmd);
    const uint32_t count = static_cast<uint32_t>(counters.size());
    switch (cmd) {
      case ETHTOOL_GDRVINFO: {
        ethtool_drvinfo info{};
        info.cmd = cmd;
        std::strcpy(info.driver, "mlx5_core");
        std::strcpy(info.version, "6.1.0");
        std::strcpy(info.fw_version, "28.39.1002 (MT_0000000838)");
        std::strcpy(info.bus_info, "0000:17:00.0");
        return put(buffer, &info, sizeof(info));
      }
      case ETHTOOL_GSSET_INFO: {
        EXPECT_EQ(in_len, sizeof(ethtool_sset_info));
        ethtool_sset_info info{};
        std::memcpy(&info, buffer.data(), sizeof(info));
        EXPECT_EQ(info.sset_mask, 1ull << ETH_SS_STATS);
        if (auto r = put(buffer, &info, sizeof(info)); !r) return r;
        std::span<uint8_t> rest = buffer.subspan(sizeof(info));
        return put(rest, &count, sizeof(count));
      }
      case ETHTOOL_GSTRINGS: {
        ethtool_gstrings header{};
        std::memcpy(&header, buffer.data(), sizeof(header));
        EXPECT_EQ(header.string_set, static_cast<uint32_t>(ETH_SS_STATS));
        header.len = count;  // the kernel's count, not the caller's
        std::vector<uint8_t> out(sizeof(header) + count * ETH_GSTRING_LEN, 0);
        std::memcpy(out.data(), &header, sizeof(header));
        for (uint32_t i = 0; i < count; ++i) {
          std::memcpy(out.data() + sizeof(header) + i * ETH_GSTRING_LEN, counters[i].name.c_str(),
                      std::min<size_t>(counters[i].name.size(), ETH_GSTRING_LEN - 1));
        }
        return put(buffer, out.data(), out.size());
      }
      case ETHTOOL_GSTATS: {
        ethtool_stats header{};
        header.cmd = cmd;
        header.n_stats = count;
        std::vector<uint8_t> out(sizeof(header) + count * 8);
        std::memcpy(out.data(), &header, sizeof(header));
        for (uint32_t i = 0; i < count; ++i) {
          std::memcpy(out.data() + sizeof(header) + i * 8, &counters[i].value, 8);
        }
        return put(buffer, out.data(), out.size());
      }
      case ETHTOOL_GTUNABLE:
      case ETHTOOL_STUNABLE: {
        ethtool_tunable header{};
        std::memcpy(&header, buffer.data(), sizeof(header));
        EXPECT_EQ(header.id, static_cast<uint32_t>(ETHTOOL_PFC_PREVENTION_TOUT));
        EXPECT_EQ(header.type_id, static_cast<uint32_t>(ETHTOOL_TUNABLE_U16));
        EXPECT_EQ(header.len, 2u);
        if (cmd == ETHTOOL_STUNABLE) {
          EXPECT_EQ(in_len, sizeof(header) + 2);
          uint16_t value = 0;
          std::memcpy(&value, buffer.data() + sizeof(header), 2);
          if (value != 0 && value != 0xffff && (value < 80 || value > 8000)) {
            return Error::from_errno(EINVAL, ifname);  // mlx5e_set_pfc_prevention_tout
          }
          pfc_prevention_timeout = value;
          return ok();
        }
        return put(buffer.subspan(sizeof(header)), &pfc_prevention_timeout, 2);
      }
      default:
        return Error::from_errno(EOPNOTSUPP, ifname);
    }
  }

 private:
  static Result<void> put(std::span<uint8_t> buffer, const void* data, size_t len) {
    roce_sim_ethtool_rep header{0, static_cast<uint32_t>(len)};
    std::vector<uint8_t> reply(sizeof(header) + len);
    std::memcpy(reply.data(), &header, sizeof(header));
    std::memcpy(reply.data() + sizeof(header), data, len);
    return roce_sim::decode_sim_ethtool_reply(reply, "lan2", buffer);
  }
};

System system_with(std::unique_ptr<FakeEthtool> fake, FakeEthtool*& handle) {
  handle = fake.get();
  System system;
  system.ethtool = std::move(fake);
  return system;
}

std::vector<NamedCounter> base_counters() {
  return {{"rx_prio3_bytes", 1000}, {"rx_prio3_packets", 10}, {"tx_prio3_bytes", 2000}};
}

TEST(EthtoolClient, DriverInfo) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  auto info = EthtoolClient(system).driver_info("lan2");
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->driver, "mlx5_core");
  EXPECT_EQ(info->firmware, "28.39.1002 (MT_0000000838)");
  EXPECT_EQ(info->bus_info, "0000:17:00.0");
  EXPECT_EQ(info->version, "6.1.0");
}

TEST(EthtoolClient, StatsPairNamesWithValues) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  fake->counters = base_counters();
  auto stats = EthtoolClient(system).stats("lan2");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  ASSERT_EQ(stats->size(), 3u);
  EXPECT_EQ((*stats)[2].name, "tx_prio3_bytes");
  EXPECT_EQ((*stats)[2].value, 2000u);
  EXPECT_EQ(fake->commands,
            (std::vector<uint32_t>{ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS}));
}

TEST(EthtoolClient, NamesAreReReadEveryCall) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  EthtoolClient client(system);
  fake->counters = base_counters();
  ASSERT_TRUE(client.stats("lan2").ok());
  // PFC enabled on priority 3: mlx5 inserts the pause counters, shifting every index after them.
  fake->counters.insert(fake->counters.begin() + 2, {"rx_prio3_pause", 77});
  auto stats = client.stats("lan2");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  ASSERT_EQ(stats->size(), 4u);
  EXPECT_EQ((*stats)[2].name, "rx_prio3_pause");
  EXPECT_EQ((*stats)[2].value, 77u);
  EXPECT_EQ((*stats)[3].name, "tx_prio3_bytes");
  EXPECT_EQ((*stats)[3].value, 2000u);
}

TEST(EthtoolClient, SetChangingBetweenStringsAndStatsIsRetriedOnce) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  fake->counters = base_counters();
  int stats_calls = 0;
  fake->before_call = [&](uint32_t cmd) {
    // PFC on priority 3 lands between GSTRINGS and GSTATS of the first attempt: 5 more counters.
    if (cmd == ETHTOOL_GSTATS && ++stats_calls == 1) {
      for (const char* name :
           {"rx_prio3_pause", "rx_prio3_pause_duration", "rx_prio3_pause_transition",
            "tx_prio3_pause", "tx_prio3_pause_duration"}) {
        fake->counters.push_back({name, 1});
      }
    }
  };
  auto stats = EthtoolClient(system).stats("lan2");
  ASSERT_TRUE(stats.ok()) << stats.error().message;
  EXPECT_EQ(stats->size(), 8u);
  EXPECT_EQ(stats->back().name, "tx_prio3_pause_duration");
  // GSSET_INFO, GSTRINGS, GSTATS (EFAULT at the guard page), and the three again.
  EXPECT_EQ(fake->commands.size(), 6u);
}

TEST(EthtoolClient, SetChangingOnEveryAttemptIsAnError) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  fake->counters = base_counters();
  fake->before_call = [&](uint32_t cmd) {
    if (cmd == ETHTOOL_GSTATS) fake->counters.push_back({"tx_prio3_pause", 1});
  };
  auto stats = EthtoolClient(system).stats("lan2");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, EAGAIN);
}

TEST(EthtoolClient, UnknownInterfaceKeepsTheErrno) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  auto stats = EthtoolClient(system).stats("nope0");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, ENODEV);
}

// Found by fuzz/ethtool_stats_fuzz: a statistics count no driver has (here 2^32 - 1) is refused
// before buffers are sized by it (that was a 137 GB allocation).
TEST(EthtoolClient, ImpossibleStatisticsCountIsRefused) {
  struct HugeCount final : EthtoolIoctl {
    Result<void> call(const std::string&, std::span<uint8_t> buffer, size_t) override {
      const uint32_t count = 0xffffffffu;
      std::memcpy(buffer.data() + sizeof(ethtool_sset_info), &count, sizeof(count));
      return ok();  // sset_mask is left as asked: ETH_SS_STATS
    }
  };
  System system;
  system.ethtool = std::make_unique<HugeCount>();
  auto stats = EthtoolClient(system).stats("lan2");
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, EBADMSG);
  EXPECT_NE(stats.error().message.find("4294967295 statistics"), std::string::npos);
  auto names = StatsReader(system, "lan2").names();
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().code, EBADMSG);
}

// Found by fuzz/ethtool_stats_fuzz: a roce-sim reply whose error is no errno (INT_MIN overflowed
// when negated) is EPROTO; a real errno is kept.
TEST(SimEthtoolReply, ErrorOutsideTheErrnoRangeIsAProtocolError) {
  for (const auto& [error, expected] :
       {std::pair{INT32_MIN, EPROTO}, {-4096, EPROTO}, {-ENODEV, ENODEV}}) {
    roce_sim_ethtool_rep header{error, 0};
    std::vector<uint8_t> reply(sizeof(header));
    std::memcpy(reply.data(), &header, sizeof(header));
    std::array<uint8_t, sizeof(ethtool_stats)> buffer{};
    auto decoded = roce_sim::decode_sim_ethtool_reply(reply, "lan2", buffer);
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.error().code, expected) << error;
  }
}

TEST(EthtoolClient, PfcPreventionTimeoutTunable) {
  FakeEthtool* fake = nullptr;
  System system = system_with(std::make_unique<FakeEthtool>(), fake);
  EthtoolClient client(system);
  fake->pfc_prevention_timeout = 8000;
  auto value = client.pfc_prevention_timeout("lan2");
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(*value, 8000);
  ASSERT_TRUE(client.set_pfc_prevention_timeout("lan2", 0xffff).ok());
  EXPECT_EQ(fake->pfc_prevention_timeout, 0xffff);
  auto bad = client.set_pfc_prevention_timeout("lan2", 50);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, EINVAL);
  EXPECT_EQ(fake->pfc_prevention_timeout, 0xffff);
}

}  // namespace
}  // namespace roced
