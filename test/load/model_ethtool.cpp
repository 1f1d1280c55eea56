// SPDX-License-Identifier: Apache-2.0
#include "model_ethtool.hpp"

#include <algorithm>
#include <cstring>

#include "roce_sim.h"

namespace roced::load {

Result<void> ModelEthtool::call(const std::string& ifname, std::span<uint8_t> buffer,
                                size_t in_len) {
  roce_sim_ethtool_req header{};
  if (ifname.size() >= sizeof header.ifname || in_len > buffer.size() ||
      buffer.size() < sizeof header.cmd) {
    return Error{EINVAL, ifname + ": bad ethtool request"};
  }
  std::memcpy(header.ifname, ifname.data(), ifname.size());
  std::memcpy(&header.cmd, buffer.data(), sizeof header.cmd);
  header.len = static_cast<uint32_t>(in_len);
  request_.resize(sizeof header + in_len);
  std::memcpy(request_.data(), &header, sizeof header);
  std::memcpy(request_.data() + sizeof header, buffer.data(), in_len);

  const auto reply = service_.handle(request_);
  service_.take_request_log();  // the server's --verbose log: dropped, or it grows all week
  roce_sim_ethtool_rep reply_header{};
  if (reply.size() < sizeof reply_header) return Error{EBADMSG, ifname + ": short reply"};
  std::memcpy(&reply_header, reply.data(), sizeof reply_header);
  if (reply_header.error < 0) return Error::from_errno(-reply_header.error, ifname + ": ethtool");
  const size_t payload =
      std::min<size_t>({reply_header.len, reply.size() - sizeof reply_header, buffer.size()});
  std::memcpy(buffer.data(), reply.data() + sizeof reply_header, payload);
  return ok();
}

void ModelEthtool::call_batch(std::span<EthtoolCall> calls) {
  for (EthtoolCall& one : calls) {
    one.issued = now_();
    one.result = call(std::string(one.ifname), one.buffer, one.in_len);
    one.answered = now_();
  }
}

}  // namespace roced::load
