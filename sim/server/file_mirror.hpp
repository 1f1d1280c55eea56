// SPDX-License-Identifier: Apache-2.0
#pragma once
// The simulated node's /sys, /sys/kernel/config and /sys/kernel/debug as real directory trees under
// DIR (layout: uapi/roce_sim.h). The model is the truth: refresh() rewrites what changed; writes by
// others to the writable files (rdma_cm configfs, debugfs cc_params, OFED ecn/) arrive through
// inotify and are validated by the model; an invalid write is reverted.
// A client's write is an IN_CLOSE_WRITE on the file itself (ours are renames of dot-files), and a
// configfs mkdir an IN_CREATE of a directory: that is what the write counter counts.

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/model/node.hpp"
#include "sim/server/write_counter.hpp"

namespace roce_sim::server {

class FileMirror {
 public:
  FileMirror(Node& node, std::filesystem::path dir, WriteCounter* writes = nullptr);
  ~FileMirror();
  FileMirror(const FileMirror&) = delete;
  FileMirror& operator=(const FileMirror&) = delete;

  // Creates the static skeleton, every file, and the inotify watches. Throws on I/O errors.
  void build();
  // Rewrites every file whose model value changed (also adds/removes vanished ports' trees).
  void refresh();
  // The same for these ports only, after a request that changed them; their counters follow at
  // their next periodic refresh (refresh_next).
  void refresh(const std::set<std::string>& netdevs);
  // The next `ports` ports' files, counters included, round robin; ports that came or went are
  // built or removed first. Spreads the periodic refresh so that no request waits for all of it.
  void refresh_next(size_t ports);
  // The firmware command statistics of the ports whose requests issued commands since (they are
  // also written with the counters' periodic refresh).
  void refresh_commands();
  int inotify_fd() const { return inotify_fd_; }
  // Reads pending inotify events and applies them; returns lines for --verbose.
  std::vector<std::string> on_inotify();
  // Puts the node's unreadable_file faults into the files' modes (0000 while unreadable, the mode
  // they had once it ends); write_file keeps a rewritten file at 0000 meanwhile.
  void apply_file_modes();

 private:
  enum class WatchKind { RdmaCmRoot, RdmaCmPort, CcParams, EcnEnable, EcnParams };
  struct Watch {
    WatchKind kind;
    std::string netdev;           // the port the directory belongs to
    bool reaction_point = false;  // ecn: roce_rp (true) or roce_np
  };

  void write_file(const std::filesystem::path& path, const std::string& content,
                  mode_t mode = 0644);
  void write_pcie_link(const Port& port);  // the PCI function's link attributes
  void write_lockdown();                   // sys/kernel/security/lockdown
  void write_kernel_release();             // proc/sys/kernel/osrelease, proc/version
  void build_port(Port& port);
  void build_bond(Port& port);
  void build_upper(Port& port);
  void build_sub_function(Port& port);
  void build_rdma_device(Port& port, const std::filesystem::path& net);
  void build_knobs(Port& port, const std::filesystem::path& net);
  void write_bonding(Port& bond, const std::filesystem::path& net);
  void write_lag_debugfs(Port& bond);
  void refresh_rdma_device(Port& port, bool counters);
  void remove_port(const std::string& netdev);
  // `counters`: also the hw_counters/ and counters/ files, which move with traffic, not requests.
  void refresh_port(Port& port, bool counters = true);
  void write_commands(const Port& port);
  void sync_presence();
  void restore_truncated();  // files a client emptied and never wrote: the model's value again
  void add_watch(const std::filesystem::path& path, Watch watch);
  void create_rdma_cm(const std::string& rdma_device);
  std::string apply_write(const Watch& watch, const std::string& name, const std::string& content,
                          Port& port, int& err);
  std::string model_value(const Watch& watch, const std::string& name, Port& port);

  Node& node_;
  std::filesystem::path dir_;
  WriteCounter* writes_;
  int inotify_fd_ = -1;
  std::map<int, Watch> watches_;  // by inotify watch descriptor
  std::map<std::filesystem::path, int> watch_by_path_;
  // What we last wrote (to tell our own events apart), by path string: hashed, as refreshes look
  // up every file of a port after each request.
  std::unordered_map<std::string, std::string> written_;
  std::set<std::string> present_;  // netdevs whose trees exist
  size_t next_refresh_ = 0;        // refresh_next's round-robin position
  std::set<std::string> rdma_cm_devices_;
  std::map<std::string, std::string> gid_signature_;
  // Files a client truncated without writing (or whose next writer has not written yet): the
  // model's value goes back at the next refresh unless a write arrives first.
  std::map<std::filesystem::path, Watch> truncated_;
  std::map<std::string, mode_t> unreadable_applied_;  // relative path -> mode before the fault
  std::map<std::string, PortSpec>
      specs_;  // by netdev: what a vanished port's tree looked like  // by netdev: the GID table
               // last written           // rdma_cm groups created (mkdir seen)
};

// OFED ecn/ parameter file name <-> the model's cc_params name ("rpg_time_reset" <->
// "rp_time_reset"); empty where MLNX_OFED has no file for the knob.
std::string ofed_param_name(const std::string& model_name);

}  // namespace roce_sim::server
