// SPDX-License-Identifier: Apache-2.0
// The RDMA netlink decoders (rdma/nldev.cpp: the device dump of nldev_get_dumpit and the counter
// tables of stat_get_doit_default_counter) with their replies taken from the input: the reader
// a scrape uses, whatever bytes a kernel could send.
#include <cstddef>
#include <cstdint>

#include "fuzz/support/check.hpp"
#include "fuzz/support/scripted_rtnl.hpp"
#include "rdma/nldev.hpp"

using roced::fuzz::require_explained;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  roced::fuzz::DatagramStream replies({data, size});
  roced::System system = roced::fuzz::scripted_rtnl_system(replies);
  roced::rdma::NldevCounterReader reader(system);
  const std::pair<std::string, int> ports[] = {{"mlx5_0", 1}, {"mlx5_1", 1}};
  auto answers = reader.read(ports);
  if (!answers) return 0;  // no device list: the caller reads sysfs
  for (auto& counters : *answers) {
    require_explained(counters);
    if (counters) {
      for (const auto& [name, value] : *counters) (void)(name.size() + value);
    }
  }
  return 0;
}
