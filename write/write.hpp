// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every kind of write roced makes to a port's kernel state, described once: what it sends, its
// words, the kernel call it is (through os/System and the layer-2 clients), whether the kernel
// may apply it in part, and how its undo is made from the value read before it. The settings'
// writes (the applier, its rollback, the drift correction) and `rocectl qualify --write` both
// write through these, and journal their undos in one Journal (journal.hpp).
//
// A new kind of write is one struct here, its three functions in write.cpp, its name in `Write`
// and its test: the daemon's PortDevice, its system implementation and the test doubles take any
// Write as it is.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dcb/types.hpp"
#include "ethtool/ethtool.hpp"
#include "os/system.hpp"
#include "port/discovery.hpp"
#include "rdma/ecn.hpp"

namespace roced::write {

// Where a write goes: one port (its netdev, RDMA device and port, ECN knobs' function), over a
// System whose rtnetlink requests the caller may share (plan::planning_view).
struct Target {
  System& system;
  const DiscoveredPort& port;
};

struct Undo;

// DCB_CMD_SDCBX (dcbnl.c dcbnl_setdcbx -> en_dcbnl.c mlx5e_dcbnl_setdcbx).
struct DcbxMode {
  static constexpr std::string_view kind = "dcbx";
  static constexpr bool may_apply_in_part = false;
  uint8_t mode = 0;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(uint8_t before) const;
  bool operator==(const DcbxMode&) const = default;
};

// IEEE_SET with DCB_ATTR_IEEE_APP_TABLE (dcbnl.c dcbnl_ieee_set -> mlx5e_dcbnl_ieee_setapp).
struct AppAdd {
  static constexpr std::string_view kind = "app_add";
  // The entries go one by one (dcbnl_ieee_set loops over the nest): a failure leaves the first.
  static constexpr bool may_apply_in_part = true;
  std::vector<dcb::AppEntry> apps;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const std::vector<dcb::AppEntry>& before) const;  // the DSCP entries before
  bool operator==(const AppAdd&) const = default;
};

// IEEE_DEL with DCB_ATTR_IEEE_APP_TABLE (dcbnl.c dcbnl_ieee_del -> mlx5e_dcbnl_ieee_delapp).
struct AppDelete {
  static constexpr std::string_view kind = "app_delete";
  static constexpr bool may_apply_in_part = true;  // one by one, as AppAdd
  std::vector<dcb::AppEntry> apps;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const std::vector<dcb::AppEntry>& before) const;  // the DSCP entries before
  bool operator==(const AppDelete&) const = default;
};

// IEEE_SET with DCB_ATTR_IEEE_ETS (mlx5e_dcbnl_ieee_setets).
struct Ets {
  static constexpr std::string_view kind = "ets";
  static constexpr bool may_apply_in_part = false;
  dcb::Ets ets;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const dcb::Ets& before) const;
  bool operator==(const Ets&) const = default;
};

// IEEE_SET with DCB_ATTR_IEEE_MAXRATE (mlx5e_dcbnl_ieee_setmaxrate).
struct Maxrate {
  static constexpr std::string_view kind = "maxrate";
  static constexpr bool may_apply_in_part = false;
  dcb::Maxrate maxrate;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const dcb::Maxrate& before) const;
  bool operator==(const Maxrate&) const = default;
};

// IEEE_SET with DCB_ATTR_IEEE_PFC (en_dcbnl.c mlx5e_dcbnl_ieee_setpfc).
struct Pfc {
  static constexpr std::string_view kind = "pfc";
  // mlx5 sets the mask and flaps the link before the steps that can still fail (the cable
  // length, the buffers): a refused setpfc may have changed the port.
  static constexpr bool may_apply_in_part = true;
  dcb::Pfc pfc;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const dcb::Pfc& before) const;
  bool operator==(const Pfc&) const = default;
};

// IEEE_SET with DCB_ATTR_DCB_BUFFER (mlx5e_dcbnl_setbuffer).
struct Buffer {
  static constexpr std::string_view kind = "buffer";
  static constexpr bool may_apply_in_part = false;
  dcb::Buffer buffer;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const dcb::Buffer& before) const;
  bool operator==(const Buffer&) const = default;
};

// RTM_SETLINK with IFLA_MTU (rtnetlink.c do_setlink -> dev_set_mtu).
struct Mtu {
  static constexpr std::string_view kind = "mtu";
  static constexpr bool may_apply_in_part = false;
  uint32_t mtu = 0;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(uint32_t before) const;
  bool operator==(const Mtu&) const = default;
};

// ETHTOOL_STUNABLE ETHTOOL_PFC_PREVENTION_TOUT (ioctl.c ethtool_set_tunable ->
// en_ethtool.c mlx5e_set_pfc_prevention_tout): the raw value, 0xffff for "auto".
struct StallPrevention {
  static constexpr std::string_view kind = "stall_prevention";
  static constexpr bool may_apply_in_part = false;
  uint16_t raw = 0;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(uint16_t before) const;
  bool operator==(const StallPrevention&) const = default;
};

// ETHTOOL_SPAUSEPARAM (ioctl.c ethtool_set_pauseparam -> mlx5e_set_pauseparam).
struct GlobalPause {
  static constexpr std::string_view kind = "global_pause";
  static constexpr bool may_apply_in_part = false;
  PauseParams pause;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const PauseParams& before) const;
  bool operator==(const GlobalPause&) const = default;
};

// NVIDIA's ecn/roce_np|roce_rp/enable/<priority> file.
struct EcnEnable {
  static constexpr std::string_view kind = "ecn_enable";
  static constexpr bool may_apply_in_part = false;
  std::string point;  // "np" or "rp"
  int priority = 0;
  bool enabled = false;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(bool before) const;
  bool operator==(const EcnEnable&) const = default;
};

// One ECN/DCQCN knob by its upstream name, in the driver flavour's file (cong.c
// mlx5_ib_set_cc_params for debugfs cc_params, NVIDIA's ecn/ tree otherwise).
struct EcnKnob {
  static constexpr std::string_view kind = "ecn_knob";
  static constexpr bool may_apply_in_part = false;
  rdma::EcnFlavour flavour = rdma::EcnFlavour::None;
  std::string name;
  uint64_t value = 0;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(uint64_t before) const;
  bool operator==(const EcnKnob&) const = default;
};

// mkdir of the port's rdma_cm configfs group (cma_configfs.c make_cma_dev); none when it exists.
struct RdmaCmGroup {
  static constexpr std::string_view kind = "rdma_cm_group";
  static constexpr bool may_apply_in_part = false;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo() const;  // nothing: configfs groups stay (the values in them are put back)
  bool operator==(const RdmaCmGroup&) const = default;
};

// rdma_cm's default_roce_mode (cma_configfs.c default_roce_mode_store).
struct RdmaCmMode {
  static constexpr std::string_view kind = "rdma_cm_mode";
  static constexpr bool may_apply_in_part = false;
  std::string mode;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(const std::string& before) const;
  bool operator==(const RdmaCmMode&) const = default;
};

// rdma_cm's default_roce_tos (cma_configfs.c default_roce_tos_store).
struct RdmaCmTos {
  static constexpr std::string_view kind = "rdma_cm_tos";
  static constexpr bool may_apply_in_part = false;
  int tos = 0;
  std::string text() const;
  Result<void> perform(Target& target) const;
  Undo undo(int before) const;
  bool operator==(const RdmaCmTos&) const = default;
};

using Write =
    std::variant<DcbxMode, AppAdd, AppDelete, Ets, Maxrate, Pfc, Buffer, Mtu, StallPrevention,
                 GlobalPause, EcnEnable, EcnKnob, RdmaCmGroup, RdmaCmMode, RdmaCmTos>;

// How a change is put back: its writes in order, then (for the APP table, whose DSCP entries
// mlx5 replaces on add, so that no fixed list of writes inverts an add) the DSCP entries made
// `apps` again against the table as it reads then. `cannot` says why there is nothing to put
// back with (the value was not read before the change).
struct Undo {
  std::vector<Write> writes;
  std::optional<std::vector<dcb::AppEntry>> apps;
  std::string cannot;

  static Undo none() { return {}; }
  static Undo refused(std::string why) { return Undo{{}, std::nullopt, std::move(why)}; }
  // This undo's writes, then `after`'s (a feature written in several requests).
  Undo& then(const Undo& after);
  bool operator==(const Undo&) const = default;
};

// The kind's stable name ("pfc"), its words ("PFC mask 0x08, cable length 7 m"), whether the
// kernel may apply it in part before failing, and the kernel call.
std::string_view kind(const Write& write);
std::string text(const Write& write);
bool may_apply_in_part(const Write& write);
Result<void> perform(const Write& write, Target& target);

// The port as writes and undos reach it: the daemon's PortDevice (through the applier's Writer,
// which retries), qualify's own. The one read an undo may need is the APP table's DSCP entries.
class Port {
 public:
  virtual ~Port() = default;
  virtual Result<void> write(const Write& write) = 0;
  virtual Result<std::vector<dcb::AppEntry>> dscp_apps() = 0;
};

// Makes the DSCP entries of the APP table exactly `target`. Adds first, deletes after: on mlx5
// the DSCP entries are the trust state, and deleting the last one flips the port to PCP trust,
// so a port that keeps DSCP trust never passes through PCP. mlx5 replaces a DSCP's entry on add
// (mlx5e_dcbnl_ieee_setapp deletes the old one); what is left over is deleted under the priority
// it now shows, read again after the add (mlx5e_dcbnl_ieee_delapp wants that one).
Result<void> set_dscp_apps(Port& port, const std::vector<dcb::AppEntry>& target);

// Puts a change back through `port`: the writes in order, stopping at the first refused, then
// the APP table. ENODATA when the undo could not be made.
Result<void> perform(const Undo& undo, Port& port);

// The port's DSCP entries of the APP table now (DCB_CMD_IEEE_GET).
Result<std::vector<dcb::AppEntry>> read_dscp_apps(Target& target);

// The Port over a System: each write's own kernel call.
class SystemPort : public Port {
 public:
  explicit SystemPort(Target target) : target_(target) {}
  Result<void> write(const Write& write) override { return perform(write, target_); }
  Result<std::vector<dcb::AppEntry>> dscp_apps() override { return read_dscp_apps(target_); }

 protected:
  Target target_;
};

}  // namespace roced::write
