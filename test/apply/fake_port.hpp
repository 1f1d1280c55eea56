// SPDX-License-Identifier: Apache-2.0
#pragma once
// An in-memory mlx5 port behind the applier's PortDevice: every write request is logged, changes
// the state the way mlx5 does (APP entries are the trust state, setdcbx 0 clears only HOST,
// np_cnp_prio forces np_cnp_prio_mode 0) and can be made to fail or to be ignored.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "daemon/apply/port_device.hpp"
#include "rdma/ecn_knobs.hpp"

namespace roced::test {

class FakePort final : public apply::PortDevice {
 public:
  explicit FakePort(PortStatus initial) : state(std::move(initial)) {}

  PortStatus state;
  std::vector<std::string> log;  // every write request, "op detail", in order
  // op -> what its next requests answer: an errno, or 0 for success.
  std::map<std::string, std::deque<int>> answers;
  std::set<std::string> ignored;  // ops that answer success and change nothing
  int reads = 0;

  PortStatus read() override {
    ++reads;
    return state;
  }
  Result<std::vector<dcb::AppEntry>> dscp_apps() override {
    ++reads;
    return *state.dscp_apps.value;
  }

  Result<void> set_dcbx(uint8_t mode) override {
    return request("set_dcbx", hex(mode), [&]() -> int {
      if (mode & dcb::kDcbxLldManaged) return EINVAL;
      if (mode == 0) {
        state.dcbx.value = static_cast<uint8_t>(*state.dcbx.value & ~dcb::kDcbxHost);
        return 0;
      }
      if (!(mode & dcb::kDcbxHost)) return EINVAL;
      state.dcbx.value = mode;
      return 0;
    });
  }
  Result<void> add_apps(const std::vector<dcb::AppEntry>& apps) override {
    return request("add_apps", std::to_string(apps.size()), [&] {
      auto& table = *state.dscp_apps.value;
      for (const auto& app : apps) {
        std::erase_if(table, [&](const dcb::AppEntry& e) { return e.protocol == app.protocol; });
        table.push_back(app);
      }
      state.trust.value = dcb::trust_from_apps(table);
      return 0;
    });
  }
  Result<void> delete_apps(const std::vector<dcb::AppEntry>& apps) override {
    return request("delete_apps", std::to_string(apps.size()), [&] {
      auto& table = *state.dscp_apps.value;
      for (const auto& app : apps) {
        auto it = std::find(table.begin(), table.end(), app);
        if (it == table.end()) return ENOENT;  // mlx5: the priority must be the current one
        table.erase(it);
      }
      state.trust.value = dcb::trust_from_apps(table);
      return 0;
    });
  }
  Result<void> set_ets(const dcb::Ets& ets) override {
    return request("set_ets", "tc3 " + std::to_string(ets.tc_tx_bw[3]), [&] {
      state.ets.value = ets;
      return 0;
    });
  }
  Result<void> set_maxrate(const dcb::Maxrate& maxrate) override {
    return request("set_maxrate", "tc7 " + std::to_string(maxrate.tc_kbps[7]), [&] {
      state.maxrate.value = maxrate;
      return 0;
    });
  }
  Result<void> set_pfc(const dcb::Pfc& pfc) override {
    return request("set_pfc",
                   "mask " + hex(pfc.enabled_mask) + " delay " + std::to_string(pfc.delay), [&] {
                     state.pfc.value = pfc;
                     return 0;
                   });
  }
  Result<void> set_buffer(const dcb::Buffer& buffer) override {
    return request("set_buffer", std::to_string(buffer.buffer_size[0]), [&] {
      state.buffer.value = buffer;
      return 0;
    });
  }
  Result<void> set_mtu(uint32_t mtu) override {
    return request("set_mtu", std::to_string(mtu), [&] {
      state.link.value->mtu = mtu;
      return 0;
    });
  }
  Result<void> set_stall_prevention(uint16_t raw) override {
    return request("set_stall", std::to_string(raw), [&] {
      // mlx5 reads auto back as 100 ms.
      state.stall_prevention.value = StallPrevention{raw == 0xffff ? uint16_t{100} : raw};
      return 0;
    });
  }
  Result<void> set_ecn_enable(const std::string& point, int priority, bool enabled) override {
    return request("set_ecn_enable",
                   point + " " + std::to_string(priority) + " " + (enabled ? "1" : "0"), [&] {
                     auto& mask =
                         point == "np" ? state.ecn.value->np_enabled : state.ecn.value->rp_enabled;
                     const auto bit = static_cast<uint8_t>(1u << priority);
                     mask = static_cast<uint8_t>(enabled ? (*mask | bit) : (*mask & ~bit));
                     return 0;
                   });
  }
  Result<void> set_ecn_knob(rdma::EcnFlavour flavour, const std::string& name,
                            uint64_t value) override {
    return request("set_knob", name + " " + std::to_string(value), [&] {
      auto& ecn = *state.ecn.value;
      if (flavour == rdma::EcnFlavour::Inbox) {
        (name.rfind("np_", 0) == 0 ? ecn.np_params : ecn.rp_params)[name] = value;
        if (name == "np_cnp_prio") ecn.np_params["np_cnp_prio_mode"] = 0;  // cong.c
      } else {
        const std::string ofed = rdma::knob_path(flavour, "", "lan2", name)->filename();
        (name.rfind("np_", 0) == 0 ? ecn.np_params : ecn.rp_params)[ofed] = value;
      }
      return 0;
    });
  }
  Result<void> make_rdma_cm_group() override {
    return request("make_rdma_cm_group", "", [&] {
      auto& cm = *state.rdma_cm.value;
      if (!cm.configured) cm = rdma::RdmaCmDefaults{true, "RoCE v2", 0};
      return 0;
    });
  }
  Result<void> set_rdma_cm_mode(const std::string& mode) override {
    return request("set_rdma_cm_mode", mode, [&] {
      state.rdma_cm.value->roce_mode = mode;
      return 0;
    });
  }
  Result<void> set_rdma_cm_tos(int tos) override {
    return request("set_rdma_cm_tos", std::to_string(tos), [&] {
      state.rdma_cm.value->tos = tos;
      return 0;
    });
  }

 private:
  static std::string hex(unsigned value) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
  }

  template <class Change>
  Result<void> request(const std::string& op, const std::string& detail, Change change) {
    log.push_back(detail.empty() ? op : op + " " + detail);
    auto& queue = answers[op];
    if (!queue.empty()) {
      const int answer = queue.front();
      queue.pop_front();
      if (answer != 0) return Error{answer, op + " refused"};
    }
    if (ignored.count(op)) return ok();
    if (const int err = change(); err != 0) return Error{err, op + " refused by the model"};
    return ok();
  }
};

}  // namespace roced::test
