// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a QSFP module says of itself: its temperature, supply voltage and each lane's receive
// power, transmit bias and transmit power, against the alarm and warning thresholds the module
// carries (SFF-8636 Rev 2.10a: lower page 00h bytes 3-57, upper page 00h, upper page 03h bytes
// 128-199; the same offsets as ethtool's qsfp.h). A dying laser or a dirty connector shows here
// first, as receive power sliding toward the low alarm, while every counter still reads clean.
//
// The pages come as the kernel gives them (ETHTOOL_MSG_MODULE_EEPROM_GET, a half page per read);
// nothing here trusts their length or content.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "finding/finding.hpp"

namespace roced::health {

// SFF-8024 identifiers (byte 0) by the memory map their pages follow.
enum class ModuleMap { sff8636, cmis, sff8472, unknown };
ModuleMap module_map(uint8_t identifier);

enum class Quantity { temperature, supply_voltage, rx_power, tx_bias, tx_power };
const char* quantity_name(Quantity quantity);  // "temperature", "rx_power", ...

// In SI units: degrees Celsius, volts, watts, amperes.
struct Thresholds {
  double high_alarm = 0, low_alarm = 0, high_warning = 0, low_warning = 0;
};

struct Monitor {
  Quantity quantity;
  int lane = 0;  // 1-4 (CMIS: 1-8) for a lane's, 0 for the module's own
  double value = 0;
  std::optional<Thresholds> limits = {};  // none: no page 03h, or the module sets none (all zero)
  // The module's latched flags for it (SFF-8636 bytes 6-14, CMIS lower byte 9 and page 11h,
  // cleared when read): set by any excursion since the last read, even one that is over.
  bool latched_alarm = false;
  bool latched_warning = false;
};

struct ModuleDiagnostics {
  uint8_t identifier = 0;
  std::string vendor, part_number, serial;  // upper page 00h, trailing spaces removed
  bool monitors_implemented = false;        // an optical module: copper cables monitor nothing
  std::vector<Monitor> monitors;            // temperature and voltage, then per lane
};

// The pages one reading needs: lower page 00h, upper page 00h and, on a paged module, upper page
// 03h (byte 2 bit 2 clear; a flat-memory module has no thresholds).
inline constexpr uint8_t kThresholdPage = 3;
bool has_threshold_page(std::span<const uint8_t> lower);

// Decodes an SFF-8636 module from lower page 00h (128 bytes), upper page 00h (128 bytes) and
// upper page 03h (128 bytes, or empty). Empty when a page is short, the module is not SFF-8636 or
// not ready yet (byte 2 bit 0, Data_Not_Ready). Thresholds out of order are none.
std::optional<ModuleDiagnostics> decode_sff8636(std::span<const uint8_t> lower,
                                                std::span<const uint8_t> upper,
                                                std::span<const uint8_t> page3);

// CMIS (QSFP-DD, OSFP, QSFP112: OIF-CMIS 5.x, the offsets of ethtool's cmis.h). Module-level
// readings and flags are in lower page 00h; what the module monitors and its bias multiplier in
// upper page 01h; thresholds in upper page 02h; each lane's flags and monitors in upper page 11h
// of bank 0. A flat-memory module (lower byte 2 bit 7: a passive copper cable) has page 00h only.
inline constexpr uint8_t kCmisAdvertisingPage = 0x01, kCmisThresholdPage = 0x02,
                         kCmisLanePage = 0x11;
bool cmis_flat_memory(std::span<const uint8_t> lower);

// Decodes a CMIS module from lower and upper page 00h and, on a paged module, upper pages 01h,
// 02h and 11h (each 128 bytes, or empty when unread). Empty when a page 00h half is short, the
// module is not CMIS, or it is not in ModuleReady (its lane monitors mean nothing before). The
// lanes are the media lanes of the module's first application (byte 88); without page 01h or 11h
// the lanes are not decoded, without page 02h there are no thresholds.
std::optional<ModuleDiagnostics> decode_cmis(std::span<const uint8_t> lower,
                                             std::span<const uint8_t> upper,
                                             std::span<const uint8_t> page01,
                                             std::span<const uint8_t> page02,
                                             std::span<const uint8_t> page11);
// The CMIS module state (lower byte 3 bits 3-1) as the specification names it.
const char* cmis_module_state(std::span<const uint8_t> lower);

enum class Excursion { none, warning, alarm };
// The worse of the value against the module's thresholds and the flags it latched.
Excursion excursion(const Monitor& monitor);

// Any monitor beyond the module's alarm thresholds (or latched as such): an alarm finding naming
// each; else any beyond a warning threshold: a warning finding.
std::optional<finding::Finding> judge_transceiver(const std::string& netdev,
                                                  const ModuleDiagnostics& module);

inline constexpr finding::Kind kTransceiverAlarm{
    "transceiver_alarm", finding::Severity::Critical, "health",
    "The port's optical module reports a reading beyond its own alarm threshold (or latched one "
    "since the last read): receive power this low means a dirty or damaged fibre, a failing "
    "laser at either end, or a module about to lose the link; temperature or bias this far out "
    "means the module itself is failing.",
    "`ethtool -m <netdev>` shows each lane's power, bias and the module's thresholds. Clean the "
    "fibre and connectors at both ends, reseat the module, then replace the module or the cable. "
    "The switch port's own optic readings tell which end is at fault."};
inline constexpr finding::Kind kTransceiverWarning{
    "transceiver_warning", finding::Severity::Warning, "health",
    "The port's optical module reports a reading beyond its own warning threshold: the link still "
    "works, but its margin is going (receive power sliding toward the alarm, a laser ageing, a "
    "module running hot), and symbol errors follow.",
    "`ethtool -m <netdev>` for each lane's readings and thresholds. Plan a cleaning or a "
    "replacement of the module or fibre at the next maintenance window; watch "
    "roce_transceiver_rx_power_watts for a trend."};

}  // namespace roced::health
