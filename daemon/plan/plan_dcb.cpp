// SPDX-License-Identifier: Apache-2.0
// The DCB settings: DCBX mode, trust and DSCP map (the APP table), ETS, PFC, buffers.
#include "daemon/plan/describe.hpp"
#include "daemon/plan/planner.hpp"

namespace roced::plan::detail {

namespace {

constexpr const char* kPfcMaskFlap =
    "mlx5 flaps the link when the PFC mask changes (mlx5_toggle_port_link)";

bool tcs_match(const dcb::Ets& have, const config::EtsProfile& want) {
  for (size_t tc = 0; tc < want.tsa.size(); ++tc) {
    if (have.tc_tsa[tc] != want.tsa[tc]) return false;
    // Bandwidth means something only for an ETS TC; mlx5 reports 100 or 0 for the others.
    if (want.tsa[tc] == dcb::Tsa::Ets && have.tc_tx_bw[tc] != want.bandwidth[tc]) return false;
  }
  return true;
}

}  // namespace

// One DCB read (IEEE_GET) serves every setting below but the DCBX mode: a failure is "DCB".
void plan_dcbx(PortPlanner& p) {
  const uint8_t* mode = p.need(p.have.dcbx, Setting::Dcbx, "DCBX");
  if (!mode) return;
  // mlx5: any mode with the HOST bit is host-controlled; without it the firmware agent runs.
  const bool host = (*mode & dcb::kDcbxHost) != 0;
  if (host == (p.want.dcbx == config::DcbxMode::Host)) return;
  p.change(Setting::Dcbx, describe::dcbx(*mode), describe::dcbx(p.want.dcbx));
}

void plan_trust_and_dscp_map(PortPlanner& p) {
  // mlx5 trust is the APP table: DSCP entries present = DSCP trust, none = PCP trust.
  if (const dcb::Trust* trust = p.need(p.have.trust, Setting::Trust, "DCB")) {
    if (*trust != p.want.trust) {
      p.change(Setting::Trust, describe::trust(*trust), describe::trust(p.want.trust));
    }
  }
  // Under PCP trust the map is unused, and wanting PCP means wanting no DSCP entries at all.
  if (p.want.trust != dcb::Trust::Dscp) return;
  const auto* apps = p.need(p.have.dscp_apps, Setting::DscpMap, "DCB");
  if (!apps) return;
  const auto now = dcb::dscp_map_from_apps(*apps);  // unmapped DSCPs read as priority 0
  if (now == p.want.dscp_map) return;
  auto [now_text, wanted_text] = describe::dscp_map_diff(now, p.want.dscp_map, apps->empty());
  p.change(Setting::DscpMap, std::move(now_text), std::move(wanted_text));
}

void plan_ets(PortPlanner& p) {
  const dcb::Ets* ets = p.need(p.have.ets, Setting::Ets, "DCB");
  if (!ets) return;
  const bool prio_tc_match = ets->prio_tc == p.want.ets.prio_tc;
  const bool tc_match = tcs_match(*ets, p.want.ets);
  if (prio_tc_match && tc_match) return;
  const describe::EtsText now{ets->prio_tc, ets->tc_tsa, ets->tc_tx_bw};
  const describe::EtsText wanted{p.want.ets.prio_tc, p.want.ets.tsa, p.want.ets.bandwidth};
  p.change(Setting::Ets, describe::ets(now, !prio_tc_match, !tc_match),
           describe::ets(wanted, !prio_tc_match, !tc_match));
}

void plan_pfc(PortPlanner& p) {
  if (const dcb::Pfc* pfc = p.need(p.have.pfc, Setting::PfcPriorities, "DCB")) {
    if (pfc->enabled_mask != p.want.pfc_priorities) {
      p.disruptive_change(Setting::PfcPriorities, describe::priorities(pfc->enabled_mask),
                          describe::priorities(p.want.pfc_priorities), kPfcMaskFlap);
    }
  }
  // The cable length rides in the same PFC message; with the mask unchanged the link stays up.
  if (const dcb::Pfc* pfc = p.need(p.have.pfc, Setting::CableLength, "DCB")) {
    if (pfc->delay != p.want.cable_length_m) {
      p.change(Setting::CableLength, std::to_string(pfc->delay) + " m",
               std::to_string(p.want.cable_length_m) + " m");
    }
  }
}

void plan_buffers(PortPlanner& p) {
  if (!p.want.buffers) return;  // left to the driver
  const dcb::Buffer* buffer = p.need(p.have.buffer, Setting::Buffers, "DCB");
  if (!buffer) return;
  const config::BufferProfile& want = *p.want.buffers;
  if (buffer->prio2buffer == want.prio2buffer && buffer->buffer_size == want.buffer_size) return;
  p.change(Setting::Buffers, describe::buffers(buffer->prio2buffer, buffer->buffer_size),
           describe::buffers(want.prio2buffer, want.buffer_size));
}

}  // namespace roced::plan::detail
