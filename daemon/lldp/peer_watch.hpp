// SPDX-License-Identifier: Apache-2.0
#pragma once
// The switch's side of each managed port: an LLDP socket per port (System::open_lldp), the
// frames decoded into the port's neighbours, and the neighbour's advertisement compared with the
// port's DCB state and MTU as read back (lldp/compare.hpp). On a thread of its own; it only
// listens, sends nothing and changes nothing on the port.
//
// What changed is told once (on_notice): a neighbour heard or gone, a finding that appears or
// clears, a socket that cannot be opened. snapshot() is what status, D-Bus and metrics show.

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "lldp/compare.hpp"
#include "os/system.hpp"
#include "util/time_source.hpp"

namespace roced::lldp {

// One port's peer, as shown.
struct PortPeer {
  std::string netdev;
  lldp::PeerReport report;
  std::optional<lldp::Neighbour> neighbour;  // the one compared (the most recently heard)
  size_t neighbours = 0;
  std::string listen_error;  // why the port is not listened on (report.state NotListening)
  uint64_t frames = 0;       // LLDP frames received
  std::map<std::string, uint64_t> dropped;  // by lldp::DropReason name
  // "leaf1 Ethernet1/1": who the switch port is, for log lines; empty without a neighbour.
  std::string switch_port() const;
};

struct PeerNotice {
  std::string netdev;
  bool mismatch = false;  // a finding of severity Mismatch appeared: a warning
  std::string text;
};

class PeerWatch {
 public:
  using Clock = TimeSource::TimePoint::clock;
  // The netdevs to listen on, asked again every kTargetsRefresh.
  using Targets = std::function<std::vector<std::string>()>;
  static constexpr std::chrono::seconds kTargetsRefresh{10};
  // The port's own state is read again this often (and when a neighbour changes): a change made
  // on the host shows as a finding that appears or clears within it.
  static constexpr std::chrono::seconds kHostRefresh{30};

  PeerWatch(System& system, Targets targets, TimeSource& time = real_time());
  ~PeerWatch();  // stop()
  PeerWatch(const PeerWatch&) = delete;
  PeerWatch& operator=(const PeerWatch&) = delete;

  void on_notice(std::function<void(const PeerNotice&)> listener) { notice_ = std::move(listener); }
  void start();
  void stop();

  std::vector<PortPeer> snapshot() const;
  std::optional<PortPeer> peer(const std::string& netdev) const;
  // The port's state is read again at once (after roced applied it, say); a port not listened
  // on yet makes the targets be asked for again at once (it has just appeared).
  void recheck(const std::string& netdev);

 private:
  struct Port {
    std::unique_ptr<FrameSocket> socket;
    lldp::Neighbours neighbours;
    lldp::HostState host;
    TimeSource::TimePoint host_due{};
    TimeSource::TimePoint retry_open{};  // when a socket that failed is tried again
    PortPeer shown;
  };
  void run();
  void refresh_targets(TimeSource::TimePoint now);
  void open_socket(const std::string& netdev, Port& port, TimeSource::TimePoint now);
  void read_frames(Port& port, TimeSource::TimePoint now);
  void read_host(const std::string& netdev, Port& port);
  void update(Port& port);  // compares, tells what changed, publishes
  TimeSource::TimePoint next_deadline(TimeSource::TimePoint now) const;
  void tell(const std::string& netdev, bool mismatch, std::string text);

  System& system_;
  Targets targets_;
  TimeSource& time_;
  std::function<void(const PeerNotice&)> notice_;
  std::map<std::string, Port> ports_;  // the loop thread's
  TimeSource::TimePoint targets_due_{};

  mutable std::mutex mutex_;  // shown_, stop_, recheck_
  std::map<std::string, PortPeer> shown_;
  std::vector<std::string> recheck_;
  bool stop_ = false;
  int wake_fd_ = -1;  // eventfd: stop() and recheck() end the poll
  std::thread thread_;
};

// "switch leaf1 port Ethernet1/1: PFC priorities differ: host 3, switch 4"

}  // namespace roced::lldp
