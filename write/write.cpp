// SPDX-License-Identifier: Apache-2.0
// Each kind of write: its words, its kernel call and its undo. The kernel calls are the layer-2
// clients' (DcbClient, LinkClient, EthtoolClient, rdma/ files); the undos put back the value read
// before the write, which is the same write with that value except where the kernel says
// otherwise (DCBX, a PFC delay of 0, the APP table).
#include "write/write.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "dcb/client.hpp"
#include "link/link.hpp"
#include "rdma/rdma_cm.hpp"

namespace roced::write {

namespace {

std::string hex(unsigned value) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%02x", value);
  return text;
}

template <class T, size_t N>
std::string list(const std::array<T, N>& values) {
  std::string out;
  for (const auto& value : values) {
    out += (out.empty() ? "" : ",") + std::to_string(static_cast<uint64_t>(value));
  }
  return out;
}

// A few entries by name, many by count.
std::string apps_text(const std::vector<dcb::AppEntry>& apps) {
  constexpr size_t kNamed = 4;
  if (apps.size() > kNamed) return std::to_string(apps.size()) + " entries";
  std::string out;
  for (const auto& app : apps) {
    const bool dscp = app.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp);
    out += (out.empty() ? "" : ", ") +
           (dscp ? "DSCP " + std::to_string(app.protocol)
                 : "selector " + std::to_string(app.selector) + " protocol " + hex(app.protocol)) +
           " -> priority " + std::to_string(app.priority);
  }
  return out.empty() ? "no entries" : out;
}

Undo rewrite(Write back) { return Undo{{std::move(back)}, std::nullopt, {}}; }

std::vector<dcb::AppEntry> missing_from(const std::vector<dcb::AppEntry>& entries,
                                        const std::vector<dcb::AppEntry>& table) {
  std::vector<dcb::AppEntry> out;
  for (const auto& entry : entries) {
    if (std::find(table.begin(), table.end(), entry) == table.end()) out.push_back(entry);
  }
  return out;
}

}  // namespace

// ---- DCBX mode ----

std::string DcbxMode::text() const { return "DCBX mode " + hex(mode); }
Result<void> DcbxMode::perform(Target& t) const {
  return dcb::DcbClient(t.system).set_dcbx(t.port.netdev, mode);
}
// mlx5e_dcbnl_setdcbx takes a firmware mode back only in two writes (dcbx_writes_to_restore).
Undo DcbxMode::undo(uint8_t before) const {
  Undo out;
  for (const uint8_t back : dcb::dcbx_writes_to_restore(before)) {
    out.writes.push_back(DcbxMode{back});
  }
  return out;
}

// ---- the APP table ----

std::string AppAdd::text() const { return "APP table: add " + apps_text(apps); }
Result<void> AppAdd::perform(Target& t) const {
  return dcb::DcbClient(t.system).add_apps(t.port.netdev, apps);
}
// mlx5 replaces a DSCP's entry on add, so deleting what was added would not bring the old entry
// back: the undo makes the table's DSCP entries as they were.
Undo AppAdd::undo(const std::vector<dcb::AppEntry>& before) const { return Undo{{}, before, {}}; }

std::string AppDelete::text() const { return "APP table: delete " + apps_text(apps); }
Result<void> AppDelete::perform(Target& t) const {
  return dcb::DcbClient(t.system).delete_apps(t.port.netdev, apps);
}
Undo AppDelete::undo(const std::vector<dcb::AppEntry>& before) const {
  return Undo{{}, before, {}};
}

// ---- ETS, TC rate limits, PFC, buffers ----

std::string Ets::text() const {
  std::string strict;
  for (size_t tc = 0; tc < ets.tc_tsa.size(); ++tc) {
    if (ets.tc_tsa[tc] == dcb::Tsa::Strict) strict += " " + std::to_string(tc);
  }
  return "ETS bandwidth " + list(ets.tc_tx_bw) + ", priorities' TCs " + list(ets.prio_tc) +
         (strict.empty() ? "" : ", strict TC" + strict);
}
Result<void> Ets::perform(Target& t) const {
  return dcb::DcbClient(t.system).set_ets(t.port.netdev, ets);
}
Undo Ets::undo(const dcb::Ets& before) const { return rewrite(Ets{before}); }

std::string Maxrate::text() const { return "TC rate limits (kbit/s) " + list(maxrate.tc_kbps); }
Result<void> Maxrate::perform(Target& t) const {
  return dcb::DcbClient(t.system).set_maxrate(t.port.netdev, maxrate);
}
Undo Maxrate::undo(const dcb::Maxrate& before) const { return rewrite(Maxrate{before}); }

std::string Pfc::text() const {
  return "PFC mask " + hex(pfc.enabled_mask) + ", cable length " + std::to_string(pfc.delay) + " m";
}
Result<void> Pfc::perform(Target& t) const {
  return dcb::DcbClient(t.system).set_pfc(t.port.netdev, pfc);
}
// A port without buffer commands reads delay 0, which is no cable length: mainline ignores a 0
// in setpfc, NVIDIA's own tree refuses it (-EINVAL). The undo sends the delay written instead.
Undo Pfc::undo(const dcb::Pfc& before) const {
  dcb::Pfc back = before;
  if (back.delay == 0) back.delay = pfc.delay;
  return rewrite(Pfc{back});
}

std::string Buffer::text() const {
  return "buffers: sizes " + list(buffer.buffer_size) + ", priorities' buffers " +
         list(buffer.prio2buffer);
}
Result<void> Buffer::perform(Target& t) const {
  return dcb::DcbClient(t.system).set_buffer(t.port.netdev, buffer);
}
// mlx5 stays in manual-buffer mode after any buffer SET: the sizes come back, the driver's
// automatic layout does not.
Undo Buffer::undo(const dcb::Buffer& before) const { return rewrite(Buffer{before}); }

// ---- the link: MTU, stall prevention, 802.3x pause ----

std::string Mtu::text() const { return "MTU " + std::to_string(mtu); }
Result<void> Mtu::perform(Target& t) const {
  return LinkClient(t.system).set_mtu(t.port.netdev, mtu);
}
Undo Mtu::undo(uint32_t before) const { return rewrite(Mtu{before}); }

std::string StallPrevention::text() const {
  if (raw == 0xffff) return "PFC stall prevention auto";
  if (raw == 0) return "PFC stall prevention off";
  return "PFC stall prevention " + std::to_string(raw) + " ms";
}
Result<void> StallPrevention::perform(Target& t) const {
  return EthtoolClient(t.system).set_pfc_prevention_timeout(t.port.netdev, raw);
}
// mlx5 reads "auto" back as 100 ms: writing that back is the same state.
Undo StallPrevention::undo(uint16_t before) const { return rewrite(StallPrevention{before}); }

std::string GlobalPause::text() const {
  return std::string("802.3x pause rx ") + (pause.rx ? "on" : "off") + ", tx " +
         (pause.tx ? "on" : "off") + (pause.autoneg ? ", autonegotiated" : "");
}
Result<void> GlobalPause::perform(Target& t) const {
  return EthtoolClient(t.system).set_pause(t.port.netdev, pause);
}
// Put back as read, autonegotiation included (mlx5 never reports it on).
Undo GlobalPause::undo(const PauseParams& before) const { return rewrite(GlobalPause{before}); }

// ---- ECN and DCQCN ----

std::string EcnEnable::text() const {
  return "ECN " + point + " priority " + std::to_string(priority) + (enabled ? " on" : " off");
}
Result<void> EcnEnable::perform(Target& t) const {
  return rdma::write_ecn_enable(*t.system.files, t.port.netdev, point, priority, enabled);
}
Undo EcnEnable::undo(bool before) const { return rewrite(EcnEnable{point, priority, before}); }

std::string EcnKnob::text() const { return name + " " + std::to_string(value); }
Result<void> EcnKnob::perform(Target& t) const {
  return rdma::write_ecn_knob(*t.system.files, flavour, t.port.knob_function(), t.port.netdev, name,
                              value);
}
Undo EcnKnob::undo(uint64_t before) const { return rewrite(EcnKnob{flavour, name, before}); }

// ---- rdma_cm ----

std::string RdmaCmGroup::text() const { return "rdma_cm configfs group"; }
Result<void> RdmaCmGroup::perform(Target& t) const {
  return rdma::make_rdma_cm_group(*t.system.files, t.port.rdma_device, t.port.rdma_port);
}
Undo RdmaCmGroup::undo() const { return Undo::none(); }

std::string RdmaCmMode::text() const { return "rdma_cm default_roce_mode " + mode; }
Result<void> RdmaCmMode::perform(Target& t) const {
  return rdma::write_rdma_cm_mode(*t.system.files, t.port.rdma_device, t.port.rdma_port, mode);
}
Undo RdmaCmMode::undo(const std::string& before) const { return rewrite(RdmaCmMode{before}); }

std::string RdmaCmTos::text() const { return "rdma_cm default_roce_tos " + std::to_string(tos); }
Result<void> RdmaCmTos::perform(Target& t) const {
  return rdma::write_rdma_cm_tos(*t.system.files, t.port.rdma_device, t.port.rdma_port, tos);
}
Undo RdmaCmTos::undo(int before) const { return rewrite(RdmaCmTos{before}); }

// ---- any write ----

std::string_view kind(const Write& write) {
  return std::visit([](const auto& w) { return w.kind; }, write);
}
std::string text(const Write& write) {
  return std::visit([](const auto& w) { return w.text(); }, write);
}
bool may_apply_in_part(const Write& write) {
  return std::visit([](const auto& w) { return w.may_apply_in_part; }, write);
}
Result<void> perform(const Write& write, Target& target) {
  return std::visit([&](const auto& w) { return w.perform(target); }, write);
}

Undo& Undo::then(const Undo& after) {
  writes.insert(writes.end(), after.writes.begin(), after.writes.end());
  if (after.apps) apps = after.apps;
  if (cannot.empty()) cannot = after.cannot;
  return *this;
}

Result<void> set_dscp_apps(Port& port, const std::vector<dcb::AppEntry>& target) {
  auto table = port.dscp_apps();
  if (!table) return table.error();
  const auto to_add = missing_from(target, *table);
  if (!to_add.empty()) {
    if (auto added = port.write(AppAdd{to_add}); !added) return added;
    table = port.dscp_apps();
    if (!table) return table.error();
  }
  const auto to_delete = missing_from(*table, target);
  if (to_delete.empty()) return ok();
  return port.write(AppDelete{to_delete});
}

Result<void> perform(const Undo& undo, Port& port) {
  if (!undo.cannot.empty()) return Error{ENODATA, undo.cannot};
  for (const Write& back : undo.writes) {
    if (auto written = port.write(back); !written) return written;
  }
  if (undo.apps) return set_dscp_apps(port, *undo.apps);
  return ok();
}

Result<std::vector<dcb::AppEntry>> read_dscp_apps(Target& target) {
  auto state = dcb::DcbClient(target.system).get(target.port.netdev);
  if (!state) return state.error();
  std::vector<dcb::AppEntry> out;
  for (const auto& app : state->apps) {
    if (app.selector == static_cast<uint8_t>(dcb::AppSelector::Dscp)) out.push_back(app);
  }
  return out;
}

}  // namespace roced::write
