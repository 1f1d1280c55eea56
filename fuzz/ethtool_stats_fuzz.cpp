// SPDX-License-Identifier: Apache-2.0
// The ethtool statistics parsers (netlink/ethtool.cpp): ETHTOOL_GSSET_INFO, GSTRINGS and GSTATS
// as EthtoolClient and the storm watchdog's StatsReader read them, plus driver info and the PFC
// stall-prevention tunable. Each ioctl's answer is the next roce-sim reply of the input; the
// names found go through the exporter's name parser (telemetry/ethtool_names.cpp).
#include <cstddef>
#include <cstdint>

#include "fuzz/support/check.hpp"
#include "fuzz/support/scripted_ethtool.hpp"
#include "ethtool/ethtool.hpp"
#include "ethtool/ethtool_names.hpp"

using roced::fuzz::require;
using roced::fuzz::require_explained;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  roced::fuzz::DatagramStream replies({data, size});
  roced::System system;
  system.ethtool = std::make_unique<roced::fuzz::ScriptedEthtoolIoctl>(replies);
  roced::EthtoolClient client(system);
  const std::string port = "lan2";

  auto stats = client.stats(port);
  require_explained(stats);
  if (stats) {
    for (const auto& counter : *stats) (void)roced::parse_ethtool_name(counter.name);
  }
  require_explained(client.driver_info(port));
  require_explained(client.pfc_prevention_timeout(port));

  roced::StatsReader reader(system, port);
  auto names = reader.names();
  require_explained(names);
  for (int poll = 0; poll < 2; ++poll) require_explained(reader.values());
  auto call = reader.values_call();
  require_explained(call);
  if (call) {
    call->result = system.ethtool->call(port, call->buffer, call->in_len);
    auto values = reader.values_answered(*call);
    require_explained(values);
    // The values read lie inside the buffer the call was given.
    if (values) {
      require(values->data() >= reinterpret_cast<const uint64_t*>(call->buffer.data()) &&
                  values->data() + values->size() <=
                      reinterpret_cast<const uint64_t*>(call->buffer.data() + call->buffer.size()),
              "values inside the call's buffer");
    }
  }
  return 0;
}
