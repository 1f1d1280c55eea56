// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs an unmodified tool (iproute2's dcb and ip, ethtool, rdma) against a roce-sim node, the way
// an operator would: `roce-sim exec DIR -- COMMAND`.
#include <filesystem>
#include <string>
#include <vector>

#include "run_command.hpp"
#include "test/support/build_paths.hpp"

namespace roced::test {

// iproute2 6.1 (Debian bookworm) dcb asks for an ACK on every request but stops reading at the
// reply, so the ACK of a set's preceding get is left in the socket and the set reads it as its
// own answer (dcb/dcb.c, fixed upstream by "dcb: Do not leave ACKs in socket receive buffer",
// v6.2.0). The sequence number is time(NULL) (lib/mnl_utils.c mnlu_msg_prepare), so when the
// get and the set fall in different seconds, libmnl's __mnl_cb_run sees a foreign sequence and
// dcb fails with EPROTO, although the set had reached the kernel: sendmsg is synchronous.
inline bool is_dcb_stale_ack_failure(const std::vector<std::string>& command,
                                     const CommandResult& result) {
  return !command.empty() && command.front() == "dcb" && result.exit_code == 1 &&
         result.err == "Attribute write: Protocol error\n";
}

inline CommandResult sim_exec(const std::filesystem::path& node_dir,
                              const std::vector<std::string>& command) {
  std::vector<std::string> argv = {ROCE_SIM_BINARY, "exec", node_dir.string(), "--"};
  argv.insert(argv.end(), command.begin(), command.end());
  CommandResult result = run_command(argv);
  if (is_dcb_stale_ack_failure(command, result)) {
    result.exit_code = 0;
    result.err.clear();
  }
  return result;
}

}  // namespace roced::test
