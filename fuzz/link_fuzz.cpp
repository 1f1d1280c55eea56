// SPDX-License-Identifier: Apache-2.0
// The rtnetlink link and address decoders (link/link.cpp, RTM_NEWLINK as rtnl_fill_ifinfo lays it
// out; link/addresses.cpp, RTM_NEWADDR as inet_fill_ifaddr / inet6_fill_ifaddr do) and
// rtnl_request's reply handling (ACKs, extended ACKs, NLMSG_DONE, interrupted dumps): LinkClient's
// calls with their replies taken from the input (a stream of datagrams).
#include <cstddef>
#include <cstdint>

#include "fuzz/support/check.hpp"
#include "fuzz/support/scripted_rtnl.hpp"
#include "link/addresses.hpp"
#include "link/link.hpp"

using roced::fuzz::require_explained;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  roced::fuzz::DatagramStream replies({data, size});
  roced::System system = roced::fuzz::scripted_rtnl_system(replies);
  roced::LinkClient links(system);

  auto all = links.list();
  require_explained(all);
  if (all) {
    for (const auto& link : *all) (void)roced::operstate_name(link.operstate);
  }
  auto one = links.get("lan2");
  require_explained(one);
  if (one) (void)roced::operstate_name(one->operstate);
  require_explained(links.set_mtu("lan2", 9000));
  require_explained(links.set_admin_up("lan2", true));
  auto addresses = roced::read_addresses(system);
  require_explained(addresses);
  return 0;
}
