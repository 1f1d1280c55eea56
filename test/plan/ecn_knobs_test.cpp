// SPDX-License-Identifier: Apache-2.0
// DCQCN knob names across the two driver flavours (rdma/ecn_knobs.hpp), checked against the
// fixture of NVIDIA's ecn/ sysfs tree.
#include "rdma/ecn_knobs.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"

namespace roced::rdma {
namespace {

TEST(EcnKnobs, KnownKnobsAreTheReactionPointAndCnpPacing) {
  const auto& knobs = known_dcqcn_knobs();
  EXPECT_EQ(knobs, (std::vector<std::string>{
                       "rp_clamp_tgt_rate", "rp_clamp_tgt_rate_ati", "rp_time_reset",
                       "rp_byte_reset", "rp_threshold", "rp_ai_rate", "rp_max_rate", "rp_hai_rate",
                       "rp_min_dec_fac", "rp_min_rate", "rp_rate_to_set_on_first_cnp",
                       "rp_dce_tcp_g", "rp_dce_tcp_rtt", "rp_rate_reduce_monitor_period",
                       "rp_initial_alpha_value", "rp_gd", "np_min_time_between_cnps"}));
}

TEST(EcnKnobs, InboxPathIsDebugfsCcParams) {
  EXPECT_EQ(knob_path(EcnFlavour::Inbox, "0000:17:00.0", "lan2", "rp_ai_rate"),
            std::filesystem::path("/sys/kernel/debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate"));
  EXPECT_EQ(
      knob_path(EcnFlavour::Inbox, "0000:17:00.0", "lan2", "np_cnp_prio_mode"),
      std::filesystem::path("/sys/kernel/debug/mlx5/0000:17:00.0/cc_params/np_cnp_prio_mode"));
  EXPECT_EQ(knob_path(EcnFlavour::Inbox, "", "lan2", "rp_ai_rate"), std::nullopt);
}

TEST(EcnKnobs, OfedPathUsesTheOfedNames) {
  EXPECT_EQ(knob_path(EcnFlavour::Ofed, "0000:81:00.0", "ens1f0np0", "rp_ai_rate"),
            std::filesystem::path("/sys/class/net/ens1f0np0/ecn/roce_rp/rpg_ai_rate"));
  EXPECT_EQ(knob_path(EcnFlavour::Ofed, "", "eth0", "rp_clamp_tgt_rate_ati"),
            std::filesystem::path("/sys/class/net/eth0/ecn/roce_rp/clamp_tgt_rate_after_time_inc"));
  EXPECT_EQ(knob_path(EcnFlavour::Ofed, "", "eth0", "rp_initial_alpha_value"),
            std::filesystem::path("/sys/class/net/eth0/ecn/roce_rp/initial_alpha_value"));
  EXPECT_EQ(knob_path(EcnFlavour::Ofed, "", "eth0", "np_cnp_prio"),
            std::filesystem::path("/sys/class/net/eth0/ecn/roce_np/cnp_802p_prio"));
  EXPECT_EQ(knob_path(EcnFlavour::Ofed, "", "eth0", "np_cnp_prio_mode"), std::nullopt);
  EXPECT_EQ(knob_path(EcnFlavour::None, "0000:81:00.0", "eth0", "rp_ai_rate"), std::nullopt);
  EXPECT_EQ(knob_path(EcnFlavour::Inbox, "0000:81:00.0", "eth0", "rp_no_such_knob"), std::nullopt);
}

// The capture of NVIDIA's ecn/ tree (test/rdma/data): every parameter file it has is known by
// its upstream name, and knob_path leads back to the same file.
TEST(EcnKnobs, EveryOfedCaptureFileHasAnUpstreamName) {
  System capture = roce_sim::simulated_system(ROCED_RDMA_TEST_DATA);
  auto ecn = read_ecn(*capture.files, "", "eth0");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  ASSERT_EQ(ecn->flavour, EcnFlavour::Ofed);
  const auto knobs = knobs_by_upstream_name(*ecn);
  EXPECT_EQ(knobs.size(), ecn->np_params.size() + ecn->rp_params.size());
  EXPECT_EQ(knobs.size(), 19u);  // 16 reaction-point parameters, 3 notification-point ones
  for (const auto& [name, value] : knobs) {
    auto path = knob_path(EcnFlavour::Ofed, "", "eth0", name);
    ASSERT_TRUE(path) << name;
    auto text = capture.files->read(*path);
    ASSERT_TRUE(text.ok()) << *path;
    EXPECT_EQ(std::stoull(*text), value) << name;
  }
  for (const auto& name : known_dcqcn_knobs()) EXPECT_TRUE(knobs.count(name)) << name;
}

TEST(EcnKnobs, KnobsByUpstreamNameInBothFlavours) {
  EcnState ofed;
  ofed.flavour = EcnFlavour::Ofed;
  ofed.np_params = {{"cnp_dscp", 48}, {"cnp_802p_prio", 6}, {"min_time_between_cnps", 4}};
  ofed.rp_params = {{"rpg_ai_rate", 5}, {"clamp_tgt_rate_after_time_inc", 1}};
  EXPECT_EQ(knobs_by_upstream_name(ofed),
            (std::map<std::string, uint64_t>{{"np_cnp_dscp", 48},
                                             {"np_cnp_prio", 6},
                                             {"np_min_time_between_cnps", 4},
                                             {"rp_ai_rate", 5},
                                             {"rp_clamp_tgt_rate_ati", 1}}));
  EcnState inbox;
  inbox.flavour = EcnFlavour::Inbox;
  inbox.np_params = {{"np_cnp_dscp", 48}};
  inbox.rp_params = {{"rp_ai_rate", 5}};
  EXPECT_EQ(knobs_by_upstream_name(inbox),
            (std::map<std::string, uint64_t>{{"np_cnp_dscp", 48}, {"rp_ai_rate", 5}}));
  EXPECT_EQ(knobs_by_upstream_name(EcnState{}), (std::map<std::string, uint64_t>{}));
}

TEST(EcnKnobs, EnablePath) {
  EXPECT_EQ(ecn_enable_path("ens1f0np0", "np", 3),
            std::filesystem::path("/sys/class/net/ens1f0np0/ecn/roce_np/enable/3"));
  EXPECT_EQ(ecn_enable_path("ens1f0np0", "rp", 7),
            std::filesystem::path("/sys/class/net/ens1f0np0/ecn/roce_rp/enable/7"));
}

}  // namespace
}  // namespace roced::rdma
