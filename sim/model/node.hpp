// SPDX-License-Identifier: Apache-2.0
#pragma once
// A simulated node: its mlx5 ports, interface indexes, driver reloads, injected faults, and the
// events the server turns into RTNLGRP_LINK / RTNLGRP_DCB notifications.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/port.hpp"
#include "sim/model/switch_peer.hpp"

namespace roce_sim {

// The set operations a `netlink_errors` injection can be limited to (docs/sim-formats.md, `op:`).
// Link stands for any link set: it also matches an MTU set.
// The operations a netlink_errors fault can fail: the sets, and two reads (a port's RDMA counter
// query, its IEEE 802.3 PHY statistics), which "any" does not cover: it means any set.
enum class SetOp {
  Any,
  Dcbx,
  Pfc,
  Ets,
  App,
  Buffer,
  Maxrate,
  Mtu,
  Link,
  StallPrevention,
  GlobalPause,
  RdmaStats,
  PhyStats
};
const std::vector<std::string>& set_op_names();  // "any", "dcbx", ... in enum order
std::string set_op_name(SetOp op);

// A fault armed on a port's next matching set request (vanish_on_write, hold_reply): fired by
// the server's take_injected_error call for that request, so the fault hits an exact write.
struct WriteTrigger {
  enum class Kind { Vanish, Hold };
  Kind kind = Kind::Hold;
  std::string netdev;
  SetOp op = SetOp::Any;
  std::chrono::microseconds duration{0};  // Vanish: how long the port stays away; Hold: the delay
  size_t id = 0;                          // the arming scenario event, for its end
  SetOp fired_by = SetOp::Any;            // the operation that fired it
};

struct NodeEvent {
  enum class Kind { LinkChanged, LinkAdded, LinkRemoved, DcbChanged };
  Kind kind;
  std::string netdev;
  int ifindex;
  uint8_t dcb_cmd = 0;  // DcbChanged: the dcbnl command that was handled (IEEE_SET, IEEE_DEL)
};

class Node {
 public:
  explicit Node(std::vector<PortSpec> specs);

  // Ports that are present now (a port whose driver is unbound during a reload is absent).
  std::vector<Port*> ports();
  // The running kernel: the release its own mlx5 ports report, and Debian's package version as
  // /proc/version ends. A node of MLNX_OFED alone runs Debian bookworm's kernel.
  struct Kernel {
    std::string release = "6.1.0-27-amd64";
    std::string package = "Debian 6.1.115-1";
    // dcbnl knows DCB_ATTR_DCB_APP_TRUST_TABLE from 6.2 (include/uapi/linux/dcbnl.h).
    bool has_app_trust() const;
    // ETHTOOL_GSTATS and GSTRINGS answer a caller's mismatched count with 0 and nothing else
    // (mainline 7b07be1ff1cb, in 6.19 and the stable lines from January 2026; seen in Debian's
    // 6.1.192 and 6.12.107 net/ethtool/ioctl.c). Older kernels write the driver's count whatever
    // the caller asked. A kernel the model cannot place is the older kind.
    bool checks_stats_count() const;
  };
  Kernel kernel();
  Port* find(const std::string& netdev);  // nullptr if absent
  Port* find(int ifindex);
  // Present or not (a port whose driver is unbound is still the node's): for checking names.
  Port* find_any(const std::string& netdev);
  // 0 if unknown or absent. Stable while present; a re-probed netdev gets a new ifindex (as Linux).
  int ifindex(const std::string& netdev) const;
  // The index of the port's RDMA device (ib_device.index, what RDMA netlink names it by), or -1
  // when absent. drivers/infiniband/core/device.c assign_name allocates it with xa_alloc_cyclic
  // from 0 at registration, so a device re-registered after a driver reload gets a new one.
  int64_t rdma_index(const std::string& netdev) const;
  // The present port whose RDMA device has `index` and port number `port`; nullptr if none.
  Port* find_rdma(uint32_t index, uint32_t port);

  // Time passes for the ports' PHYs: links that finish training get their carrier back, each
  // with a LinkChanged event (the carrier-on notification a real link sends).
  bool advance(std::chrono::microseconds elapsed);  // true when a carrier came back

  // Driver reload of one port (all when netdev is empty): ports vanish (LinkRemoved), and on
  // rebind come back with firmware defaults and new ifindexes (LinkAdded).
  void unbind(const std::string& netdev);
  void rebind(const std::string& netdev);

  // sriov_numvfs written on the PF `pf` (drivers/pci/iov.c sriov_numvfs_store): its VFs below
  // `count` are there, the others gone (pci_enable_sriov / pci_disable_sriov), each VF's
  // representor with it. The kernel refuses one non-zero count over another (EBUSY: "Disable
  // before enabling"), so such a change is played as the administrator does it, 0 first: every
  // VF is created anew. The node file's `vfs` is the most there can be. Returns the count now.
  uint32_t set_numvfs(const std::string& pf, uint32_t count);
  uint32_t numvfs(const std::string& pf);  // the PF's VFs present now

  // An MTU set through rtnetlink (dev_set_mtu): on a bond, bond_change_mtu (bond_main.c) sets
  // every slave's too, each announced as a link change. -errno when a port refuses it.
  int set_mtu(Port& port, uint32_t mtu);
  // The bond `port` is a slave of (nullptr when it is none or the bond is gone), and whether a
  // slave is in use now: in 802.3ad and balance-xor every slave with its carrier, in
  // active-backup only the first such slave (bond_ab_arp_probe / bond_select_active_slave with
  // no primary: the first usable slave in enslave order).
  Port* bond_of(const Port& port);
  bool slave_active(const Port& slave);

  // The next `count` set operations of kind `op` on netdev fail with -err (e.g. EBUSY). A new
  // injection for the same netdev and op replaces the pending one.
  void inject_set_errors(const std::string& netdev, int err, int count,
                         SetOp op = SetOp::Any);  // err: either sign
  // Called by the server as `operation` (a specific kind) is about to run: -errno from the oldest
  // matching injection (op Any, op == operation, or op Link for an Mtu set), consuming one; 0
  // when none is pending.
  // A trigger armed on the port fires first: Vanish unbinds the port and makes the op fail with
  // -ENODEV; Hold lets the op run (its reply is the server's to delay).
  int take_injected_error(const std::string& netdev, SetOp operation = SetOp::Any);

  // Arms a write trigger; a later one for the same netdev, kind and op replaces it.
  void arm_trigger(WriteTrigger trigger);
  // Fired triggers, taken once: vanishes by the scenario runner (it rebinds the port after
  // `duration`), holds by the server (it delays the reply).
  std::vector<WriteTrigger> take_fired_vanishes();
  std::vector<WriteTrigger> take_fired_holds();
  // The firmware time every port's commands took since the last call: how much longer the
  // request that issued them takes to answer.
  std::chrono::microseconds take_firmware_time();

  // Files (paths relative to the node's directory) that must read as mode 0000 (unreadable_file):
  // the server's file tree keeps them so across its rewrites.
  void set_file_unreadable(const std::string& path, bool unreadable);
  const std::set<std::string>& unreadable_files() const { return unreadable_files_; }

  // Model changes that others must hear about. Port methods do not know the node, so the server
  // (or scenario) calls note_* after a successful op; drivers' own flaps are reported here too.
  void note_link_changed(const std::string& netdev);
  // A dcbnl IEEE_SET or IEEE_DEL another tool made through the kernel (dcbnl_ieee_notify sends
  // one for every such request, failed ones too). Changes made by the NIC's firmware DCBX agent
  // are never announced: mlx5 has no notification for them.
  void note_dcb_changed(const std::string& netdev, uint8_t dcb_cmd);
  std::vector<NodeEvent> take_events();
  // A devlink health reporter of a port's function changed state (a report, a recovery): what
  // devlink_recover_notify multicasts to devlink's "config" group.
  struct ReporterChange {
    std::string netdev;
    std::string reporter;
  };
  void note_reporter_changed(const std::string& netdev, const std::string& reporter) {
    reporter_changes_.push_back({netdev, reporter});
  }
  std::vector<ReporterChange> take_reporter_changes() {
    return std::exchange(reporter_changes_, {});
  }

  // The switch at the other end of a port's cable: it sends LLDP every interval while the carrier
  // is up (and at once when it comes up: 802.1AB's fast start), and a change at once. In host
  // DCBX mode the frames reach the netdev; in firmware mode the NIC's own DCBX agent takes them
  // (mlx5's firmware LLDP agent, mlxconfig LLDP_NB_RX_MODE) and, willing, applies the switch's
  // PFC and ETS as dcbx_peer does.
  void set_switch(const std::string& netdev, const SwitchPeerChange& change);
  const SwitchPeer* switch_of(const std::string& netdev) const;
  struct LldpFrame {
    std::string netdev;
    std::vector<uint8_t> frame;
  };
  std::vector<LldpFrame> take_lldp_frames();
  uint64_t lldp_frames_to_firmware() const { return lldp_to_firmware_; }

 private:
  struct SwitchLink {
    SwitchPeer peer;
    SwitchLldp lldp = SwitchLldp::On;
    int64_t due_in_us = 0;  // until the next frame
    bool had_carrier = false;
  };
  void advance_switches(std::chrono::microseconds elapsed);
  void send_lldp(const std::string& netdev, SwitchLink& link, std::optional<uint16_t> ttl);
  std::map<std::string, SwitchLink> switches_;  // by netdev
  std::vector<LldpFrame> lldp_out_;
  uint64_t lldp_to_firmware_ = 0;

  struct Slot {
    std::unique_ptr<Port> port;
    int ifindex;
    bool present;
    uint32_t rdma_index = 0;
    bool sriov_disabled = false;  // a VF (or its representor) gone with sriov_numvfs: no rebind
  };
  // A VF of `pf` or its representor, and the VF's number.
  std::optional<uint32_t> function_of(const Slot& slot, const Port& pf) const;
  void set_present(Slot& slot, bool present);
  // A bond's carrier is on while a slave's is (bond_main.c bond_set_carrier, min_links 0); a
  // change is a link event of the bond's own.
  void follow_slaves(Port& bond);
  // An upper device's carrier is its port's (netif_stacked_transfer_operstate from
  // vlan_device_event / macvlan_device_event on NETDEV_CHANGE); a change is its own link event.
  void follow_lower(const Port& lower);
  std::vector<Slot> slots_;
  int next_ifindex_ = 2;  // 1 is lo
  uint32_t next_rdma_index_ = 0;
  std::vector<NodeEvent> events_;
  std::vector<ReporterChange> reporter_changes_;
  struct Injection {
    std::string netdev;
    SetOp op;
    int err;  // positive errno
    int count;
  };
  std::vector<Injection> injected_;  // in injection order
  std::vector<WriteTrigger> armed_;  // in arming order
  std::vector<WriteTrigger> fired_vanishes_, fired_holds_;
  std::set<std::string> unreadable_files_;
};

}  // namespace roce_sim
