// SPDX-License-Identifier: Apache-2.0
// The SFF-8636 and CMIS decoders on pages built here byte by byte from the standard's offsets (not
// from roce-sim's module, so that the two are checked against each other only in the cross-checks),
// and the judgment of its readings against the module's own thresholds.
#include "health/transceiver.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace roced::health {
namespace {

using Bytes = std::vector<uint8_t>;

void put16(Bytes& page, size_t at, uint16_t value) {
  page[at] = static_cast<uint8_t>(value >> 8);
  page[at + 1] = static_cast<uint8_t>(value);
}

struct Pages {
  Bytes lower = Bytes(128, 0), upper = Bytes(128, 0), page3 = Bytes(128, 0);

  Pages() {
    lower[0] = 0x11;                           // QSFP28
    put16(lower, 22, 0x2680);                  // 38.5 C
    put16(lower, 26, 32900);                   // 3.29 V
    for (size_t lane = 0; lane < 4; ++lane) {  // 0.8 mW, 6.8 mA, 0.9 mW
      put16(lower, 34 + 2 * lane, 8000);
      put16(lower, 42 + 2 * lane, 3400);
      put16(lower, 50 + 2 * lane, 9000);
    }
    upper[0] = 0x11;
    const std::string vendor = "ACME OPTICS     ", part = "QSFP-100G-SR4   ";
    for (size_t i = 0; i < 16; ++i) {
      upper[148 - 128 + i] = static_cast<uint8_t>(vendor[i]);
      upper[168 - 128 + i] = static_cast<uint8_t>(part[i]);
      upper[196 - 128 + i] = static_cast<uint8_t>(i < 6 ? "SN0001"[i] : ' ');
    }
    upper[220 - 128] = 0x0C;    // average RX power; TX power measured
    put16(page3, 0, 80 * 256);  // temperature: 80, -10, 75, -5 C
    put16(page3, 2, static_cast<uint16_t>(-10 * 256));
    put16(page3, 4, 75 * 256);
    put16(page3, 6, static_cast<uint16_t>(-5 * 256));
    put16(page3, 16, 36300), put16(page3, 18, 29700), put16(page3, 20, 34650),
        put16(page3, 22, 31350);  // 3.63, 2.97, 3.465, 3.135 V
    put16(page3, 48, 21878), put16(page3, 50, 468), put16(page3, 52, 17378),
        put16(page3, 54, 933);  // RX: 3.4, -13.3, 2.4, -10.3 dBm
    put16(page3, 56, 6000), put16(page3, 58, 1000), put16(page3, 60, 5250),
        put16(page3, 62, 1500);  // bias: 12, 2, 10.5, 3 mA
    put16(page3, 64, 31623), put16(page3, 66, 2291), put16(page3, 68, 19953),
        put16(page3, 70, 3631);  // TX: 5, -6.4, 3, -4.4 dBm
  }
  std::optional<ModuleDiagnostics> decode() const { return decode_sff8636(lower, upper, page3); }
};

const Monitor& find(const ModuleDiagnostics& module, Quantity quantity, int lane = 0) {
  for (const Monitor& m : module.monitors) {
    if (m.quantity == quantity && m.lane == lane) return m;
  }
  throw std::runtime_error(std::string("no monitor ") + quantity_name(quantity));
}

TEST(Transceiver, DecodesTheMonitorsInSiUnits) {
  const auto module = Pages().decode();
  ASSERT_TRUE(module);
  EXPECT_EQ(module->vendor, "ACME OPTICS");
  EXPECT_EQ(module->part_number, "QSFP-100G-SR4");
  EXPECT_EQ(module->serial, "SN0001");
  EXPECT_TRUE(module->monitors_implemented);
  EXPECT_EQ(module->monitors.size(), 2u + 4 * 3);
  EXPECT_DOUBLE_EQ(find(*module, Quantity::temperature).value, 38.5);
  EXPECT_NEAR(find(*module, Quantity::supply_voltage).value, 3.29, 1e-9);
  EXPECT_NEAR(find(*module, Quantity::rx_power, 3).value, 0.8e-3, 1e-12);
  EXPECT_NEAR(find(*module, Quantity::tx_bias, 4).value, 6.8e-3, 1e-12);
  EXPECT_NEAR(find(*module, Quantity::tx_power, 1).value, 0.9e-3, 1e-12);
  const auto& rx = find(*module, Quantity::rx_power, 1).limits;
  ASSERT_TRUE(rx);
  EXPECT_NEAR(rx->low_alarm, 46.8e-6, 1e-12);
  EXPECT_NEAR(find(*module, Quantity::temperature).limits->low_alarm, -10, 1e-9);
  EXPECT_FALSE(judge_transceiver("lan2", *module));
}

TEST(Transceiver, NegativeTemperaturesAreSigned) {
  Pages pages;
  put16(pages.lower, 22, static_cast<uint16_t>(-3 * 256 - 128));  // -3.5 C
  EXPECT_DOUBLE_EQ(find(*pages.decode(), Quantity::temperature).value, -3.5);
}

TEST(Transceiver, ALaneBelowItsLowAlarmIsAnAlarmNamingIt) {
  Pages pages;
  put16(pages.lower, 36, 400);  // lane 2 at 40 uW: -13.98 dBm
  const auto module = pages.decode();
  EXPECT_EQ(excursion(find(*module, Quantity::rx_power, 2)), Excursion::alarm);
  const auto found = judge_transceiver("lan3", *module);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, kTransceiverAlarm.id);
  EXPECT_EQ(found->subject, "lan3");
  EXPECT_NE(found->text.find("rx_power lane 2 -13.98 dBm"), std::string::npos) << found->text;
  EXPECT_NE(found->text.find("ACME OPTICS QSFP-100G-SR4 (serial SN0001)"), std::string::npos);
}

TEST(Transceiver, BetweenWarningAndAlarmIsAWarning) {
  Pages pages;
  put16(pages.lower, 22, 77 * 256);  // 77 C: above 75, below 80
  const auto found = judge_transceiver("lan2", *pages.decode());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, kTransceiverWarning.id);
  EXPECT_NE(found->text.find("temperature 77.0 C"), std::string::npos) << found->text;
}

TEST(Transceiver, ALatchedFlagCountsAfterTheReadingIsBack) {
  Pages pages;
  pages.lower[10] = 0x04;  // lane 4 RX power low alarm latched (byte 10, low nibble)
  const auto module = pages.decode();
  const Monitor& lane4 = find(*module, Quantity::rx_power, 4);
  EXPECT_TRUE(lane4.latched_alarm);
  EXPECT_EQ(excursion(lane4), Excursion::alarm);
  EXPECT_EQ(excursion(find(*module, Quantity::rx_power, 3)), Excursion::none);
  pages.lower[10] = 0x10;  // lane 3 low warning latched (high nibble)
  EXPECT_EQ(excursion(find(*pages.decode(), Quantity::rx_power, 3)), Excursion::warning);
}

TEST(Transceiver, FlatMemoryHasNoThresholdsAndZeroThresholdsAreNone) {
  Pages pages;
  pages.lower[2] = 0x04;  // flat memory: no page 03h
  EXPECT_FALSE(has_threshold_page(pages.lower));
  EXPECT_FALSE(find(*pages.decode(), Quantity::rx_power, 1).limits);
  Pages unset;
  unset.page3.assign(128, 0);
  put16(unset.lower, 34, 0);  // no light, but no threshold to judge it by
  EXPECT_FALSE(find(*unset.decode(), Quantity::rx_power, 1).limits);
  EXPECT_FALSE(judge_transceiver("lan2", *unset.decode()));
}

TEST(Transceiver, ThresholdsOutOfOrderAreNoneAndAModuleNotReadyIsNoReading) {
  Pages erased;
  erased.page3.assign(128, 0xff);  // every limit 6.55 mW, 131 mA, -0.004 C: none at all
  EXPECT_FALSE(find(*erased.decode(), Quantity::rx_power, 1).limits);
  EXPECT_FALSE(find(*erased.decode(), Quantity::temperature).limits);
  EXPECT_FALSE(judge_transceiver("lan2", *erased.decode()));
  Pages swapped;
  put16(swapped.page3, 50, 20000);  // RX low alarm 2 mW: above the high warning
  EXPECT_FALSE(find(*swapped.decode(), Quantity::rx_power, 1).limits);
  EXPECT_TRUE(find(*swapped.decode(), Quantity::tx_bias, 1).limits);
  Pages starting;
  starting.lower[2] = 0x01;  // Data_Not_Ready: every monitor still reads 0
  put16(starting.lower, 34, 0);
  EXPECT_FALSE(starting.decode());
}

TEST(Transceiver, TxPowerOnlyWhereTheModuleMeasuresIt) {
  Pages pages;
  pages.upper[220 - 128] = 0x08;
  const auto module = pages.decode();
  EXPECT_EQ(module->monitors.size(), 2u + 4 * 2);
  EXPECT_FALSE(judge_transceiver("lan2", *module));  // its zero TX power is not an alarm
}

TEST(Transceiver, CopperCablesMonitorNothing) {
  Pages pages;
  pages.upper[147 - 128] = 0xA0;  // copper, unequalized
  const auto module = pages.decode();
  ASSERT_TRUE(module);
  EXPECT_FALSE(module->monitors_implemented);
  EXPECT_TRUE(module->monitors.empty());
}

TEST(Transceiver, ShortPagesAndOtherMemoryMapsAreNotDecoded) {
  Pages pages;
  EXPECT_FALSE(
      decode_sff8636(Bytes(pages.lower.begin(), pages.lower.end() - 1), pages.upper, pages.page3));
  EXPECT_FALSE(decode_sff8636(pages.lower, Bytes{}, pages.page3));
  EXPECT_TRUE(decode_sff8636(pages.lower, pages.upper, Bytes{}));  // thresholds unknown
  pages.lower[0] = 0x18;                                           // QSFP-DD: CMIS
  EXPECT_EQ(module_map(0x18), ModuleMap::cmis);
  EXPECT_FALSE(pages.decode());
}

// A CMIS 5 OSFP module in ModuleReady, built from ethtool cmis.h's offsets: 4 media lanes in its
// first application, every lane monitor advertised, a bias multiplier of 2.
struct CmisPages {
  Bytes lower = Bytes(128, 0), upper = Bytes(128, 0), page01 = Bytes(128, 0),
        page02 = Bytes(128, 0), page11 = Bytes(128, 0);

  CmisPages() {
    lower[0] = 0x19;           // OSFP
    lower[3] = 0x03 << 1;      // ModuleReady
    put16(lower, 14, 0x2680);  // 38.5 C
    put16(lower, 16, 32900);   // 3.29 V
    lower[85] = 0x02;          // single-mode fibre
    lower[88] = 0x44;          // 4 host lanes, 4 media lanes
    upper[0] = 0x19;
    const std::string part = "OSFP-400G-DR4   ";
    for (size_t i = 0; i < 16; ++i) upper[148 - 128 + i] = static_cast<uint8_t>(part[i]);
    page01[160 - 128] = 0x07 | 0x08;  // bias, TX and RX power monitors; bias multiplier 2
    put16(page02, 0, 80 * 256);       // temperature: 80, -10, 75, -5 C
    put16(page02, 2, static_cast<uint16_t>(-10 * 256));
    put16(page02, 4, 75 * 256);
    put16(page02, 6, static_cast<uint16_t>(-5 * 256));
    put16(page02, 64, 21878), put16(page02, 66, 468), put16(page02, 68, 17378),
        put16(page02, 70, 933);                // RX: 3.4, -13.3, 2.4, -10.3 dBm (offsets 192-199)
    for (size_t lane = 0; lane < 8; ++lane) {  // 0.8 mW, 6.8 mA (1700 x 2 uA x 2), 0.9 mW
      put16(page11, 154 - 128 + 2 * lane, 9000);
      put16(page11, 170 - 128 + 2 * lane, 1700);
      put16(page11, 186 - 128 + 2 * lane, 8000);
    }
  }
  std::optional<ModuleDiagnostics> decode() const {
    return decode_cmis(lower, upper, page01, page02, page11);
  }
};

TEST(Cmis, DecodesTheApplicationsLanesInSiUnits) {
  const auto module = CmisPages().decode();
  ASSERT_TRUE(module);
  EXPECT_EQ(module->part_number, "OSFP-400G-DR4");
  EXPECT_TRUE(module->monitors_implemented);
  EXPECT_DOUBLE_EQ(find(*module, Quantity::temperature).value, 38.5);
  EXPECT_NEAR(find(*module, Quantity::supply_voltage).value, 3.29, 1e-9);
  EXPECT_NEAR(find(*module, Quantity::rx_power, 4).value, 0.8e-3, 1e-12);
  EXPECT_NEAR(find(*module, Quantity::tx_bias, 1).value, 6.8e-3, 1e-12);  // the multiplier
  EXPECT_NEAR(find(*module, Quantity::tx_power, 2).value, 0.9e-3, 1e-12);
  EXPECT_THROW(find(*module, Quantity::rx_power, 5), std::runtime_error);  // not a media lane
  EXPECT_EQ(module->monitors.size(), 2u + 3u * 4u);
  EXPECT_FALSE(judge_transceiver("lan2", *module));
}

TEST(Cmis, ALaneBelowItsLowAlarmAndALatchedFlagAreAlarms) {
  CmisPages pages;
  put16(pages.page11, 186 - 128 + 2 * 2, 400);  // lane 3: 40 uW, below -13.3 dBm
  auto found = judge_transceiver("lan2", pages.decode().value());
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, kTransceiverAlarm.id);
  EXPECT_NE(found->text.find("rx_power lane 3 -13.98 dBm"), std::string::npos) << found->text;

  CmisPages latched;
  latched.page11[150 - 128] = 0x02;  // RX power low alarm, lane 2, an excursion already over
  latched.lower[9] = 0x04;           // temperature high warning
  const auto module = latched.decode().value();
  EXPECT_TRUE(find(module, Quantity::rx_power, 2).latched_alarm);
  EXPECT_FALSE(find(module, Quantity::rx_power, 1).latched_alarm);
  EXPECT_TRUE(find(module, Quantity::temperature).latched_warning);
  EXPECT_FALSE(find(module, Quantity::temperature).latched_alarm);
}

TEST(Cmis, AModuleNotReadyIsNoReadingAndAFlatOneMonitorsNothing) {
  CmisPages pages;
  pages.lower[3] = 0x02 << 1;  // ModulePwrUp: the lane monitors mean nothing yet
  EXPECT_FALSE(pages.decode());
  EXPECT_STREQ(cmis_module_state(pages.lower), "ModulePwrUp");
  CmisPages copper;
  copper.lower[2] = 0x80;  // flat memory: a passive copper cable, no state machine
  copper.lower[3] = 0;
  ASSERT_TRUE(cmis_flat_memory(copper.lower));
  const auto module = decode_cmis(copper.lower, copper.upper, {}, {}, {});
  ASSERT_TRUE(module);
  EXPECT_FALSE(module->monitors_implemented);
  EXPECT_TRUE(module->monitors.empty());
}

// Active optical cables (media type 04h) monitor what page 01h advertises; passive copper (03h)
// monitors nothing; a reserved bias multiplier (11b) leaves the bias unread, not misread.
TEST(Cmis, ActiveCablesAreMonitoredPassiveCopperIsNotAndAReservedMultiplierReadsNoBias) {
  CmisPages active;
  active.lower[85] = 0x04;
  ASSERT_TRUE(active.decode());
  EXPECT_TRUE(active.decode()->monitors_implemented);
  EXPECT_EQ(active.decode()->monitors.size(), 2u + 3u * 4u);
  CmisPages copper;
  copper.lower[85] = 0x03;
  ASSERT_TRUE(copper.decode());
  EXPECT_FALSE(copper.decode()->monitors_implemented);
  CmisPages reserved;
  reserved.page01[160 - 128] = 0x07 | 0x18;
  const auto module = reserved.decode().value();
  EXPECT_EQ(module.monitors.size(), 2u + 2u * 4u);
  EXPECT_THROW(find(module, Quantity::tx_bias, 1), std::runtime_error);
  EXPECT_NEAR(find(module, Quantity::rx_power, 1).value, 0.8e-3, 1e-12);
}

TEST(Cmis, WithoutTheLanePagesOnlyTheModulesOwnReadingsAndWithoutPage02hNoThresholds) {
  CmisPages pages;
  const auto module = decode_cmis(pages.lower, pages.upper, pages.page01, {}, {});
  ASSERT_TRUE(module);
  EXPECT_EQ(module->monitors.size(), 2u);
  EXPECT_FALSE(module->monitors[0].limits);
  EXPECT_FALSE(decode_cmis(pages.lower, Bytes(64, 0), {}, {}, {}));  // a short half page
  EXPECT_FALSE(decode_sff8636(pages.lower, pages.upper, {}));        // not SFF-8636
}

}  // namespace
}  // namespace roced::health
