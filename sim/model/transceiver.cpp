// SPDX-License-Identifier: Apache-2.0
#include "sim/model/transceiver.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace roce_sim {

namespace {

// A 100GBASE-SR4 module's thresholds as such modules carry them (page 03h): high alarm, low
// alarm, high warning, low warning.
struct Limits {
  double high_alarm, low_alarm, high_warning, low_warning;
};
constexpr Limits kTemperatureLimits{80, -10, 75, -5};             // degrees Celsius
constexpr Limits kVoltageLimits{3.63, 2.97, 3.465, 3.135};        // volts
constexpr Limits kRxPowerLimits{2.1878, 0.0468, 1.7378, 0.0933};  // mW: 3.4, -13.3, 2.4, -10.3 dBm
constexpr Limits kTxBiasLimits{12, 2, 10.5, 3};                   // mA
constexpr Limits kTxPowerLimits{3.1623, 0.2291, 1.9953, 0.3631};  // mW: 5, -6.4, 3, -4.4 dBm

// Encodings (SFF-8636 6.2.4): 1/256 C signed, 100 uV, 0.1 uW, 2 uA; MSB first.
uint16_t raw_temperature(double c) { return static_cast<uint16_t>(std::lround(c * 256)); }
uint16_t raw_voltage(double v) { return static_cast<uint16_t>(std::lround(v * 1e4)); }
uint16_t raw_power(double mw) {
  return static_cast<uint16_t>(std::lround(std::clamp(mw * 1e4, 0.0, 65535.0)));
}
uint16_t raw_bias(double ma) {
  return static_cast<uint16_t>(std::lround(std::clamp(ma * 500, 0.0, 65535.0)));
}

void put(std::array<uint8_t, 256>& page, size_t at, uint16_t value) {
  page[at] = static_cast<uint8_t>(value >> 8);
  page[at + 1] = static_cast<uint8_t>(value & 0xff);
}

void put_text(std::array<uint8_t, 256>& page, size_t at, const std::string& text) {
  for (size_t i = 0; i < 16; ++i) page[at + i] = i < text.size() ? text[i] : ' ';
}

void put_limits(std::array<uint8_t, 256>& page, size_t at, const Limits& l,
                uint16_t (*raw)(double)) {
  put(page, at, raw(l.high_alarm));
  put(page, at + 2, raw(l.low_alarm));
  put(page, at + 4, raw(l.high_warning));
  put(page, at + 6, raw(l.low_warning));
}

// A flags nibble: bit 3 high alarm, 2 low alarm, 1 high warning, 0 low warning.
uint8_t nibble(double value, const Limits& l) {
  return static_cast<uint8_t>((value > l.high_alarm ? 8 : 0) | (value < l.low_alarm ? 4 : 0) |
                              (value > l.high_warning ? 2 : 0) | (value < l.low_warning ? 1 : 0));
}

uint8_t checksum(const std::array<uint8_t, 256>& page, size_t from, size_t to) {
  unsigned sum = 0;
  for (size_t i = from; i < to; ++i) sum += page[i];
  return static_cast<uint8_t>(sum & 0xff);
}

}  // namespace

Transceiver::Transceiver(std::string serial, ModuleForm form)
    : serial_(std::move(serial)), form_(form) {
  restore();
}

void Transceiver::restore() {
  const double rx[kLanes] = {0.81, 0.78, 0.85, 0.76};  // about -1 dBm
  for (size_t i = 0; i < kLanes; ++i) lanes_[i] = {rx[i], 0.89, 6.8};
  temperature_c_ = 38.5;
}

void Transceiver::set_temperature_c(double celsius) {
  temperature_c_ = celsius;
  latch();
}

void Transceiver::set_rx_power_mw(int lane, double milliwatts) {
  lanes_.at(static_cast<size_t>(lane)).rx_power_mw = milliwatts;
  latch();
}

std::array<uint8_t, 19> Transceiver::conditions() const {
  std::array<uint8_t, 19> flags{};  // index 0 is byte 3
  flags[6 - 3] = static_cast<uint8_t>(nibble(temperature_c_, kTemperatureLimits) << 4);
  flags[7 - 3] = static_cast<uint8_t>(nibble(vcc_v_, kVoltageLimits) << 4);
  const auto lanes = [&](size_t byte, auto value, const Limits& limits) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      const uint8_t bits = nibble(value(lanes_[lane]), limits);
      flags[byte - 3 + lane / 2] |= static_cast<uint8_t>(lane % 2 == 0 ? bits << 4 : bits);
    }
  };
  lanes(
      9, [](const Lane& l) { return l.rx_power_mw; }, kRxPowerLimits);
  lanes(
      11, [](const Lane& l) { return l.tx_bias_ma; }, kTxBiasLimits);
  lanes(
      13, [](const Lane& l) { return l.tx_power_mw; }, kTxPowerLimits);
  for (size_t lane = 0; lane < kLanes; ++lane) {  // byte 3: RX LOS per lane, below -20 dBm
    if (lanes_[lane].rx_power_mw < 0.01) flags[0] |= static_cast<uint8_t>(1u << lane);
  }
  return flags;
}

void Transceiver::latch() {
  const auto now = form_ == ModuleForm::osfp ? cmis_conditions() : conditions();
  for (size_t i = 0; i < latched_.size(); ++i) latched_[i] |= now[i];
}

std::array<uint8_t, 256> Transceiver::page0() const {
  std::array<uint8_t, 256> page{};
  page[0] = 0x11;  // QSFP28 (SFF-8024)
  page[1] = 0x07;  // SFF-8636 Rev 2.8, 2.9 and 2.10
  page[2] = 0x00;  // paged memory, data ready
  const auto now = conditions();
  for (size_t i = 0; i < latched_.size(); ++i) page[3 + i] = latched_[i] | now[i];
  put(page, 22, raw_temperature(temperature_c_));
  put(page, 26, raw_voltage(vcc_v_));
  for (size_t lane = 0; lane < kLanes; ++lane) {
    put(page, 34 + 2 * lane, raw_power(lanes_[lane].rx_power_mw));
    put(page, 42 + 2 * lane, raw_bias(lanes_[lane].tx_bias_ma));
    put(page, 50 + 2 * lane, raw_power(lanes_[lane].tx_power_mw));
  }
  page[128] = 0x11;
  page[129] = 0xCC;  // power class 4, CDR in TX and RX
  page[130] = 0x0C;  // MPO 1x12
  page[131] = 0x80;  // extended compliance in byte 192
  page[139] = 0x07;  // 256B/257B (transcoded FEC-enabled data)
  page[140] = 0xFF;  // nominal rate: see byte 222
  page[143] = 0x32;  // OM3: 100 m in 2 m units
  page[147] = 0x00;  // 850 nm VCSEL
  put_text(page, 148, "NVIDIA");
  page[165] = 0x00, page[166] = 0x02, page[167] = 0xC9;  // OUI
  put_text(page, 168, "MMA1B00-C100D");
  page[184] = 'A', page[185] = '1';
  page[186] = 0x42, page[187] = 0x68;  // 850 nm in 0.05 nm units
  page[192] = 0x02;                    // 100GBASE-SR4
  put_text(page, 196, serial_);
  std::memcpy(&page[212], "220801  ", 8);
  page[220] = 0x0C;  // received power as average power; transmitted power measured
  page[222] = 0x67;  // nominal rate 25.75 Gb/s in 250 Mb/s units
  page[191] = checksum(page, 128, 191);
  page[223] = checksum(page, 192, 223);
  return page;
}

std::array<uint8_t, 256> Transceiver::page3() const {
  std::array<uint8_t, 256> page{};
  put_limits(page, 128, kTemperatureLimits, raw_temperature);
  put_limits(page, 144, kVoltageLimits, raw_voltage);
  put_limits(page, 176, kRxPowerLimits, raw_power);
  put_limits(page, 184, kTxBiasLimits, raw_bias);
  put_limits(page, 192, kTxPowerLimits, raw_power);
  return page;
}

std::vector<uint8_t> Transceiver::read(uint8_t page, uint32_t offset, uint32_t length) {
  if (form_ == ModuleForm::osfp) return cmis_read(page, offset, length);
  offset = std::min<uint32_t>(offset, 256);
  length = std::min<uint32_t>(length, 256 - offset);
  std::array<uint8_t, 256> image{};  // pages the module does not have read as zeros
  if (page == 0) image = page0();
  if (page == 3) image = page3();
  std::vector<uint8_t> out(image.begin() + offset, image.begin() + offset + length);
  // The lower page is the same whatever page is selected.
  if (page != 0 && offset < 128) {
    const auto lower = page0();
    std::copy(lower.begin() + offset, lower.begin() + std::min<uint32_t>(offset + length, 128),
              out.begin());
  }
  for (uint32_t at = offset; at < offset + length; ++at) {
    if (at >= 3 && at <= 21) latched_[at - 3] = 0;
  }
  latch();  // a condition that lasts past the read sets its flag again
  return out;
}

// CMIS 5.0 (OIF-CMIS-05.0; the offsets of ethtool's cmis.h). Module flags, lower byte 9: bits
// 0-3 temperature high alarm, low alarm, high warning, low warning; bits 4-7 the same for Vcc.
// Lane flags, page 11h: one byte per flag kind with a bit per lane (bit 0 lane 1): TX power high
// alarm to low warning 139-142, TX bias 143-146, RX LOS 147, RX power 149-152.
namespace {

uint8_t cmis_module_nibble(double value, const Limits& l) {
  return static_cast<uint8_t>((value > l.high_alarm ? 1 : 0) | (value < l.low_alarm ? 2 : 0) |
                              (value > l.high_warning ? 4 : 0) | (value < l.low_warning ? 8 : 0));
}

constexpr size_t kCmisLaneFlags = 135;  // page 11h: latched lane flags 135-152
constexpr size_t kCmisModuleState = 3, kCmisModuleFlags = 9;

}  // namespace

std::array<uint8_t, 19> Transceiver::cmis_conditions() const {
  std::array<uint8_t, 19> flags{};
  flags[0] = static_cast<uint8_t>(cmis_module_nibble(temperature_c_, kTemperatureLimits) |
                                  cmis_module_nibble(vcc_v_, kVoltageLimits) << 4);
  const auto lanes = [&](size_t first, auto value, const Limits& l) {
    for (size_t lane = 0; lane < kLanes; ++lane) {
      const double v = value(lanes_[lane]);
      const bool bits[4] = {v > l.high_alarm, v<l.low_alarm, v> l.high_warning, v < l.low_warning};
      for (size_t kind = 0; kind < 4; ++kind) {
        if (bits[kind]) flags[1 + first - kCmisLaneFlags + kind] |= static_cast<uint8_t>(1 << lane);
      }
    }
  };
  lanes(
      139, [](const Lane& l) { return l.tx_power_mw; }, kTxPowerLimits);
  lanes(
      143, [](const Lane& l) { return l.tx_bias_ma; }, kTxBiasLimits);
  lanes(
      149, [](const Lane& l) { return l.rx_power_mw; }, kRxPowerLimits);
  for (size_t lane = 0; lane < kLanes; ++lane) {  // RX LOS below -20 dBm
    if (lanes_[lane].rx_power_mw < 0.01) flags[1 + 147 - kCmisLaneFlags] |= 1 << lane;
  }
  return flags;
}

std::array<uint8_t, 256> Transceiver::cmis_page(uint8_t number) const {
  std::array<uint8_t, 256> page{};
  const auto now = cmis_conditions();
  switch (number) {
    case 0x00:
      page[0] = identifier();
      page[1] = 0x50;                      // CMIS 5.0
      page[2] = 0x00;                      // paged memory
      page[kCmisModuleState] = 0x03 << 1;  // ModuleReady
      page[kCmisModuleFlags] = latched_[0] | now[0];
      put(page, 14, raw_temperature(temperature_c_));
      put(page, 16, raw_voltage(vcc_v_));
      page[85] = 0x01;  // multimode fibre
      // Application 1: its interface IDs left undefined here; 4 host lanes, 4 media lanes.
      page[88] = 0x44;
      page[90] = 0xFF;  // the next descriptor's host interface ID: the end of the list
      page[128] = identifier();
      put_text(page, 129, "NVIDIA");
      page[145] = 0x00, page[146] = 0x02, page[147] = 0xC9;  // OUI
      put_text(page, 148, "MMA4Z00-NS400");
      page[164] = 'A', page[165] = '2';
      put_text(page, 166, serial_);
      std::memcpy(&page[182], "23031500", 8);
      page[200] = 0x60;  // power class 4
      page[201] = 0x30;  // 12 W in 0.25 W units
      page[203] = 0x0C;  // MPO 1x12
      page[212] = 0x00;  // 850 nm VCSEL
      break;
    case 0x01:
      page[142] = 0x00;  // bank 0 only
      page[151] = 0x10;  // RX power measured as average power
      page[158] = 0x02;  // RX LOS flag implemented
      page[159] = 0x03;  // temperature and Vcc monitors
      page[160] = 0x07;  // TX bias, TX power and RX power monitors; bias multiplier 1
      break;
    case 0x02:
      put_limits(page, 128, kTemperatureLimits, raw_temperature);
      put_limits(page, 136, kVoltageLimits, raw_voltage);
      put_limits(page, 176, kTxPowerLimits, raw_power);
      put_limits(page, 184, kTxBiasLimits, raw_bias);
      put_limits(page, 192, kRxPowerLimits, raw_power);
      break;
    case 0x11:
      page[128] = 0x44, page[129] = 0x44;  // lanes 1-4 DPActivated
      for (size_t i = 1; i < now.size(); ++i) {
        page[kCmisLaneFlags + i - 1] = latched_[i] | now[i];
      }
      for (size_t lane = 0; lane < kLanes; ++lane) {
        put(page, 154 + 2 * lane, raw_power(lanes_[lane].tx_power_mw));
        put(page, 170 + 2 * lane, raw_bias(lanes_[lane].tx_bias_ma));
        put(page, 186 + 2 * lane, raw_power(lanes_[lane].rx_power_mw));
      }
      break;
    default:
      break;  // pages the module does not have read as zeros
  }
  return page;
}

std::vector<uint8_t> Transceiver::cmis_read(uint8_t page, uint32_t offset, uint32_t length) {
  offset = std::min<uint32_t>(offset, 256);
  length = std::min<uint32_t>(length, 256 - offset);
  const auto image = cmis_page(offset < 128 ? 0 : page);  // the lower page whatever is selected
  std::vector<uint8_t> out(image.begin() + offset, image.begin() + offset + length);
  for (uint32_t at = offset; at < offset + length; ++at) {
    if (at == kCmisModuleFlags) latched_[0] = 0;
    if (page == 0x11 && at >= kCmisLaneFlags && at <= 152) latched_[1 + at - kCmisLaneFlags] = 0;
  }
  latch();  // a condition that lasts past the read sets its flag again
  return out;
}

}  // namespace roce_sim
