// SPDX-License-Identifier: Apache-2.0
// The DCB netlink decoders (dcb/): every DcbClient call, its replies taken from the input (a
// stream of datagrams, fuzz/support/datagram_stream.hpp) through rtnl_request, so IEEE_GET
// (ETS, PFC, maxrate, buffer, APP table, DCBX), GDCBX and the SET status replies are decoded as
// the daemon decodes a kernel's.
#include <cstddef>
#include <cstdint>

#include "dcb/client.hpp"
#include "fuzz/support/check.hpp"
#include "fuzz/support/scripted_rtnl.hpp"

using roced::fuzz::require_explained;
namespace dcb = roced::dcb;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  roced::fuzz::DatagramStream replies({data, size});
  roced::System system = roced::fuzz::scripted_rtnl_system(replies);
  dcb::DcbClient client(system);
  const std::string port = "lan2";

  auto state = client.get(port);
  require_explained(state);
  if (state) {
    (void)dcb::trust_from_apps(state->apps);
    (void)dcb::dscp_map_from_apps(state->apps);
    if (state->ets) {
      for (const dcb::Tsa tsa : state->ets->tc_tsa) (void)dcb::tsa_name(tsa);
    }
    if (state->dcbx) (void)dcb::dcbx_mode_name(*state->dcbx);
  }
  auto mode = client.get_dcbx(port);
  require_explained(mode);
  if (mode) (void)dcb::dcbx_mode_name(*mode);

  require_explained(client.set_dcbx(port, dcb::kDcbxHost | dcb::kDcbxVerIeee));
  dcb::Pfc pfc;
  pfc.enabled_mask = 1u << 3;
  pfc.delay = 7;
  require_explained(client.set_pfc(port, pfc));
  require_explained(client.set_ets(port, dcb::Ets{}));
  require_explained(client.set_maxrate(port, dcb::Maxrate{}));
  require_explained(client.set_buffer(port, dcb::Buffer{}));
  const std::vector<dcb::AppEntry> apps{{5, 3, 26}, {5, 6, 48}};
  require_explained(client.add_apps(port, apps));
  require_explained(client.delete_apps(port, apps));
  return 0;
}
