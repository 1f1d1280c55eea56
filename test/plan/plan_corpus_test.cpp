// SPDX-License-Identifier: Apache-2.0
// The golden plan corpus: a fixed, seeded set of (observed port, profile) pairs, each planned.
// The observed states are written by hand, so they reach what no one model does (rxe and bnxt
// ports, read errors, odd MTU ranges). The plan JSON and text of every case are compared with
// test/plan/golden/corpus.txt byte for byte, so a refactor of the planner that changes any
// output shows up as a diff. Regenerate (after checking the diff is intended) with
//   ROCED_UPDATE_GOLDEN=1 ./plan_corpus_test
// What the applier then does on a port is the apply corpus's (test/apply/apply_corpus_test.cpp),
// on roce-sim's model.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "corpus_dice.hpp"
#include "daemon/plan/plan.hpp"
#include "golden.hpp"
#include "observed.hpp"
#include "test/support/build_paths.hpp"

namespace roced {
namespace {

using test::Dice;
using test::wanted_profile;

constexpr int kCases = 300;
constexpr uint32_t kSeed = 20261126;

template <class T>
Field<T> read_error(const std::string& what) {
  return Field<T>::from(Error{EIO, what + " failed: Input/output error"}, what);
}

std::vector<dcb::AppEntry> default_apps() {
  std::vector<dcb::AppEntry> apps;
  for (uint16_t dscp = 0; dscp < 64; ++dscp) {
    apps.push_back({5, static_cast<uint8_t>(dscp >> 3), dscp});
  }
  return apps;
}

rdma::EcnState ofed_ecn(Dice& dice) {
  rdma::EcnState ecn;
  ecn.flavour = rdma::EcnFlavour::Ofed;
  ecn.source = "/sys/class/net/lan2/ecn";
  if (!dice.chance(15)) {
    ecn.np_enabled = dice.one_of<uint8_t>({0x08, 0x00, 0x18});
    ecn.rp_enabled = dice.chance(70) ? *ecn.np_enabled : dice.one_of<uint8_t>({0x08, 0x00});
  }
  ecn.np_params = {{"cnp_dscp", dice.one_of<uint64_t>({48, 26})},
                   {"cnp_802p_prio", dice.one_of<uint64_t>({6, 3})},
                   {"min_time_between_cnps", 4}};
  ecn.rp_params = {{"rpg_ai_rate", dice.one_of<uint64_t>({5, 10})}, {"rpg_time_reset", 300}};
  return ecn;
}

PortStatus observed_port(Dice& dice, std::string& summary) {
  PortStatus status = test::in_sync_status();
  const uint32_t kind = dice.pick(10);
  if (kind < 7) {
    summary += "mlx5";
  } else {
    summary += kind < 9 ? "rxe" : "bnxt";
    status.port =
        kind < 9
            ? DiscoveredPort{"lan2", "virtio_net", "0000:00:03.0", "rxe0", 1, "rxe", true}
            : DiscoveredPort{"lan2", "bnxt_en", "0000:3b:00.0", "bnxt_re0", 1, "bnxt_re", true};
    if (dice.chance(60)) test::without_dcb(status);
    status.stall_prevention =
        test::unsupported<StallPrevention>("the PFC stall prevention tunable");
    if (dice.chance(70)) {
      status.ecn = Field<rdma::EcnState>::unsupported(mlx5_only_reason(status.port));
    }
  }

  // The link.
  if (dice.chance(4)) {
    status.link = read_error<LinkInfo>("RTM_GETLINK");
    summary += " link-error";
  } else {
    LinkInfo& link = *status.link.value;
    link.mtu = dice.one_of<uint32_t>({9000, 9000, 1500, 4200});
    link.max_mtu = dice.one_of<uint32_t>({9978, 9978, 0, 4000});
    link.min_mtu = dice.one_of<uint32_t>({68, 0, 5000});
  }

  // DCB.
  const uint32_t dcb_state = dice.pick(20);
  if (dcb_state == 0) {
    test::without_dcb(status);
    summary += " no-dcb";
  } else if (dcb_state == 1) {
    status.dcbx = read_error<uint8_t>("DCB_CMD_GDCBX");
    summary += " dcbx-error";
  } else if (dcb_state == 2) {
    status.trust = read_error<dcb::Trust>("DCB_CMD_IEEE_GET");
    status.dscp_apps = read_error<std::vector<dcb::AppEntry>>("DCB_CMD_IEEE_GET");
    status.pfc = read_error<dcb::Pfc>("DCB_CMD_IEEE_GET");
    status.ets = read_error<dcb::Ets>("DCB_CMD_IEEE_GET");
    status.buffer = read_error<dcb::Buffer>("DCB_CMD_IEEE_GET");
    summary += " dcb-error";
  } else if (dcb_state == 3) {
    status.pfc = Field<dcb::Pfc>::unsupported("the driver reports no PFC");
    status.ets = Field<dcb::Ets>::unsupported("the driver reports no ETS");
    status.buffer = Field<dcb::Buffer>::unsupported("the driver reports no buffer configuration");
    summary += " no-pfc-ets-buffer";
  }
  if (status.dcbx.ok()) {
    status.dcbx.value = dice.one_of<uint8_t>(
        {dcb::kDcbxHost | dcb::kDcbxVerIeee, dcb::kDcbxHost | dcb::kDcbxVerIeee, dcb::kDcbxVerIeee,
         dcb::kDcbxVerCee | dcb::kDcbxVerIeee, 0, dcb::kDcbxHost | dcb::kDcbxVerCee});
  }
  if (status.dscp_apps.ok()) {
    auto apps = default_apps();
    switch (dice.pick(5)) {
      case 0:
        apps.clear();  // PCP trust
        break;
      case 1:
        apps[26].priority = 3;
        apps[48].priority = 6;
        break;
      case 2:
        apps[26].priority = 3;
        break;
      default:
        apps[26].priority = 3;
        apps[48].priority = 6;
        apps[46].priority = static_cast<uint8_t>(dice.pick(8));
        break;
    }
    status.dscp_apps.value = apps;
    status.trust.value = dcb::trust_from_apps(apps);
  }
  if (status.pfc.ok()) {
    status.pfc.value->enabled_mask = dice.one_of<uint8_t>({0x08, 0x08, 0x18, 0x00});
    status.pfc.value->delay = dice.one_of<uint16_t>({7, 7, 20});
  }
  if (status.ets.ok()) {
    dcb::Ets& ets = *status.ets.value;
    switch (dice.pick(6)) {
      case 0:
        std::swap(ets.prio_tc[0], ets.prio_tc[1]);
        break;
      case 1:
        ets.tc_tx_bw = {20, 10, 10, 40, 10, 5, 0, 5};
        break;
      case 2:
        ets.tc_tx_bw[6] = 100;  // a strict TC's bandwidth means nothing
        break;
      case 3:
        ets.tc_tsa[7] = dcb::Tsa::Vendor;
        break;
      default:
        break;
    }
  }
  if (status.buffer.ok() && dice.chance(40)) {
    status.buffer.value->prio2buffer = {0, 0, 0, 1, 0, 0, 0, 0};
    status.buffer.value->buffer_size = {262144, 131072, 0, 0, 0, 0, 0, 0};
  }

  // Stall prevention.
  if (status.stall_prevention.ok()) {
    if (dice.chance(8)) {
      status.stall_prevention =
          test::unsupported<StallPrevention>("the PFC stall prevention tunable");
    } else {
      status.stall_prevention.value->raw = dice.one_of<uint16_t>({100, 100, 0, 500});
    }
  }

  // The RDMA side.
  if (dice.chance(8)) {
    test::without_rdma(status);
    summary += " no-rdma";
  } else {
    if (dice.chance(4)) {
      status.rdma_cm = read_error<rdma::RdmaCmDefaults>("configfs");
    } else if (dice.chance(25)) {
      status.rdma_cm.value = rdma::RdmaCmDefaults{};  // no configfs group: the kernel's defaults
    } else {
      status.rdma_cm.value->roce_mode = dice.one_of<std::string>({"RoCE v2", "IB/RoCE v1"});
      status.rdma_cm.value->tos = dice.one_of<int>({106, 106, 0});
    }
    if (dice.chance(10)) status.gids = Field<GidStatus>::of(GidStatus{"sysfs", {}});
    if (dice.chance(4)) status.gids = read_error<GidStatus>("the GID table");
    if (status.ecn.ok()) {
      const uint32_t ecn_kind = dice.pick(10);
      if (ecn_kind < 5) {
        rdma::EcnState& ecn = *status.ecn.value;
        ecn.np_params["np_cnp_dscp"] = dice.one_of<uint64_t>({48, 48, 26});
        ecn.np_params["np_cnp_prio"] = dice.one_of<uint64_t>({6, 6, 3});
        ecn.np_params["np_cnp_prio_mode"] = dice.one_of<uint64_t>({0, 0, 1});
        ecn.rp_params["rp_ai_rate"] = dice.one_of<uint64_t>({5, 10});
        if (dice.chance(10)) ecn.np_params.erase("np_cnp_prio");
      } else if (ecn_kind < 8) {
        status.ecn.value = ofed_ecn(dice);
      } else if (ecn_kind == 8) {
        status.ecn.value = rdma::EcnState{};  // neither knob tree (debugfs not mounted)
      } else {
        status.ecn = read_error<rdma::EcnState>("cc_params");
      }
    }
  }
  return status;
}

std::string run_corpus() {
  Dice dice(kSeed);
  std::ostringstream out;
  for (int i = 0; i < kCases; ++i) {
    std::string summary;
    const PortStatus observed = observed_port(dice, summary);
    const config::Profile desired = wanted_profile(dice);
    plan::Plan plan;
    plan.source = "corpus";
    plan.config_path = "roced.yaml";
    plan.ports.push_back(plan::plan_port(observed.port, desired, observed));

    out << "== case " << i << ": " << summary << "\n";
    out << "plan: " << plan::plan_to_json(plan).dump() << "\n";
    out << "plan text:\n" << plan::format_plan_text(plan);
  }
  return out.str();
}

TEST(PlanCorpus, MatchesTheGoldenFile) {
  test::expect_golden(std::string(ROCED_GOLDEN_DIR) + "/corpus.txt", run_corpus());
}

}  // namespace
}  // namespace roced
