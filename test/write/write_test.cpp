// SPDX-License-Identifier: Apache-2.0
// Each kind of write as described once: a name of its own, words, whether the kernel may apply
// it in part, and the undo made from the value read before it.
#include "write/write.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <variant>

namespace roced::write {
namespace {

// One write of every kind, default-valued: what the loops over every kind see.
template <size_t... I>
std::vector<Write> every_kind(std::index_sequence<I...>) {
  return {Write(std::in_place_index<I>)...};
}
std::vector<Write> every_kind() {
  return every_kind(std::make_index_sequence<std::variant_size_v<Write>>());
}

TEST(WriteKinds, EachHasANameOfItsOwnAndWords) {
  std::set<std::string_view> names;
  for (const Write& one : every_kind()) {
    EXPECT_TRUE(names.insert(kind(one)).second) << kind(one);
    EXPECT_FALSE(text(one).empty()) << kind(one);
  }
  EXPECT_EQ(names.size(), std::variant_size_v<Write>);
}

// What the applier's rollback counts on: these may have changed the port when refused.
TEST(WriteKinds, OnlyAppEntriesAndPfcMayApplyInPart) {
  std::set<std::string_view> partial;
  for (const Write& one : every_kind()) {
    if (may_apply_in_part(one)) partial.insert(kind(one));
  }
  EXPECT_EQ(partial, (std::set<std::string_view>{"app_add", "app_delete", "pfc"}));
}

TEST(WriteKinds, WordsSayTheValue) {
  dcb::Pfc pfc;
  pfc.enabled_mask = 0x08;
  pfc.delay = 7;
  EXPECT_EQ(text(Pfc{pfc}), "PFC mask 0x08, cable length 7 m");
  EXPECT_EQ(text(Mtu{9000}), "MTU 9000");
  EXPECT_EQ(text(StallPrevention{0xffff}), "PFC stall prevention auto");
  EXPECT_EQ(text(StallPrevention{0}), "PFC stall prevention off");
  EXPECT_EQ(text(StallPrevention{500}), "PFC stall prevention 500 ms");
  EXPECT_EQ(text(GlobalPause{PauseParams{false, true, false}}), "802.3x pause rx on, tx off");
  EXPECT_EQ(text(AppAdd{{{5, 3, 26}}}), "APP table: add DSCP 26 -> priority 3");
  EXPECT_EQ(text(AppDelete{std::vector<dcb::AppEntry>(64)}), "APP table: delete 64 entries");
  EXPECT_EQ(text(EcnKnob{rdma::EcnFlavour::Inbox, "np_cnp_dscp", 26}), "np_cnp_dscp 26");
  EXPECT_EQ(text(EcnEnable{"rp", 3, true}), "ECN rp priority 3 on");
  EXPECT_EQ(text(RdmaCmTos{106}), "rdma_cm default_roce_tos 106");
}

Undo writes_of(std::vector<Write> writes) { return Undo{std::move(writes), std::nullopt, {}}; }

// Most writes are undone by the same write with the value read before.
TEST(WriteUndo, TheSameWriteWithTheValueBefore) {
  EXPECT_EQ(Mtu{9000}.undo(1500), writes_of({Mtu{1500}}));
  EXPECT_EQ(StallPrevention{500}.undo(0xffff), writes_of({StallPrevention{0xffff}}));
  const PauseParams before{true, true, false};
  EXPECT_EQ(GlobalPause{PauseParams{}}.undo(before), writes_of({GlobalPause{before}}));
  EXPECT_EQ((EcnEnable{"np", 3, true}.undo(false)), writes_of({EcnEnable{"np", 3, false}}));
  EXPECT_EQ((EcnKnob{rdma::EcnFlavour::Ofed, "rp_ai_rate", 10}.undo(5)),
            writes_of({EcnKnob{rdma::EcnFlavour::Ofed, "rp_ai_rate", 5}}));
  EXPECT_EQ(RdmaCmMode{"RoCE v2"}.undo("IB/RoCE v1"), writes_of({RdmaCmMode{"IB/RoCE v1"}}));
  EXPECT_EQ(RdmaCmTos{106}.undo(0), writes_of({RdmaCmTos{0}}));
  dcb::Ets ets;
  ets.tc_tx_bw[3] = 50;
  EXPECT_EQ(Ets{ets}.undo(dcb::Ets{}), writes_of({Ets{dcb::Ets{}}}));
}

// mlx5e_dcbnl_setdcbx: a firmware mode goes back in two writes, host mode in one.
TEST(WriteUndo, DcbxFirmwareModeGoesBackInTwoWrites) {
  const DcbxMode host{dcb::kDcbxHost | dcb::kDcbxVerIeee};
  EXPECT_EQ(host.undo(dcb::kDcbxVerCee | dcb::kDcbxVerIeee),
            writes_of({DcbxMode{0x0d}, DcbxMode{0x00}}));
  EXPECT_EQ(DcbxMode{0}.undo(0x09), writes_of({DcbxMode{0x09}}));
}

// A delay of 0 is no cable length (NVIDIA's tree refuses it): the undo keeps the one written.
TEST(WriteUndo, PfcDelayZeroKeepsTheDelayWritten) {
  dcb::Pfc wanted;
  wanted.enabled_mask = 0x08;
  wanted.delay = 7;
  dcb::Pfc before;
  const Undo undo = Pfc{wanted}.undo(before);
  ASSERT_EQ(undo.writes.size(), 1u);
  const dcb::Pfc back = std::get<Pfc>(undo.writes[0]).pfc;
  EXPECT_EQ(back.enabled_mask, 0x00);
  EXPECT_EQ(back.delay, 7);
  before.delay = 20;
  EXPECT_EQ(std::get<Pfc>(Pfc{wanted}.undo(before).writes[0]).pfc.delay, 20);
}

// mlx5 replaces a DSCP's entry on add: the undo is the table as it was, not a delete.
TEST(WriteUndo, AppEntriesGoBackAsTheTableWas) {
  const std::vector<dcb::AppEntry> before = {{5, 5, 26}};
  const Undo undo = AppAdd{{{5, 3, 26}}}.undo(before);
  EXPECT_TRUE(undo.writes.empty());
  ASSERT_TRUE(undo.apps.has_value());
  EXPECT_EQ(*undo.apps, before);
  EXPECT_EQ(AppDelete{before}.undo(before).apps, before);
}

// configfs groups are not removed: the values in them are put back instead.
TEST(WriteUndo, TheRdmaCmGroupStays) { EXPECT_EQ(RdmaCmGroup{}.undo(), Undo::none()); }

TEST(WriteUndo, ThenAppendsAndKeepsWhyItCannot) {
  Undo undo = Mtu{9000}.undo(1500);
  undo.then(Undo::refused("not read"));
  EXPECT_EQ(undo.writes.size(), 1u);
  EXPECT_EQ(undo.cannot, "not read");
  undo.then(Undo::refused("another"));
  EXPECT_EQ(undo.cannot, "not read");
}

}  // namespace
}  // namespace roced::write
