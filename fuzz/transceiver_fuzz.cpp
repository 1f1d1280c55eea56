// SPDX-License-Identifier: Apache-2.0
// The SFF-8636 and CMIS decoders on module memory as ethtool netlink hands it over: the input is
// cut into 128-byte half pages (a short input leaves the later ones short or empty): lower and
// upper page 00h, then page 03h for SFF-8636, or pages 01h, 02h and 11h for CMIS; then judged as
// the health module judges it.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "fuzz/support/check.hpp"
#include "health/transceiver.hpp"

using roced::fuzz::require;
namespace health = roced::health;

namespace {

void check(const std::optional<health::ModuleDiagnostics>& module, size_t size, int lanes) {
  if (!module) return;
  require(size >= 256, "only whole lower and upper pages decode");
  require(module->vendor.size() <= 16 && module->serial.size() <= 16,
          "a text field fits its 16 bytes");
  for (const health::Monitor& m : module->monitors) {
    require(std::isfinite(m.value), "a reading is a number");
    require(m.lane >= 0 && m.lane <= lanes, "a lane is one of the module's, or 0 for the module");
    health::excursion(m);
  }
  if (const auto found = health::judge_transceiver("lan2", *module)) {
    require(!found->text.empty() && found->subject == "lan2", "a finding names its port");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  const auto part = [&](size_t index) {
    const size_t from = std::min(size, index * 128);
    return input.subspan(from, std::min<size_t>(128, size - from));
  };
  health::has_threshold_page(part(0));
  health::cmis_flat_memory(part(0));
  health::cmis_module_state(part(0));
  check(health::decode_sff8636(part(0), part(1), part(2)), size, 4);
  check(health::decode_cmis(part(0), part(1), part(2), part(3), part(4)), size, 8);
  return 0;
}
