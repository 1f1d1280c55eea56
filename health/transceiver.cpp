// SPDX-License-Identifier: Apache-2.0
#include "health/transceiver.hpp"

#include <cmath>
#include <cstdio>

namespace roced::health {

namespace {

constexpr size_t kHalfPage = 128;

// Offsets in the lower page (0-127) and in an upper page (128-255), SFF-8636 Rev 2.10a.
constexpr size_t kStatus = 2;  // bit 2: flat memory; bit 0: Data_Not_Ready
constexpr size_t kTemperatureFlags = 6, kVoltageFlags = 7;
constexpr size_t kRxPowerFlags = 9, kTxBiasFlags = 11, kTxPowerFlags = 13;  // two bytes each
constexpr size_t kTemperature = 22, kVoltage = 26;
constexpr size_t kRxPower = 34, kTxBias = 42, kTxPower = 50;  // lane 1; each lane two bytes on
constexpr size_t kDeviceTechnology = 147;                     // bits 7-4: transmitter technology
constexpr size_t kVendorName = 148, kPartNumber = 168, kSerial = 196;  // 16 bytes each
constexpr size_t kDiagnosticType = 220;                                // bit 2: TX power measured
constexpr size_t kTemperatureLimits = 128, kVoltageLimits = 144, kRxPowerLimits = 176,
                 kTxBiasLimits = 184, kTxPowerLimits = 192;  // page 03h: HA, LA, HW, LW

// Copper cables (transmitter technology 1010b and up) have no optics to monitor.
constexpr uint8_t kFirstCopperTechnology = 0xA;

struct Scale {
  double per_count;
  bool is_signed;
};
constexpr Scale kTemperatureScale{1.0 / 256, true};  // 1/256 degree Celsius
constexpr Scale kVoltageScale{100e-6, false};        // 100 uV
constexpr Scale kPowerScale{0.1e-6, false};          // 0.1 uW
constexpr Scale kBiasScale{2e-6, false};             // 2 uA

// A view of one 256-byte page as the two halves the kernel returned.
class Page {
 public:
  Page(std::span<const uint8_t> lower, std::span<const uint8_t> upper)
      : lower_(lower), upper_(upper) {}
  uint8_t byte(size_t offset) const {
    return offset < kHalfPage ? lower_[offset] : upper_[offset - kHalfPage];
  }
  double word(size_t offset, Scale scale) const {
    const auto raw = static_cast<uint16_t>(byte(offset) << 8 | byte(offset + 1));
    const double counts = scale.is_signed ? static_cast<int16_t>(raw) : raw;
    return counts * scale.per_count;
  }
  std::string text(size_t offset, size_t length) const {
    std::string out;
    for (size_t i = 0; i < length; ++i) {
      const char c = static_cast<char>(byte(offset + i));
      out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return out.erase(out.find_last_not_of(' ') + 1);
  }

 private:
  std::span<const uint8_t> lower_, upper_;
};

std::optional<Thresholds> limits(const Page& page3, size_t offset, Scale scale) {
  Thresholds t{page3.word(offset, scale), page3.word(offset + 2, scale),
               page3.word(offset + 4, scale), page3.word(offset + 6, scale)};
  // All zero: the module sets none. Out of order (an erased page reads 0xff: a low alarm above
  // the high one): none either, rather than every reading beyond them.
  if (t.high_alarm == 0 && t.low_alarm == 0 && t.high_warning == 0 && t.low_warning == 0) {
    return std::nullopt;
  }
  if (!(t.low_alarm <= t.low_warning && t.low_warning <= t.high_warning &&
        t.high_warning <= t.high_alarm && t.low_alarm < t.high_alarm)) {
    return std::nullopt;
  }
  return t;
}

// A flags nibble: bit 3 high alarm, 2 low alarm, 1 high warning, 0 low warning.
void set_flags(Monitor& monitor, uint8_t nibble) {
  monitor.latched_alarm = (nibble & 0xC) != 0;
  monitor.latched_warning = (nibble & 0x3) != 0;
}

uint8_t lane_nibble(const Page& lower, size_t flags, int lane) {
  const uint8_t byte = lower.byte(flags + static_cast<size_t>(lane - 1) / 2);
  return lane % 2 == 1 ? byte >> 4 : byte & 0xF;
}

// A reading in the units `ethtool -m` prints.
std::string describe(const Monitor& m) {
  char text[32] = "";
  switch (m.quantity) {
    case Quantity::temperature:
      std::snprintf(text, sizeof text, "%.1f C", m.value);
      break;
    case Quantity::supply_voltage:
      std::snprintf(text, sizeof text, "%.3f V", m.value);
      break;
    case Quantity::tx_bias:
      std::snprintf(text, sizeof text, "%.2f mA", m.value * 1e3);
      break;
    case Quantity::rx_power:
    case Quantity::tx_power:
      if (m.value <= 0) return "no light";
      std::snprintf(text, sizeof text, "%.2f dBm", 10 * std::log10(m.value * 1e3));
      break;
  }
  return text;
}

std::string name_of(const Monitor& m) {
  std::string name = quantity_name(m.quantity);
  return m.lane == 0 ? name : name + " lane " + std::to_string(m.lane);
}

}  // namespace

ModuleMap module_map(uint8_t identifier) {
  switch (identifier) {
    case 0x0C:  // QSFP
    case 0x0D:  // QSFP+
    case 0x11:  // QSFP28
      return ModuleMap::sff8636;
    case 0x18:  // QSFP-DD
    case 0x19:  // OSFP
    case 0x1E:  // QSFP+ with CMIS
      return ModuleMap::cmis;
    case 0x03:  // SFP/SFP+/SFP28
      return ModuleMap::sff8472;
    default:
      return ModuleMap::unknown;
  }
}

const char* quantity_name(Quantity quantity) {
  switch (quantity) {
    case Quantity::temperature:
      return "temperature";
    case Quantity::supply_voltage:
      return "supply_voltage";
    case Quantity::rx_power:
      return "rx_power";
    case Quantity::tx_bias:
      return "tx_bias";
    case Quantity::tx_power:
      return "tx_power";
  }
  return "unknown";
}

bool has_threshold_page(std::span<const uint8_t> lower) {
  return lower.size() > kStatus && (lower[kStatus] & 0x04) == 0;
}

std::optional<ModuleDiagnostics> decode_sff8636(std::span<const uint8_t> lower,
                                                std::span<const uint8_t> upper,
                                                std::span<const uint8_t> page3) {
  if (lower.size() < kHalfPage || upper.size() < kHalfPage) return std::nullopt;
  if (module_map(lower[0]) != ModuleMap::sff8636) return std::nullopt;
  // Just after insertion or a reset the monitors read 0 until the module is ready: no reading.
  if ((lower[kStatus] & 0x01) != 0) return std::nullopt;
  const Page page0(lower, upper);
  const bool paged = has_threshold_page(lower) && page3.size() >= kHalfPage;
  const Page thresholds(lower, paged ? page3 : upper);  // only read when paged

  ModuleDiagnostics module;
  module.identifier = lower[0];
  module.vendor = page0.text(kVendorName, 16);
  module.part_number = page0.text(kPartNumber, 16);
  module.serial = page0.text(kSerial, 16);
  module.monitors_implemented = (page0.byte(kDeviceTechnology) >> 4) < kFirstCopperTechnology;
  if (!module.monitors_implemented) return module;

  const auto add = [&](Quantity quantity, int lane, size_t value, Scale scale, size_t limit) {
    Monitor monitor{quantity, lane, page0.word(value, scale)};
    if (paged) monitor.limits = limits(thresholds, limit, scale);
    module.monitors.push_back(monitor);
    return &module.monitors.back();
  };
  set_flags(*add(Quantity::temperature, 0, kTemperature, kTemperatureScale, kTemperatureLimits),
            page0.byte(kTemperatureFlags) >> 4);
  set_flags(*add(Quantity::supply_voltage, 0, kVoltage, kVoltageScale, kVoltageLimits),
            page0.byte(kVoltageFlags) >> 4);
  const bool tx_power_measured = (page0.byte(kDiagnosticType) & 0x04) != 0;
  for (int lane = 1; lane <= 4; ++lane) {
    const size_t at = static_cast<size_t>(lane - 1) * 2;
    set_flags(*add(Quantity::rx_power, lane, kRxPower + at, kPowerScale, kRxPowerLimits),
              lane_nibble(page0, kRxPowerFlags, lane));
    set_flags(*add(Quantity::tx_bias, lane, kTxBias + at, kBiasScale, kTxBiasLimits),
              lane_nibble(page0, kTxBiasFlags, lane));
    if (tx_power_measured) {
      set_flags(*add(Quantity::tx_power, lane, kTxPower + at, kPowerScale, kTxPowerLimits),
                lane_nibble(page0, kTxPowerFlags, lane));
    }
  }
  return module;
}

namespace {

// CMIS offsets (ethtool cmis.h): lower page 00h, upper pages 00h, 01h, 02h, 11h.
constexpr size_t kCmisFlatMemory = 2, kCmisModuleState = 3, kCmisModuleFlags = 9;
constexpr size_t kCmisTemperature = 14, kCmisVoltage = 16, kCmisMediaType = 85;
constexpr size_t kCmisFirstApplicationLanes = 88;  // bits 3-0: media lane count
constexpr size_t kCmisVendorName = 129, kCmisPartNumber = 148, kCmisSerial = 166;
constexpr size_t kCmisLaneMonitors = 160;  // page 01h: bit 0 bias, 1 TX power, 2 RX power; 4-3
constexpr size_t kCmisTemperatureLimits = 128, kCmisVoltageLimits = 136, kCmisTxPowerLimits = 176,
                 kCmisTxBiasLimits = 184, kCmisRxPowerLimits = 192;  // page 02h: HA, LA, HW, LW
// Page 11h: one byte per flag, a bit per lane; high alarm, low alarm, high warning, low warning.
constexpr size_t kCmisTxPowerFlags = 139, kCmisTxBiasFlags = 143, kCmisRxPowerFlags = 149;
constexpr size_t kCmisTxPower = 154, kCmisTxBias = 170, kCmisRxPower = 186;
constexpr uint8_t kCmisModuleReady = 3;
constexpr uint8_t kCmisPassiveCopper = 0x03;  // media type (byte 85)

void set_cmis_lane_flags(Monitor& monitor, const Page& page11, size_t flags, int lane) {
  const auto bit = static_cast<uint8_t>(1u << (lane - 1));
  monitor.latched_alarm = ((page11.byte(flags) | page11.byte(flags + 1)) & bit) != 0;
  monitor.latched_warning = ((page11.byte(flags + 2) | page11.byte(flags + 3)) & bit) != 0;
}

}  // namespace

bool cmis_flat_memory(std::span<const uint8_t> lower) {
  return lower.size() > kCmisFlatMemory && (lower[kCmisFlatMemory] & 0x80) != 0;
}

const char* cmis_module_state(std::span<const uint8_t> lower) {
  if (lower.size() <= kCmisModuleState) return "unknown";
  switch ((lower[kCmisModuleState] >> 1) & 0x07) {
    case 1:
      return "ModuleLowPwr";
    case 2:
      return "ModulePwrUp";
    case 3:
      return "ModuleReady";
    case 4:
      return "ModulePwrDn";
    case 5:
      return "ModuleFault";
    default:
      return "reserved";
  }
}

std::optional<ModuleDiagnostics> decode_cmis(std::span<const uint8_t> lower,
                                             std::span<const uint8_t> upper,
                                             std::span<const uint8_t> page01,
                                             std::span<const uint8_t> page02,
                                             std::span<const uint8_t> page11) {
  if (lower.size() < kHalfPage || upper.size() < kHalfPage) return std::nullopt;
  if (module_map(lower[0]) != ModuleMap::cmis) return std::nullopt;
  const bool flat = cmis_flat_memory(lower);
  // A flat-memory module has no state machine; a paged one monitors only once ready.
  if (!flat && ((lower[kCmisModuleState] >> 1) & 0x07) != kCmisModuleReady) return std::nullopt;
  const Page page0(lower, upper);
  ModuleDiagnostics module;
  module.identifier = lower[0];
  module.vendor = page0.text(kCmisVendorName, 16);
  module.part_number = page0.text(kCmisPartNumber, 16);
  module.serial = page0.text(kCmisSerial, 16);
  // Passive copper has no monitors; optical modules and active cables (AOCs among them) do, and
  // page 01h says which lanes' monitors they implement.
  module.monitors_implemented = !flat && lower[kCmisMediaType] != kCmisPassiveCopper;
  if (!module.monitors_implemented) return module;

  const bool thresholds = page02.size() >= kHalfPage;
  const Page limits_page(lower, thresholds ? page02 : upper);  // only read with thresholds
  const auto add = [&](Quantity quantity, int lane, double value, size_t limit, Scale scale) {
    Monitor monitor{quantity, lane, value};
    if (thresholds) monitor.limits = limits(limits_page, limit, scale);
    module.monitors.push_back(monitor);
    return &module.monitors.back();
  };
  const uint8_t flags = page0.byte(kCmisModuleFlags);
  Monitor* temperature =
      add(Quantity::temperature, 0, page0.word(kCmisTemperature, kTemperatureScale),
          kCmisTemperatureLimits, kTemperatureScale);
  temperature->latched_alarm = (flags & 0x03) != 0;
  temperature->latched_warning = (flags & 0x0C) != 0;
  Monitor* voltage = add(Quantity::supply_voltage, 0, page0.word(kCmisVoltage, kVoltageScale),
                         kCmisVoltageLimits, kVoltageScale);
  voltage->latched_alarm = (flags & 0x30) != 0;
  voltage->latched_warning = (flags & 0xC0) != 0;

  if (page01.size() < kHalfPage || page11.size() < kHalfPage) return module;
  const Page advertising(lower, page01), lanes_page(lower, page11);
  const uint8_t monitored = advertising.byte(kCmisLaneMonitors);
  // The bias monitor counts 2 uA times the multiplier of bits 4-3 (1, 2 or 4; CMIS 5.2 table
  // 8-82), its thresholds likewise; 11b is reserved: no bias reading then. ethtool's cmis.c
  // divides by the multiplier instead (`bias_cur >>= cmis_tx_bias_mul`): on a module with a
  // multiplier above 1 its figure and roced's differ by its square.
  const uint8_t multiplier_bits = (monitored >> 3) & 0x03;
  const bool bias_known = multiplier_bits != 0x03;
  const Scale bias{kBiasScale.per_count * static_cast<double>(1u << multiplier_bits), false};
  int lanes = lower[kCmisFirstApplicationLanes] & 0x0F;
  if (lanes == 0 || lanes > 8) lanes = 8;
  for (int lane = 1; lane <= lanes; ++lane) {
    const size_t at = static_cast<size_t>(lane - 1) * 2;
    if ((monitored & 0x04) != 0) {
      set_cmis_lane_flags(
          *add(Quantity::rx_power, lane, lanes_page.word(kCmisRxPower + at, kPowerScale),
               kCmisRxPowerLimits, kPowerScale),
          lanes_page, kCmisRxPowerFlags, lane);
    }
    if ((monitored & 0x01) != 0 && bias_known) {
      set_cmis_lane_flags(*add(Quantity::tx_bias, lane, lanes_page.word(kCmisTxBias + at, bias),
                               kCmisTxBiasLimits, bias),
                          lanes_page, kCmisTxBiasFlags, lane);
    }
    if ((monitored & 0x02) != 0) {
      set_cmis_lane_flags(
          *add(Quantity::tx_power, lane, lanes_page.word(kCmisTxPower + at, kPowerScale),
               kCmisTxPowerLimits, kPowerScale),
          lanes_page, kCmisTxPowerFlags, lane);
    }
  }
  return module;
}

Excursion excursion(const Monitor& m) {
  Excursion level = m.latched_alarm     ? Excursion::alarm
                    : m.latched_warning ? Excursion::warning
                                        : Excursion::none;
  if (!m.limits) return level;
  const Thresholds& t = *m.limits;
  if (m.value > t.high_alarm || m.value < t.low_alarm) return Excursion::alarm;
  if (level == Excursion::none && (m.value > t.high_warning || m.value < t.low_warning)) {
    return Excursion::warning;
  }
  return level;
}

std::optional<finding::Finding> judge_transceiver(const std::string& netdev,
                                                  const ModuleDiagnostics& module) {
  std::string alarms, warnings;
  for (const Monitor& m : module.monitors) {
    const Excursion level = excursion(m);
    if (level == Excursion::none) continue;
    std::string& list = level == Excursion::alarm ? alarms : warnings;
    list += (list.empty() ? "" : ", ") + name_of(m) + " " + describe(m);
  }
  const std::string part =
      module.vendor + " " + module.part_number + " (serial " + module.serial + ")";
  if (!alarms.empty()) {
    return finding::make(kTransceiverAlarm, netdev,
                         part + ": beyond its alarm threshold: " + alarms, "within thresholds",
                         "alarm");
  }
  if (!warnings.empty()) {
    return finding::make(kTransceiverWarning, netdev,
                         part + ": beyond its warning threshold: " + warnings, "within thresholds",
                         "warning");
  }
  return std::nullopt;
}

}  // namespace roced::health
