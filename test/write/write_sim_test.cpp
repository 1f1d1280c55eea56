// SPDX-License-Identifier: Apache-2.0
// Each kind of write's kernel call on roce-sim's mlx5 port model in this process: what it writes
// reads back, and its undo, made from the value read before, reads as before again.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "in_process_node.hpp"
#include "port/discovery.hpp"
#include "port/status.hpp"
#include "write/journal.hpp"
#include "write/write.hpp"

namespace roced::write {
namespace {

class WriteOnModel : public test::InProcessNode {
 protected:
  void SetUp() override {
    test::InProcessNode::SetUp();
    auto found = describe_netdev(*system_.files, "lan2");
    ASSERT_TRUE(found.ok()) << found.error().message;
    port_ = *found;
  }
  PortStatus status() {
    StatusOptions options;
    options.hw_counters = false;
    return read_port_status(system_, port_, options);
  }

  DiscoveredPort port_;
};

std::string apps_of(const PortStatus& s) {
  std::string out;
  for (const auto& app : s.dscp_apps.value.value_or(std::vector<dcb::AppEntry>{})) {
    out += std::to_string(app.protocol) + ":" + std::to_string(app.priority) + " ";
  }
  return out;
}

TEST_F(WriteOnModel, EachKindReadsBackAndItsUndoPutsItBack) {
  const PortStatus before = status();
  ASSERT_TRUE(before.pfc.ok() && before.ets.ok() && before.link.ok() &&
              before.stall_prevention.ok() && before.global_pause.ok() && before.dscp_apps.ok() &&
              before.ecn.ok() && before.dcbx.ok());
  dcb::Pfc pfc = *before.pfc.value;
  pfc.enabled_mask = 0x08;
  pfc.delay = 20;
  dcb::Ets ets = *before.ets.value;
  ets.tc_tsa.fill(dcb::Tsa::Ets);
  ets.tc_tx_bw = {10, 10, 10, 40, 10, 10, 5, 5};
  const rdma::EcnFlavour flavour = before.ecn.value->flavour;
  const uint64_t cnp_dscp = before.ecn.value->cnp_dscp().value_or(0);

  struct Case {
    Write write;
    Undo undo;
    std::function<std::string(const PortStatus&)> show;  // the value the write changes
    std::string written;                                 // what it shows once written
  };
  const std::vector<Case> cases = {
      {Mtu{4200}, Mtu{4200}.undo(before.link.value->mtu),
       [](const PortStatus& s) { return std::to_string(s.link.value->mtu); }, "4200"},
      {Pfc{pfc}, Pfc{pfc}.undo(*before.pfc.value),
       [](const PortStatus& s) {
         return std::to_string(s.pfc.value->enabled_mask) + "/" +
                std::to_string(s.pfc.value->delay);
       },
       "8/20"},
      {Ets{ets}, Ets{ets}.undo(*before.ets.value),
       [](const PortStatus& s) { return std::to_string(s.ets.value->tc_tx_bw[3]); }, "40"},
      {StallPrevention{500}, StallPrevention{500}.undo(before.stall_prevention.value->raw),
       [](const PortStatus& s) { return std::to_string(s.stall_prevention.value->raw); }, "500"},
      {GlobalPause{PauseParams{false, true, true}},
       GlobalPause{PauseParams{false, true, true}}.undo(*before.global_pause.value),
       [](const PortStatus& s) {
         return std::to_string(s.global_pause.value->rx) + std::to_string(s.global_pause.value->tx);
       },
       "11"},
      {AppAdd{{{5, 3, 26}}}, AppAdd{{{5, 3, 26}}}.undo(*before.dscp_apps.value), apps_of, "26:3 "},
      {EcnKnob{flavour, "np_cnp_dscp", cnp_dscp == 26 ? 24u : 26u},
       EcnKnob{flavour, "np_cnp_dscp", 0}.undo(cnp_dscp),
       [](const PortStatus& s) { return std::to_string(s.ecn.value->cnp_dscp().value_or(999)); },
       cnp_dscp == 26 ? "24" : "26"},
  };
  for (const Case& one : cases) {
    SCOPED_TRACE(text(one.write));
    Target target{system_, port_};
    ASSERT_TRUE(perform(one.write, target).ok());
    EXPECT_NE(one.show(status()).find(one.written), std::string::npos) << one.show(status());
    SystemPort back(target);
    ASSERT_TRUE(perform(one.undo, back).ok());
    EXPECT_EQ(one.show(status()), one.show(before));
  }
}

// The group is made once (a second mkdir is no error), and the ToS in it goes back to what
// rdma_cm used before.
TEST_F(WriteOnModel, RdmaCmToSInTheGroupMadeForIt) {
  const PortStatus before = status();
  ASSERT_TRUE(before.rdma_cm.ok());
  Target target{system_, port_};
  ASSERT_TRUE(perform(RdmaCmGroup{}, target).ok());
  ASSERT_TRUE(perform(RdmaCmGroup{}, target).ok());
  ASSERT_TRUE(perform(RdmaCmTos{106}, target).ok());
  EXPECT_EQ(status().rdma_cm.value->effective_tos(), 106);
  SystemPort back(target);
  ASSERT_TRUE(perform(RdmaCmTos{106}.undo(before.rdma_cm.value->effective_tos()), back).ok());
  EXPECT_EQ(status().rdma_cm.value->effective_tos(), before.rdma_cm.value->effective_tos());
}

// A journal of several kinds on the port, unwound: the port reads as before.
TEST_F(WriteOnModel, AJournalUnwoundLeavesThePortAsItWas) {
  const PortStatus before = status();
  Target target{system_, port_};
  Journal journal;
  const Mtu mtu{9000};
  journal.record("MTU", mtu.undo(before.link.value->mtu));
  ASSERT_TRUE(perform(mtu, target).ok());
  const StallPrevention stall{0};
  journal.record("stall", stall.undo(before.stall_prevention.value->raw));
  ASSERT_TRUE(perform(stall, target).ok());
  SystemPort back(target);
  for (const auto& result : journal.undo_all(back)) EXPECT_TRUE(result.ok());
  const PortStatus after = status();
  EXPECT_EQ(after.link.value->mtu, before.link.value->mtu);
  EXPECT_EQ(after.stall_prevention.value->raw, before.stall_prevention.value->raw);
}

}  // namespace
}  // namespace roced::write
