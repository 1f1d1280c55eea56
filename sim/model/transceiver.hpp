// SPDX-License-Identifier: Apache-2.0
#pragma once
// The optical module in a port's cage, as its management interface answers. A QSFP28
// (SFF-8636 Rev 2.10a): lower page 00h with the latched flags and the live monitors, upper page
// 00h with its identity, upper page 03h with its thresholds. An OSFP (CMIS 5.0, the 400G modules
// of ConnectX-7): lower page 00h with the module's flags and monitors, upper pages 00h (identity),
// 01h (what it monitors), 02h (thresholds) and 11h bank 0 (each lane's flags and monitors). The
// module latches a flag whenever a reading passes a threshold and clears the flags a host reads
// (SFF-8636 6.2.3), setting them again while the condition lasts: a second reader, `ethtool -m` or
// another daemon, takes the flags of an excursion that is over before the first would have seen
// them.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace roce_sim {

// none: an empty cage (the port has one, with nothing in it).
enum class ModuleForm { qsfp28, osfp, none };

class Transceiver {
 public:
  static constexpr int kLanes = 4;  // the CMIS module's application uses 4 of its 8 lanes
  // ETH_MODULE_SFF_8636_MAX_LEN: the legacy ioctl's flat image, pages 00h-03h.
  static constexpr uint32_t kLegacyLength = 640;

  explicit Transceiver(std::string serial, ModuleForm form = ModuleForm::qsfp28);
  ModuleForm form() const { return form_; }
  uint8_t identifier() const { return form_ == ModuleForm::osfp ? 0x19 : 0x11; }  // SFF-8024

  double temperature_c() const { return temperature_c_; }
  double rx_power_mw(int lane) const { return lanes_[lane].rx_power_mw; }
  // A new reading; a value beyond a threshold latches its flags at once.
  void set_temperature_c(double celsius);
  void set_rx_power_mw(int lane, double milliwatts);  // lane 0-3
  void restore();  // the healthy module's readings again (flags already latched stay)

  // `length` bytes from `offset` (0-255; page > 0: 128-255) of `page`, as MCIA reads them;
  // reading any of bytes 3-21 of the lower page clears those latched flags.
  std::vector<uint8_t> read(uint8_t page, uint32_t offset, uint32_t length);

 private:
  struct Lane {
    double rx_power_mw, tx_power_mw, tx_bias_ma;
  };
  std::array<uint8_t, 256> page0() const;
  std::array<uint8_t, 256> page3() const;
  std::array<uint8_t, 19> conditions() const;  // bytes 3-21 as the readings are now
  void latch();
  // CMIS: the module flags (lower byte 9) and the lane flags (page 11h bytes 135-152) as the
  // readings are now, the pages, and the reads that clear what they latched.
  std::array<uint8_t, 19> cmis_conditions() const;  // index 0: byte 9; 1-18: page 11h 135-152
  std::array<uint8_t, 256> cmis_page(uint8_t page) const;
  std::vector<uint8_t> cmis_read(uint8_t page, uint32_t offset, uint32_t length);

  std::string serial_;
  ModuleForm form_;
  double temperature_c_ = 38.5;
  double vcc_v_ = 3.29;
  std::array<Lane, kLanes> lanes_{};
  std::array<uint8_t, 19> latched_{};
};

}  // namespace roce_sim
