// SPDX-License-Identifier: Apache-2.0
#pragma once
// A PortDevice in front of another one (the real device on roce-sim's in-process node): every
// write request is logged as "op detail" and may be answered by the script instead of reaching
// the port (an errno, or success without passing it on). It holds no port state of its own:
// what the port does with a request is roce-sim's model's business.
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon/apply/port_device.hpp"

namespace roced::test {

class ScriptedDevice final : public apply::PortDevice {
 public:
  explicit ScriptedDevice(std::unique_ptr<apply::PortDevice> port) : port_(std::move(port)) {}

  std::vector<std::string> log;  // every write request, "op detail", in order
  // op -> what its next requests answer: an errno, or 0 to pass the request on.
  std::map<std::string, std::deque<int>> answers;
  std::set<std::string> ignored;  // ops that answer success without reaching the port
  int reads = 0;

  PortStatus read() override {
    ++reads;
    return port_->read();
  }
  PortStatus read_part(const PortStatus& before, StatusPart part) override {
    ++reads;
    return port_->read_part(before, part);
  }
  Result<std::vector<dcb::AppEntry>> dscp_apps() override {
    ++reads;
    return port_->dscp_apps();
  }

  Result<void> set_dcbx(uint8_t mode) override {
    return request("set_dcbx", hex(mode), [&] { return port_->set_dcbx(mode); });
  }
  Result<void> add_apps(const std::vector<dcb::AppEntry>& apps) override {
    return request("add_apps", std::to_string(apps.size()), [&] { return port_->add_apps(apps); });
  }
  Result<void> delete_apps(const std::vector<dcb::AppEntry>& apps) override {
    return request("delete_apps", std::to_string(apps.size()),
                   [&] { return port_->delete_apps(apps); });
  }
  Result<void> set_ets(const dcb::Ets& ets) override {
    return request("set_ets", "tc3 " + std::to_string(ets.tc_tx_bw[3]),
                   [&] { return port_->set_ets(ets); });
  }
  Result<void> set_maxrate(const dcb::Maxrate& maxrate) override {
    return request("set_maxrate", "tc7 " + std::to_string(maxrate.tc_kbps[7]),
                   [&] { return port_->set_maxrate(maxrate); });
  }
  Result<void> set_pfc(const dcb::Pfc& pfc) override {
    return request("set_pfc",
                   "mask " + hex(pfc.enabled_mask) + " delay " + std::to_string(pfc.delay),
                   [&] { return port_->set_pfc(pfc); });
  }
  Result<void> set_buffer(const dcb::Buffer& buffer) override {
    return request("set_buffer", std::to_string(buffer.buffer_size[0]),
                   [&] { return port_->set_buffer(buffer); });
  }
  Result<void> set_mtu(uint32_t mtu) override {
    return request("set_mtu", std::to_string(mtu), [&] { return port_->set_mtu(mtu); });
  }
  Result<void> set_stall_prevention(uint16_t raw) override {
    return request("set_stall", std::to_string(raw),
                   [&] { return port_->set_stall_prevention(raw); });
  }
  Result<void> set_global_pause(const PauseParams& pause) override {
    return request("set_pause", std::string(pause.rx ? "rx" : "-") + (pause.tx ? "tx" : "-"),
                   [&] { return port_->set_global_pause(pause); });
  }
  Result<void> set_ecn_enable(const std::string& point, int priority, bool enabled) override {
    return request("set_ecn_enable",
                   point + " " + std::to_string(priority) + " " + (enabled ? "1" : "0"),
                   [&] { return port_->set_ecn_enable(point, priority, enabled); });
  }
  Result<void> set_ecn_knob(rdma::EcnFlavour flavour, const std::string& name,
                            uint64_t value) override {
    return request("set_knob", name + " " + std::to_string(value),
                   [&] { return port_->set_ecn_knob(flavour, name, value); });
  }
  Result<void> make_rdma_cm_group() override {
    return request("make_rdma_cm_group", "", [&] { return port_->make_rdma_cm_group(); });
  }
  Result<void> set_rdma_cm_mode(const std::string& mode) override {
    return request("set_rdma_cm_mode", mode, [&] { return port_->set_rdma_cm_mode(mode); });
  }
  Result<void> set_rdma_cm_tos(int tos) override {
    return request("set_rdma_cm_tos", std::to_string(tos),
                   [&] { return port_->set_rdma_cm_tos(tos); });
  }

 private:
  static std::string hex(unsigned value) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
  }

  template <class Pass>
  Result<void> request(const std::string& op, const std::string& detail, Pass pass) {
    log.push_back(detail.empty() ? op : op + " " + detail);
    auto& queue = answers[op];
    if (!queue.empty()) {
      const int answer = queue.front();
      queue.pop_front();
      if (answer != 0) return Error{answer, op + " refused"};
    }
    if (ignored.count(op)) return ok();
    return pass();
  }

  std::unique_ptr<apply::PortDevice> port_;
};

}  // namespace roced::test
