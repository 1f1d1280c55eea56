// SPDX-License-Identifier: Apache-2.0
// The SFF-8636 decoder on module memory as ethtool netlink hands it over: the input is cut into
// lower page 00h, upper page 00h and upper page 03h (128 bytes each; a short input leaves the
// later pages short or empty), then judged as the health module judges it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/support/check.hpp"
#include "health/transceiver.hpp"

using roced::fuzz::require;
namespace health = roced::health;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  const auto part = [&](size_t index) {
    const size_t from = std::min(size, index * 128);
    return input.subspan(from, std::min<size_t>(128, size - from));
  };
  health::has_threshold_page(part(0));
  const auto module = health::decode_sff8636(part(0), part(1), part(2));
  if (!module) return 0;
  require(size >= 256, "only whole lower and upper pages decode");
  require(module->vendor.size() <= 16 && module->serial.size() <= 16,
          "a text field fits its 16 bytes");
  for (const health::Monitor& m : module->monitors) {
    require(std::isfinite(m.value), "a reading is a number");
    require(m.lane >= 0 && m.lane <= 4, "a lane is 1-4, or 0 for the module");
    health::excursion(m);
  }
  if (const auto found = health::judge_transceiver("lan2", *module)) {
    require(!found->text.empty() && found->subject == "lan2", "a finding names its port");
  }
  return 0;
}
