// SPDX-License-Identifier: Apache-2.0
// The LLDP decoder (lldp/), fed any bytes as an Ethernet frame from the switch's side of a cable,
// then what the daemon does with a frame: the port's neighbours, their comparison with a host, and
// the texts that reach a log line or a metric label.
#include <cstddef>
#include <cstdint>

#include "fuzz/support/check.hpp"
#include "lldp/compare.hpp"

namespace lldp = roced::lldp;
using roced::fuzz::require;

namespace {

bool printable(const std::string& text) {
  for (const char c : text) {
    if (c < 0x20 || c > 0x7e || c == '"') return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const lldp::Decoded decoded = lldp::decode_frame({data, size});
  if (!decoded.lldpdu) {
    require(!decoded.error.empty(), "a dropped frame says why");
    return 0;
  }
  const lldp::Lldpdu& l = *decoded.lldpdu;
  for (const auto* text :
       {&l.chassis_id, &l.port_id, &l.system_name, &l.port_description, &l.system_description}) {
    require(printable(*text), "wire text is printable");
    require(text->size() <= 4 * 511, "wire text is bounded by its TLV");
  }
  lldp::Neighbours neighbours;
  const lldp::Neighbours::TimePoint now{std::chrono::seconds(1)};
  (void)neighbours.hear(l, now);
  require(neighbours.all().size() <= lldp::kMaxNeighbours, "neighbours are capped");
  lldp::HostState host;
  host.dcbx = roced::dcb::kDcbxHost | roced::dcb::kDcbxVerIeee;
  host.pfc = roced::dcb::Pfc{};
  host.pfc->enabled_mask = 1u << 3;
  host.apps = std::vector<roced::dcb::AppEntry>{{5, 3, 26}};
  host.ets = roced::dcb::Ets{};
  host.mtu = 4200;
  const lldp::PeerReport report = lldp::compare(neighbours, host);
  for (const auto& found : report.findings) {
    require(!found.id.empty() && printable(found.wanted) && printable(found.found),
            "a finding is named and printable");
  }
  (void)neighbours.expire(now + std::chrono::seconds(l.ttl));
  require(neighbours.all().empty(), "a neighbour expires with its TTL");
  return 0;
}
