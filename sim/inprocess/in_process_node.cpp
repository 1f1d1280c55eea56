// SPDX-License-Identifier: Apache-2.0
#include "sim/inprocess/in_process_node.hpp"

#include <roce_sim.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <thread>

#include "os/unique_fd.hpp"
#include "sim/transport/mapped_file_tree.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace roce_sim {

namespace fs = std::filesystem;
using roced::Error;
using roced::Result;

namespace {

std::vector<std::string> netdevs_of(Node& node) {
  std::vector<std::string> names;
  for (Port* port : node.ports()) names.push_back(port->netdev());
  return names;
}

}  // namespace

// Which netlink protocol an in-process socket speaks.
enum class Protocol { route, rdma, generic };

// A NETLINK_ROUTE (or NETLINK_RDMA, NETLINK_GENERIC) socket on the node: what the node sends it
// waits in a queue, and fd() is an eventfd that is readable exactly while the queue is not empty,
// so event loops poll it as they poll a kernel socket.
class InProcessSocket final : public roced::NetlinkSocket {
 public:
  InProcessSocket(InProcessNode& node, uint32_t port_id, Protocol protocol)
      : node_(node),
        protocol_(protocol),
        event_fd_(::eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC)) {
    peer_.pid = port_id;
  }
  ~InProcessSocket() override {
    const std::lock_guard node_lock(node_.mutex_);
    node_.sockets_.erase(this);
  }

  uint32_t port_id() const override { return peer_.pid; }

  Result<void> send(std::span<const uint8_t> datagram) override {
    std::vector<server::Outgoing> replies;
    std::chrono::microseconds held{0};
    {
      const std::lock_guard node_lock(node_.mutex_);
      replies = request(datagram);
      held = node_.take_holds();
    }
    node_.wait_out(held);
    const std::lock_guard node_lock(node_.mutex_);
    node_.deliver(replies, this);
    return roced::ok();
  }

  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(queue_mutex_);
    // Another thread's request can raise a notification for this socket meanwhile.
    const auto arrived = [this] { return !queue_.empty(); };
    if (node_.time_ != nullptr) {
      node_.time_->wait_for(lock, arrived_, timeout, arrived);
    } else {
      arrived_.wait_for(lock, timeout, arrived);
    }
    if (queue_.empty()) return std::vector<uint8_t>{};
    std::vector<uint8_t> datagram = std::move(queue_.front());
    queue_.pop_front();
    uint64_t one = 0;
    [[maybe_unused]] const ssize_t got = ::read(event_fd_.get(), &one, sizeof one);
    return datagram;
  }

  Result<void> join_group(uint32_t group) override {
    const std::lock_guard node_lock(node_.mutex_);
    peer_.groups.insert(group);
    return roced::ok();
  }

  int fd() const override { return event_fd_.get(); }

  // The node's mutex is held.
  bool member_of(uint32_t group) const { return peer_.groups.count(group) != 0; }
  Protocol protocol() const { return protocol_; }
  void push(const server::Bytes& datagram) {
    {
      const std::lock_guard lock(queue_mutex_);
      queue_.push_back(datagram);
    }
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t put = ::write(event_fd_.get(), &one, sizeof one);
    arrived_.notify_all();
  }

 private:
  // The node's mutex is held.
  std::vector<server::Outgoing> request(std::span<const uint8_t> datagram) {
    switch (protocol_) {
      case Protocol::rdma:
        return node_.rdma_request(datagram, peer_);
      case Protocol::generic:
        return node_.genl_request(datagram, peer_);
      case Protocol::route:
        break;
    }
    return node_.rtnl_request(datagram, peer_);
  }

  InProcessNode& node_;
  const Protocol protocol_;
  server::NlPeer peer_;  // guarded by the node's mutex
  roced::UniqueFd event_fd_;
  std::mutex queue_mutex_;
  std::condition_variable arrived_;
  std::deque<server::Bytes> queue_;
};

// An LLDP packet socket on one netdev: the switch's frames, queued as the node's clock sends them.
class InProcessFrameSocket final : public roced::FrameSocket {
 public:
  InProcessFrameSocket(InProcessNode& node, std::string netdev)
      : node_(node),
        netdev_(std::move(netdev)),
        event_fd_(::eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~InProcessFrameSocket() override {
    const std::lock_guard node_lock(node_.mutex_);
    node_.frame_sockets_.erase(this);
  }
  Result<std::vector<uint8_t>> receive() override {
    const std::lock_guard lock(queue_mutex_);
    if (queue_.empty()) return std::vector<uint8_t>{};
    std::vector<uint8_t> frame = std::move(queue_.front());
    queue_.pop_front();
    uint64_t one = 0;
    [[maybe_unused]] const ssize_t got = ::read(event_fd_.get(), &one, sizeof one);
    return frame;
  }
  int fd() const override { return event_fd_.get(); }
  const std::string& netdev() const { return netdev_; }
  void push(const std::vector<uint8_t>& frame) {
    {
      const std::lock_guard lock(queue_mutex_);
      queue_.push_back(frame);
    }
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t put = ::write(event_fd_.get(), &one, sizeof one);
  }

 private:
  InProcessNode& node_;
  const std::string netdev_;
  roced::UniqueFd event_fd_;
  std::mutex queue_mutex_;
  std::deque<std::vector<uint8_t>> queue_;
};

// ioctl(SIOCETHTOOL): the call framed as for the roce-sim socket and answered by the node's
// ethtool service, so the bytes are the ones the shim and the socket transport carry.
class InProcessEthtool final : public roced::EthtoolIoctl {
 public:
  explicit InProcessEthtool(InProcessNode& node) : node_(node) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override {
    std::vector<uint8_t> request;
    if (auto encoded = encode_sim_ethtool_request(ifname, buffer, in_len, request); !encoded) {
      return encoded;
    }
    const server::Bytes reply = node_.ethtool_request(request);
    return decode_sim_ethtool_reply(reply, ifname, buffer);
  }
  // Stamped on the node's clock, as the kernel transport stamps a batch on the real one.
  void call_batch(std::span<roced::EthtoolCall> calls) override {
    const auto now = [this] {
      return node_.time_ != nullptr ? node_.time_->now() : std::chrono::steady_clock::now();
    };
    for (roced::EthtoolCall& one : calls) {
      one.issued = now();
      one.result = call(std::string(one.ifname), one.buffer, one.in_len);
      one.answered = now();
    }
  }

 private:
  InProcessNode& node_;
};

// The node's files, as the socket transport maps them; a client's write or mkdir takes effect in
// the model before the call returns, as a sysfs store or configfs mkdir does.
class InProcessFiles final : public roced::FileTree {
 public:
  InProcessFiles(InProcessNode& node, const fs::path& dir)
      : node_(node),
        files_({{"/sys/kernel/config", dir / ROCE_SIM_CONFIG_DIR},
                {"/sys/kernel/debug", dir / ROCE_SIM_DEBUG_DIR},
                {"/sys", dir / ROCE_SIM_SYS_DIR}},
               dir) {}

  fs::path resolve(const fs::path& real_path) const override { return files_.resolve(real_path); }
  Result<std::string> read(const fs::path& real_path) const override {
    // mlx5's command statistics are read live from the driver: bring them up to date first
    // (rewriting them on every request would cost each statistics read its own file writes).
    if (real_path.native().find("/commands/") != std::string::npos) node_.commands_read();
    return files_.read(real_path);
  }
  Result<void> write(const fs::path& real_path, const std::string& text) override {
    auto written = files_.write(real_path, text);
    node_.files_written();
    return written;
  }
  Result<std::vector<std::string>> list(const fs::path& real_path) const override {
    // Listing the commands directory shows the commands issued so far, as reading one does.
    if (real_path.native().find("/commands") != std::string::npos) node_.commands_read();
    return files_.list(real_path);
  }
  bool exists(const fs::path& real_path) const override { return files_.exists(real_path); }
  Result<void> make_dir(const fs::path& real_path) override {
    auto made = files_.make_dir(real_path);
    node_.files_written();
    return made;
  }
  Result<fs::path> read_link(const fs::path& real_path) const override {
    return files_.read_link(real_path);
  }

 private:
  InProcessNode& node_;
  MappedFileTree files_;
};

namespace {
// Without a clock nothing would ever end a link's training: the link trains inside the operation.
std::vector<PortSpec> for_clock(std::vector<PortSpec> specs, const SimulatedTime* time) {
  if (time == nullptr) {
    for (PortSpec& spec : specs) spec.link_training_ms = 0;
  }
  return specs;
}
}  // namespace

InProcessNode::InProcessNode(std::vector<PortSpec> specs, fs::path dir, SimulatedTime* time)
    : dir_((fs::create_directories(dir), fs::absolute(dir).lexically_normal())),
      node_(for_clock(std::move(specs), time)),
      writes_(dir_ / server::kWritesFile, netdevs_of(node_)),
      rtnl_(node_, &writes_),
      ethtool_(node_, &writes_),
      rdma_(node_),
      genl_(node_),
      mirror_(node_, dir_, &writes_) {
  mirror_.build();
  writes_.flush();
  rtnl_.drain_events();  // the start-up state is not news
  time_ = time;
  if (time_ != nullptr) {
    time_listener_ = time_->listen([this](std::chrono::nanoseconds step) { advanced(step); });
  }
}

InProcessNode::~InProcessNode() {
  if (time_ != nullptr) time_->unlisten(time_listener_);
}

void InProcessNode::play(Scenario scenario) {
  if (time_ == nullptr) throw std::logic_error("InProcessNode::play needs a SimulatedTime");
  const std::lock_guard lock(mutex_);
  runner_.emplace(node_, std::move(scenario));
  runner_lag_ = {};
  runner_->advance(std::chrono::microseconds{0});  // what is due at once
  after_scenario_step();
  deliver_lldp();
}

std::vector<std::string> InProcessNode::scenario_log() {
  const std::lock_guard lock(mutex_);
  return scenario_log_;
}

void InProcessNode::advanced(std::chrono::nanoseconds step) {
  const std::lock_guard lock(mutex_);
  // The model counts whole microseconds; the remainder waits for the next step.
  runner_lag_ += step;
  const auto whole = std::chrono::duration_cast<std::chrono::microseconds>(runner_lag_);
  runner_lag_ -= whole;
  if (runner_) {
    runner_->advance(whole);
    after_scenario_step();
  } else if (node_.advance(whole)) {  // no scenario: links still train
    after_scenario_step();
  }
  deliver_lldp();
}

void InProcessNode::deliver_lldp() {
  for (const Node::LldpFrame& sent : node_.take_lldp_frames()) {
    for (InProcessFrameSocket* socket : frame_sockets_) {
      if (socket->netdev() == sent.netdev) socket->push(sent.frame);
    }
  }
}

void InProcessNode::after_scenario_step() {
  if (runner_) {
    for (std::string& line : runner_->take_log()) scenario_log_.push_back(std::move(line));
  }
  writes_.flush();
  publish_events();
  mirror_.refresh();
}

roced::System InProcessNode::system() {
  roced::System system;
  system.open_rtnl = [this]() -> Result<std::unique_ptr<roced::NetlinkSocket>> {
    const std::lock_guard lock(mutex_);
    auto socket = std::make_unique<InProcessSocket>(*this, next_port_id_++, Protocol::route);
    sockets_.insert(socket.get());
    return std::unique_ptr<roced::NetlinkSocket>(std::move(socket));
  };
  system.open_rdma_netlink = [this]() -> Result<std::unique_ptr<roced::NetlinkSocket>> {
    const std::lock_guard lock(mutex_);
    auto socket = std::make_unique<InProcessSocket>(*this, next_port_id_++, Protocol::rdma);
    sockets_.insert(socket.get());  // joins no group: never sent a notification
    return std::unique_ptr<roced::NetlinkSocket>(std::move(socket));
  };
  system.open_genl = [this]() -> Result<std::unique_ptr<roced::NetlinkSocket>> {
    const std::lock_guard lock(mutex_);
    auto socket = std::make_unique<InProcessSocket>(*this, next_port_id_++, Protocol::generic);
    sockets_.insert(socket.get());
    return std::unique_ptr<roced::NetlinkSocket>(std::move(socket));
  };
  system.ethtool = std::make_unique<InProcessEthtool>(*this);
  system.files = std::make_unique<InProcessFiles>(*this, dir_);
  system.open_lldp =
      [this](const std::string& netdev) -> Result<std::unique_ptr<roced::FrameSocket>> {
    const std::lock_guard lock(mutex_);
    if (node_.find(netdev) == nullptr)
      return roced::Error{ENODEV, netdev + ": LLDP socket: No such device"};
    auto socket = std::make_unique<InProcessFrameSocket>(*this, netdev);
    frame_sockets_.insert(socket.get());
    return std::unique_ptr<roced::FrameSocket>(std::move(socket));
  };
  system.description = "simulated node in this process at " + dir_.string();
  system.checks_capabilities = false;
  return system;
}

void InProcessNode::change(const std::function<void(Node&)>& change) {
  const std::lock_guard lock(mutex_);
  change(node_);
  publish_events();
  deliver_lldp();
  mirror_.refresh();
}

void InProcessNode::inspect(const std::function<void(Node&)>& look) {
  const std::lock_guard lock(mutex_);
  look(node_);
}

std::vector<server::Outgoing> InProcessNode::rtnl_request(std::span<const uint8_t> datagram,
                                                          server::NlPeer& peer) {
  // File writes before the request count as its changes: their side effects reach the files too.
  const uint64_t before = writes_.total();
  take_file_writes();
  std::vector<server::Outgoing> out = rtnl_.handle(datagram, peer);
  writes_.flush();
  refresh_files(before);
  return out;
}

std::vector<server::Outgoing> InProcessNode::genl_request(std::span<const uint8_t> datagram,
                                                          server::NlPeer& peer) {
  take_file_writes();
  return genl_.handle(datagram, peer);
}

std::vector<server::Outgoing> InProcessNode::rdma_request(std::span<const uint8_t> datagram,
                                                          server::NlPeer& peer) {
  take_file_writes();
  return rdma_.handle(datagram, peer);
}

server::Bytes InProcessNode::ethtool_request(std::span<const uint8_t> datagram) {
  std::unique_lock lock(mutex_);
  const uint64_t before = writes_.total();
  take_file_writes();
  server::Bytes answer = ethtool_.handle(datagram);
  writes_.flush();
  refresh_files(before);
  const std::chrono::microseconds held = take_holds();
  lock.unlock();
  wait_out(held);
  lock.lock();
  publish_events();
  return answer;
}

std::chrono::microseconds InProcessNode::take_holds() {
  std::chrono::microseconds longest{0};
  for (const WriteTrigger& fired : node_.take_fired_holds()) {
    longest = std::max(longest, fired.duration);
    scenario_log_.push_back(fired.netdev + ": holding the reply to a " +
                            set_op_name(fired.fired_by) + " set");
  }
  // The firmware commands the request issued run before the driver can answer.
  return longest + node_.take_firmware_time();
}

void InProcessNode::wait_out(std::chrono::microseconds held) {
  if (held.count() == 0) return;
  if (time_ != nullptr) {
    time_->sleep_for(held);
  } else {
    std::this_thread::sleep_for(held);
  }
}

void InProcessNode::commands_read() {
  const std::lock_guard lock(mutex_);
  mirror_.refresh_commands();
}

void InProcessNode::files_written() {
  // As a kernel's store() returns: the write and what it changed elsewhere (cong.c's CNP
  // priority mode, say) read back from here on.
  const std::lock_guard lock(mutex_);
  const uint64_t before = writes_.total();
  take_file_writes();
  refresh_files(before);
}

void InProcessNode::take_file_writes() {
  // A file closed by a write has queued its IN_CLOSE_WRITE before the writer's close returned.
  mirror_.on_inotify();
  writes_.flush();
  publish_events();
}

void InProcessNode::refresh_files(uint64_t writes_before) {
  if (writes_.total() == writes_before) return;
  if (auto touched = writes_.take_touched()) {
    mirror_.refresh(*touched);
  } else {
    mirror_.refresh();
  }
}

void InProcessNode::publish_events() {
  deliver(rtnl_.drain_events(), nullptr);
  deliver(genl_.drain_events(), nullptr);
}

void InProcessNode::deliver(const std::vector<server::Outgoing>& messages, InProcessSocket* self) {
  for (const server::Outgoing& message : messages) {
    if (!message.multicast) {
      if (self != nullptr) self->push(message.datagram);
      continue;
    }
    for (InProcessSocket* socket : sockets_) {
      const Protocol protocol = message.generic ? Protocol::generic : Protocol::route;
      if (socket->protocol() == protocol && socket->member_of(message.group)) {
        socket->push(message.datagram);
      }
    }
  }
}

}  // namespace roce_sim
