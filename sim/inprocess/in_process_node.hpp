// SPDX-License-Identifier: Apache-2.0
#pragma once
// roce-sim's node inside the calling process: the model and the kernel-like services the roce-sim
// server runs (rtnetlink with dcbnl, ethtool, the sysfs/configfs/debugfs mirror, the write
// counter), behind roced's System. Each request is answered on the caller's thread before the
// call returns, as the kernel answers a syscall, so a test needs no process, no socket and no
// wait for a reply: what it sees after a call is what the node holds. Tests of roced's own logic
// use this; tests of the seam itself (the shim, dcb/ip/ethtool) keep the roce-sim process.
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "os/system.hpp"
#include "sim/inprocess/simulated_time.hpp"
#include "sim/model/node.hpp"
#include "sim/model/scenario.hpp"
#include "sim/server/ethtool_genl.hpp"
#include "sim/server/ethtool_service.hpp"
#include "sim/server/file_mirror.hpp"
#include "sim/server/rdma_nldev.hpp"
#include "sim/server/rtnl_service.hpp"
#include "sim/server/write_counter.hpp"

namespace roce_sim {

class InProcessSocket;
class InProcessFrameSocket;

class InProcessNode {
 public:
  // `dir`: where the mirror keeps the node's files (DIR/sys, DIR/config, DIR/debug) and the write
  // counter, as roce-sim run --dir does. Created when missing. `time`: the clock a socket's
  // receive() waits on and scenarios play on; the real one when null. It outlives the node.
  InProcessNode(std::vector<PortSpec> specs, std::filesystem::path dir,
                SimulatedTime* time = nullptr);
  ~InProcessNode();
  InProcessNode(const InProcessNode&) = delete;
  InProcessNode& operator=(const InProcessNode&) = delete;

  // A System on this node; every System made here shares it. The node must outlive them.
  roced::System system();

  // Changes the world as a scenario event would (a foreign tool, a link flap): `change` runs with
  // the node to itself, then the notifications it raised go out and the files follow.
  void change(const std::function<void(Node&)>& change);
  // Looks at the model between requests.
  void inspect(const std::function<void(Node&)>& look);
  // Plays `scenario` from now on the node's SimulatedTime (required), as roce-sim run plays its
  // scenario on its clock: events due at 0 fire at once, later ones as the clock passes them.
  void play(Scenario scenario);
  std::vector<std::string> scenario_log();  // what the scenario did so far, as roce-sim says it

  const std::filesystem::path& dir() const { return dir_; }
  uint64_t writes_total() const { return writes_.total(); }

 private:
  friend class InProcessSocket;
  friend class InProcessFrameSocket;
  friend class InProcessEthtool;
  friend class InProcessFiles;

  // The server's order for one request (sim/server/server.cpp serve): file writes made so far
  // take effect first, the request is answered, then the files follow the model. The socket
  // holds mutex_ around rtnl_request and the delivery of its answer; the others lock it.
  std::vector<server::Outgoing> rtnl_request(std::span<const uint8_t> datagram,
                                             server::NlPeer& peer);
  std::vector<server::Outgoing> rdma_request(std::span<const uint8_t> datagram,
                                             server::NlPeer& peer);
  std::vector<server::Outgoing> genl_request(std::span<const uint8_t> datagram,
                                             server::NlPeer& peer);
  server::Bytes ethtool_request(std::span<const uint8_t> datagram);
  void commands_read();  // debugfs commands/ read: their files brought up to date
  void files_written();  // after a client's write or mkdir

  void advanced(std::chrono::nanoseconds step);  // the clock moved: the scenario follows
  // A hold_reply fault fired by the request just served (mutex_ held): how long its caller waits
  // for the reply, as the server holds a client's reply while the model has already changed.
  std::chrono::microseconds take_holds();
  void wait_out(std::chrono::microseconds held);  // without mutex_, on the node's clock
  void after_scenario_step();                     // mutex_ held: news out, files follow

  // Callers hold mutex_.
  void take_file_writes();
  void refresh_files(uint64_t writes_before);
  // The model's notifications since last asked, to the sockets of their groups (mutex_ held).
  void publish_events();
  void deliver(const std::vector<server::Outgoing>& messages, InProcessSocket* self);
  void deliver_lldp();  // the switches' frames to the LLDP sockets bound to their netdevs

  std::filesystem::path dir_;
  std::mutex mutex_;  // one request at a time, as the server's single loop
  Node node_;
  server::WriteCounter writes_;
  server::RtnlService rtnl_;
  server::EthtoolService ethtool_;
  server::RdmaNlService rdma_;
  server::GenlService genl_;
  server::FileMirror mirror_;
  std::set<InProcessSocket*> sockets_;  // open ones, for multicast
  std::set<InProcessFrameSocket*> frame_sockets_;
  uint32_t next_port_id_ = 1;
  SimulatedTime* time_ = nullptr;
  int time_listener_ = 0;
  std::optional<ScenarioRunner> runner_;
  std::chrono::nanoseconds runner_lag_{0};  // clock time not yet given to the runner (< 1 us)
  std::vector<std::string> scenario_log_;
};

}  // namespace roce_sim
