// SPDX-License-Identifier: Apache-2.0
#pragma once
// A PortDevice in front of another one (the real device on roce-sim's in-process node): every
// write request (any write::Write) is logged as "op detail" and may be answered by the script
// instead of reaching the port (an errno, or success without passing it on). It holds no port state
// of its own: what the port does with a request is roce-sim's model's business.
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "daemon/apply/port_device.hpp"
#include "write/write.hpp"

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

  // Every kind of write through one call, logged under the names the tests and the golden
  // corpus use; a kind without a name of its own here logs as its kind and its words.
  Result<void> write(const write::Write& request) override {
    const auto [op, detail] = std::visit([](const auto& w) { return describe(w); }, request);
    return answer(op, detail, [&] { return port_->write(request); });
  }

 private:
  static std::string hex(unsigned value) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
  }

  using Logged = std::pair<std::string, std::string>;  // op, detail
  static Logged describe(const write::DcbxMode& w) { return {"set_dcbx", hex(w.mode)}; }
  static Logged describe(const write::AppAdd& w) {
    return {"add_apps", std::to_string(w.apps.size())};
  }
  static Logged describe(const write::AppDelete& w) {
    return {"delete_apps", std::to_string(w.apps.size())};
  }
  static Logged describe(const write::Ets& w) {
    return {"set_ets", "tc3 " + std::to_string(w.ets.tc_tx_bw[3])};
  }
  static Logged describe(const write::Maxrate& w) {
    return {"set_maxrate", "tc7 " + std::to_string(w.maxrate.tc_kbps[7])};
  }
  static Logged describe(const write::Pfc& w) {
    return {"set_pfc", "mask " + hex(w.pfc.enabled_mask) + " delay " + std::to_string(w.pfc.delay)};
  }
  static Logged describe(const write::Buffer& w) {
    return {"set_buffer", std::to_string(w.buffer.buffer_size[0])};
  }
  static Logged describe(const write::Mtu& w) { return {"set_mtu", std::to_string(w.mtu)}; }
  static Logged describe(const write::StallPrevention& w) {
    return {"set_stall", std::to_string(w.raw)};
  }
  static Logged describe(const write::GlobalPause& w) {
    return {"set_pause", std::string(w.pause.rx ? "rx" : "-") + (w.pause.tx ? "tx" : "-")};
  }
  static Logged describe(const write::EcnEnable& w) {
    return {"set_ecn_enable",
            w.point + " " + std::to_string(w.priority) + " " + (w.enabled ? "1" : "0")};
  }
  static Logged describe(const write::EcnKnob& w) {
    return {"set_knob", w.name + " " + std::to_string(w.value)};
  }
  static Logged describe(const write::RdmaCmGroup&) { return {"make_rdma_cm_group", ""}; }
  static Logged describe(const write::RdmaCmMode& w) { return {"set_rdma_cm_mode", w.mode}; }
  static Logged describe(const write::RdmaCmTos& w) {
    return {"set_rdma_cm_tos", std::to_string(w.tos)};
  }
  template <class Other>
  static Logged describe(const Other& w) {
    return {std::string(w.kind), w.text()};
  }

  template <class Pass>
  Result<void> answer(const std::string& op, const std::string& detail, Pass pass) {
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
