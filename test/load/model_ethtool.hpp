// SPDX-License-Identifier: Apache-2.0
#pragma once
// The simulated node's ethtool ioctl answered inside this process: roce-sim's own EthtoolService
// over a roce_sim::Node, fed the bytes its socket would carry, each call stamped by the caller's
// clock (a virtual one in the soak). No socket and no server loop, so a week of polls costs only
// what the model and roced's code cost.

#include <chrono>
#include <functional>
#include <vector>

#include "os/system.hpp"
#include "sim/model/node.hpp"
#include "sim/server/ethtool_service.hpp"

namespace roced::load {

class ModelEthtool final : public EthtoolIoctl {
 public:
  using Now = std::function<std::chrono::steady_clock::time_point()>;
  ModelEthtool(roce_sim::Node& node, Now now) : service_(node), now_(std::move(now)) {}

  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override;
  // Each call issued and answered at the clock's now: the model answers in no time.
  void call_batch(std::span<EthtoolCall> calls) override;

 private:
  roce_sim::server::EthtoolService service_;
  Now now_;
  std::vector<uint8_t> request_;  // reused: a week of polls must not allocate per call
};

}  // namespace roced::load
