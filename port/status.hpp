// SPDX-License-Identifier: Apache-2.0
#pragma once
// The status of one port as read back from the NIC: every piece is a Field that holds a value or
// an error string, so one failing read (DCB on a veth, debugfs not mounted) never fails the rest.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dcb/types.hpp"
#include "driver/detect.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "port/discovery.hpp"
#include "rdma/ecn.hpp"
#include "rdma/gid.hpp"
#include "rdma/rdma_cm.hpp"

namespace roced {

// "unsupported: <what> is not supported by this device (EOPNOTSUPP)" for EOPNOTSUPP, else
// "error: <message> (<ERRNO>)".
std::string describe_error(const Error& error, const std::string& what);
std::string errno_name(int code);  // "EOPNOTSUPP"; "" for 0

// Why a Field has no value. Set by whoever makes the Field (status.cpp), so the planner asks it
// instead of reading it back out of the text: it reports Unsupported and Absent as "this port
// cannot take the setting", anything else as a read error.
enum class Lack : uint8_t {
  None,         // the Field has a value
  Unsupported,  // the device said no (EOPNOTSUPP), or the driver reports no such object
  Absent,       // nothing to read: no RDMA device
  LockedDown,   // the kernel's lockdown refuses it (debugfs under Secure Boot)
  Elsewhere,    // another netdev of a bond holds it (a bond's DCB is its slaves')
  NotRead,      // skipped on purpose (StatusOptions)
  Error,        // the read failed
};

// A value, or why there is none: "unsupported: DCB is not supported by this device (EOPNOTSUPP)".
template <class T>
struct Field {
  std::optional<T> value;
  std::string error;   // as shown (status text and JSON): the lead word, then the reason
  int error_code = 0;  // errno when the system said no, else 0
  Lack lack = Lack::None;
  std::string reason;  // `error` without its lead word: what plan lines and read errors print

  bool ok() const { return value.has_value(); }
  // The port cannot take what this Field holds (as opposed to: reading it failed).
  bool unsupported_here() const {
    return lack == Lack::Unsupported || lack == Lack::Absent || lack == Lack::LockedDown ||
           lack == Lack::Elsewhere;
  }

  static Field of(T v) { return Field{std::move(v), {}, 0, Lack::None, {}}; }
  static Field unsupported(std::string why, int code = 0) {
    return Field{std::nullopt, "unsupported: " + why, code, Lack::Unsupported, why};
  }
  static Field absent(std::string why, int code) {
    return Field{std::nullopt, "absent: " + why, code, Lack::Absent, why};
  }
  static Field locked_down(std::string why, int code) {
    return Field{std::nullopt, "unsupported: " + why, code, Lack::LockedDown, why};
  }
  static Field elsewhere(std::string why) {
    return Field{std::nullopt, "elsewhere: " + why, 0, Lack::Elsewhere, why};
  }
  static Field not_read() { return Field{std::nullopt, "not read", 0, Lack::NotRead, "not read"}; }
  // A failed read of `what` ("DCB", "the GID table"), as describe_error shows it.
  static Field from(const Error& e, const std::string& what) {
    if (e.is_unsupported()) {
      return unsupported(what + " is not supported by this device (" + errno_name(e.code) + ")",
                         e.code);
    }
    std::string text = e.message;
    if (e.code != 0) text += " (" + errno_name(e.code) + ")";
    return Field{std::nullopt, "error: " + text, e.code, Lack::Error, text};
  }
  // Another Field's lack, for a read that fills several Fields (one DCB IEEE_GET).
  template <class U>
  static Field lacking_as(const Field<U>& other) {
    return Field{std::nullopt, other.error, other.error_code, other.lack, other.reason};
  }
  // A read error given as text, shown as it is: no lead word is looked for in it.
  static Field failed(std::string message, int code = 0) {
    std::string why = message;
    return Field{std::nullopt, std::move(message), code, Lack::Error, std::move(why)};
  }
};

struct StallPrevention {
  uint16_t raw = 0;          // ETHTOOL_PFC_PREVENTION_TOUT: 0 off, 0xffff auto, else ms
  std::string mode() const;  // "off", "auto", "manual"
  std::optional<unsigned> timeout_ms() const;  // auto = 100 ms (mlx5e_get_pfc_prevention_tout)
  // mlx5 stores "auto" as a 100 ms timeout and reads 100 back: the two are one hardware state.
  static bool same_setting(uint16_t a, uint16_t b);
};

struct GidStatus {
  GidStatus() = default;
  GidStatus(std::string from, std::vector<rdma::GidEntry> filled)
      : source(std::move(from)), entries(std::move(filled)) {}
  std::string source;  // "sysfs" or "libibverbs"
  std::vector<rdma::GidEntry> entries;
  // Known when the whole table was read from sysfs: its room, and the entries of netdevs in
  // other namespaces (pods), which can fill it so that the host's own address gets no entry.
  size_t slots = 0;
  rdma::ForeignEntries foreign;
};

// A bond as the bonding driver and mlx5's LAG show it, on the bond and on each of its slaves.
struct BondMember {
  std::string netdev;
  std::string state;       // bond_sysfs_slave.c: "active", "backup"
  std::string mii_status;  // "up", "down", "going down", "going back"
};
struct BondStatus {
  std::string name;  // "bond0"
  std::string mode;  // "802.3ad", "active-backup"
  std::vector<BondMember> slaves;
  std::string active_slave;  // active-backup only
  std::string lag_device;    // the RoCE LAG's RDMA device; empty when mlx5 does not offload it
  // mlx5's LAG debugfs (lag/debugfs.c, Linux 5.19 on; 0444, so readable under lockdown):
  // "active" or "disabled", and "hash" or "queue_affinity"; empty when not there.
  std::string lag_state;
  std::string lag_port_select;
};

struct PortStatus {
  DiscoveredPort port;
  std::optional<BondStatus> bond;  // on a bond and on its slaves
  Field<DriverInfo> driver_info;
  // Which mlx5 driver tree this is, with the evidence (driver/detect.hpp): how roced expects it
  // to behave where the trees differ. Unknown where it cannot tell.
  Field<driver::Detected> driver;
  Field<LinkInfo> link;
  // sysfs speed: the negotiated rate, absent while the link has no carrier (mlx5 then answers -1).
  std::optional<uint32_t> speed_mbps;
  Field<uint8_t> dcbx;
  Field<dcb::Trust> trust;
  Field<std::vector<dcb::AppEntry>> dscp_apps;  // the APP table's DSCP entries (selector 5)
  Field<dcb::Pfc> pfc;
  Field<dcb::Ets> ets;
  Field<dcb::Maxrate> maxrate;
  Field<dcb::Buffer> buffer;
  Field<StallPrevention> stall_prevention;
  // 802.3x pause (ETHTOOL_GPAUSEPARAM): mlx5 turns it off on every PFC mask change, so read it.
  Field<PauseParams> global_pause;
  Field<GidStatus> gids;
  Field<rdma::GidEntry> roce_v2_ipv4;
  Field<rdma::RdmaCmDefaults> rdma_cm;
  Field<rdma::EcnState> ecn;
  Field<std::map<std::string, uint64_t>> hw_counters;

  nlohmann::ordered_json to_json() const;
};

struct StatusOptions {
  // Ask libibverbs for the GID table when sysfs cannot give it. Real machine only: a simulated
  // node has no verbs device.
  bool verbs_fallback = false;
  // The planner compares neither: skipping them saves an ethtool call and a file per counter.
  // A skipped field reads as failed with "not read".
  bool driver_info = true;
  bool hw_counters = true;
  // All 255 slots of the GID table (gids, roce_v2_ipv4). The planner reads only up to the entry
  // it looks for (rdma::read_gid_table_until) instead.
  bool gid_table = true;
  // The link as already read, e.g. from one RTM_GETLINK dump for many ports; unset = ask.
  std::optional<LinkInfo> link;
};

// One group of what read_port_status reads: after a write, the applier re-reads only the group
// the write touched (one IEEE_GET for a DCB step, not every ECN knob file).
enum class StatusPart { Link, Dcb, StallPrevention, GlobalPause, RdmaCm, Ecn };
void refresh_port_status(System& system, const DiscoveredPort& port, StatusPart part,
                         PortStatus& status);

// /sys/class/net/<if>/speed in Mb/s; nothing while the link is down (speed_show answers -1 or
// EINVAL then).
std::optional<uint32_t> link_speed(System& system, const std::string& netdev);

// "100 Gb/s", "2.5 Gb/s", "100 Mb/s": a speed in Mb/s as people say it.
std::string speed_text(uint32_t speed_mbps);

PortStatus read_port_status(System& system, const DiscoveredPort& port,
                            const StatusOptions& options = {});

// The port's driver tree, judged from `info` (ethtool -i) and what the host shows beside it.
Field<driver::Detected> detect_driver(System& system, const DiscoveredPort& port,
                                      const Field<DriverInfo>& info);

struct StatusReport {
  std::string source;  // System::description
  std::vector<PortStatus> ports;
  std::vector<DiscoveredPort> other_rdma;
  std::vector<std::string> missing;
  // Functions of the ports (VFs, representors, sub-functions) not asked for by name: not read,
  // only counted under their port in the text (the JSON, as the daemon's, lists the ports).
  std::vector<DiscoveredPort> functions;

  nlohmann::ordered_json to_json() const;
};

// The human-readable report: one block per port, aligned, compact.
std::string format_status_text(const StatusReport& report);
std::string format_port_text(const PortStatus& status);

}  // namespace roced
