// SPDX-License-Identifier: Apache-2.0
#include "model_ethtool.hpp"

#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roced::load {

Result<void> ModelEthtool::call(const std::string& ifname, std::span<uint8_t> buffer,
                                size_t in_len) {
  if (auto encoded = roce_sim::encode_sim_ethtool_request(ifname, buffer, in_len, request_);
      !encoded) {
    return encoded;
  }
  const auto reply = service_.handle(request_);
  service_.take_request_log();  // the server's --verbose log: dropped, or it grows all week
  return roce_sim::decode_sim_ethtool_reply(reply, ifname, buffer);
}

void ModelEthtool::call_batch(std::span<EthtoolCall> calls) {
  for (EthtoolCall& one : calls) {
    one.issued = now_();
    one.result = call(std::string(one.ifname), one.buffer, one.in_len);
    one.answered = now_();
  }
}

}  // namespace roced::load
