// SPDX-License-Identifier: Apache-2.0
#include "daemon/lldp/peer_watch.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>

#include "dcb/client.hpp"
#include "link/link.hpp"

namespace roced::lldp {
namespace {

// A socket that could not be opened (the netdev is being renamed, CAP_NET_RAW is missing) is
// tried again this much later.
constexpr std::chrono::seconds kRetryOpen{30};
// Frames taken from one socket per wake-up: a flood on one port does not starve the others.
constexpr int kFramesPerWake = 64;

std::string dcbx_kind(const lldp::Lldpdu& l) {
  if (l.pfc || l.ets || l.app || l.ets_recommendation) return "IEEE DCBX";
  if (l.cee) return "CEE DCBX";
  return "no DCBX TLVs";
}

bool same_sender(const std::optional<lldp::Neighbour>& a, const lldp::Neighbour* b) {
  if (!a || b == nullptr) return !a && b == nullptr;
  return a->lldpdu.chassis_id == b->lldpdu.chassis_id && a->lldpdu.port_id == b->lldpdu.port_id;
}

}  // namespace

std::string PortPeer::switch_port() const {
  if (!neighbour) return {};
  const auto& l = neighbour->lldpdu;
  const std::string& system = l.system_name.empty() ? l.chassis_id : l.system_name;
  return system + " " + l.port_id;
}

PeerWatch::PeerWatch(System& system, Targets targets, TimeSource& time)
    : system_(system), targets_(std::move(targets)), time_(time) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error(std::string("eventfd: ") + std::strerror(errno));
}

PeerWatch::~PeerWatch() {
  stop();
  ::close(wake_fd_);
}

void PeerWatch::start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { run(); });
}

void PeerWatch::stop() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t put = ::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

std::vector<PortPeer> PeerWatch::snapshot() const {
  const std::lock_guard lock(mutex_);
  std::vector<PortPeer> peers;
  for (const auto& [netdev, peer] : shown_) peers.push_back(peer);
  return peers;
}

std::optional<PortPeer> PeerWatch::peer(const std::string& netdev) const {
  const std::lock_guard lock(mutex_);
  const auto it = shown_.find(netdev);
  if (it == shown_.end()) return std::nullopt;
  return it->second;
}

void PeerWatch::recheck(const std::string& netdev) {
  {
    const std::lock_guard lock(mutex_);
    recheck_.push_back(netdev);
  }
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t put = ::write(wake_fd_, &one, sizeof one);
}

void PeerWatch::run() {
  std::vector<pollfd> fds;
  std::vector<Port*> polled;
  for (;;) {
    std::vector<std::string> recheck;
    {
      const std::lock_guard lock(mutex_);
      if (stop_) return;
      recheck.swap(recheck_);
    }
    TimeSource::TimePoint now = time_.now();
    // A port not listened on yet has just appeared: ask for the targets now rather than at the
    // next refresh, so its switch's first frames (sent as its link comes up) are heard.
    for (const auto& netdev : recheck) {
      if (ports_.count(netdev) == 0) targets_due_ = now;
    }
    if (now >= targets_due_) refresh_targets(now);
    for (const auto& netdev : recheck) {
      if (auto it = ports_.find(netdev); it != ports_.end()) it->second.host_due = now;
    }
    for (auto& [netdev, port] : ports_) {
      if (!port.socket && now >= port.retry_open) open_socket(netdev, port, now);
      const bool expired = port.neighbours.expire(now);
      if (now >= port.host_due) {
        read_host(netdev, port);
        port.host_due = now + kHostRefresh;
        update(port);
      } else if (expired) {
        update(port);
      }
    }
    fds.clear();
    polled.clear();
    fds.push_back({wake_fd_, POLLIN, 0});
    for (auto& [netdev, port] : ports_) {
      if (!port.socket) continue;
      fds.push_back({port.socket->fd(), POLLIN, 0});
      polled.push_back(&port);
    }
    if (time_.poll_until(fds, next_deadline(now)) < 0 && errno != EINTR) {
      time_.sleep_for(std::chrono::seconds(1));  // not expected; never spin
    }
    if ((fds[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      [[maybe_unused]] const ssize_t got = ::read(wake_fd_, &count, sizeof count);
    }
    now = time_.now();
    for (size_t i = 1; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0) read_frames(*polled[i - 1], now);
    }
  }
}

TimeSource::TimePoint PeerWatch::next_deadline(TimeSource::TimePoint now) const {
  TimeSource::TimePoint next = targets_due_;
  for (const auto& [netdev, port] : ports_) {
    next = std::min(next, port.host_due);
    if (!port.socket) next = std::min(next, port.retry_open);
    if (const auto expiry = port.neighbours.next_expiry()) next = std::min(next, *expiry);
  }
  return std::max(next, now);
}

void PeerWatch::refresh_targets(TimeSource::TimePoint now) {
  targets_due_ = now + kTargetsRefresh;
  const std::vector<std::string> wanted = targets_();
  const std::set<std::string> keep(wanted.begin(), wanted.end());
  for (auto it = ports_.begin(); it != ports_.end();) {
    if (keep.count(it->first) != 0) {
      ++it;
      continue;
    }
    {
      const std::lock_guard lock(mutex_);
      shown_.erase(it->first);
    }
    it = ports_.erase(it);
  }
  for (const auto& netdev : wanted) {
    if (ports_.count(netdev) != 0) continue;
    Port& port = ports_[netdev];
    port.shown.netdev = netdev;
    port.host_due = now;
    open_socket(netdev, port, now);
  }
}

void PeerWatch::open_socket(const std::string& netdev, Port& port, TimeSource::TimePoint now) {
  Result<std::unique_ptr<FrameSocket>> opened =
      system_.open_lldp ? system_.open_lldp(netdev)
                        : Result<std::unique_ptr<FrameSocket>>(
                              Error{EOPNOTSUPP, "nothing here can listen for LLDP"});
  if (!opened) {
    port.retry_open = now + kRetryOpen;
    if (port.shown.listen_error != opened.error().message) {
      tell(netdev, false, "LLDP: not listening: " + opened.error().message);
    }
    port.shown.listen_error = opened.error().message;
    update(port);
    return;
  }
  if (!port.shown.listen_error.empty()) tell(netdev, false, "LLDP: listening again");
  port.socket = std::move(opened).value();
  port.shown.listen_error.clear();
  update(port);
}

void PeerWatch::read_frames(Port& port, TimeSource::TimePoint now) {
  bool changed = false;
  for (int i = 0; i < kFramesPerWake; ++i) {
    Result<std::vector<uint8_t>> frame = port.socket->receive();
    if (!frame) {  // the netdev went away under the socket: open it again later
      port.socket.reset();
      port.retry_open = now + kRetryOpen;
      if (port.shown.listen_error != frame.error().message) {
        tell(port.shown.netdev, false, "LLDP: not listening: " + frame.error().message);
      }
      port.shown.listen_error = frame.error().message;
      changed = true;
      break;
    }
    if (frame->empty()) break;
    const lldp::Decoded decoded = lldp::decode_frame(*frame);
    if (!decoded.lldpdu) {
      ++port.shown.dropped[std::string(lldp::kDropReasonNames.name(decoded.reason))];
      continue;
    }
    ++port.shown.frames;
    switch (port.neighbours.hear(*decoded.lldpdu, now)) {
      case lldp::Heard::Changed:
        changed = true;
        port.host_due = now;  // compare with the port as it is now
        break;
      case lldp::Heard::Crowded:
        ++port.shown.dropped[std::string(lldp::kDropReasonNames.name(lldp::DropReason::Crowded))];
        break;
      case lldp::Heard::Same:
        break;
    }
  }
  if (changed && port.host_due > now) update(port);
  // Counters move with every frame: publish them (the comparison follows on host_due).
  const std::lock_guard lock(mutex_);
  shown_[port.shown.netdev].frames = port.shown.frames;
  shown_[port.shown.netdev].dropped = port.shown.dropped;
}

void PeerWatch::read_host(const std::string& netdev, Port& port) {
  lldp::HostState host;
  host.netdev = netdev;
  dcb::DcbClient dcb(system_);
  if (auto state = dcb.get(netdev)) {
    host.pfc = state->pfc;
    host.ets = state->ets;
    host.apps = state->apps;
    host.dcbx = state->dcbx;
  }
  if (!host.dcbx) {
    if (auto mode = dcb.get_dcbx(netdev)) host.dcbx = *mode;
  }
  LinkClient links(system_);
  if (auto link = links.get(netdev)) host.mtu = link->mtu;
  port.host = std::move(host);
}

void PeerWatch::update(Port& port) {
  const std::string& netdev = port.shown.netdev;
  lldp::PeerReport report = port.socket || port.shown.listen_error.empty()
                                ? lldp::compare(port.neighbours, port.host)
                                : lldp::PeerReport{lldp::PeerState::NotListening, {}};
  const lldp::Neighbour* current = port.neighbours.current();
  const PortPeer before = port.shown;
  // Who is at the other end: said when it changes.
  if (!same_sender(before.neighbour, current)) {
    if (current != nullptr) {
      const auto& l = current->lldpdu;
      tell(netdev, false,
           "LLDP: switch " + (l.system_name.empty() ? l.chassis_id : l.system_name) + " port " +
               l.port_id + " (chassis " + l.chassis_id + ", " + dcbx_kind(l) + ")");
    } else if (before.neighbour) {
      tell(netdev, false,
           "LLDP: switch " + before.switch_port() +
               " no longer heard (its TTL ran out or it sent a shutdown)");
    }
  }
  port.shown.neighbour =
      current != nullptr ? std::optional<lldp::Neighbour>(*current) : std::nullopt;
  port.shown.neighbours = port.neighbours.all().size();
  if (report.state == lldp::PeerState::FirmwareDcbx &&
      before.report.state != lldp::PeerState::FirmwareDcbx) {
    tell(netdev, false,
         "LLDP: DCBX is in firmware mode, the NIC's own agent answers the switch: not compared");
  }
  const std::string who = "switch " + port.shown.switch_port() + ": ";
  for (const auto& found : report.findings) {
    const bool known = std::find(before.report.findings.begin(), before.report.findings.end(),
                                 found) != before.report.findings.end();
    if (!known) {
      tell(netdev, found.severity == finding::Severity::Critical, who + found.text);
    }
  }
  for (const auto& found : before.report.findings) {
    const bool still = std::any_of(report.findings.begin(), report.findings.end(),
                                   [&](const finding::Finding& f) { return f.id == found.id; });
    if (!still && report.state == lldp::PeerState::Compared) {
      // The text's words without the values: "PFC priorities differ no more".
      tell(netdev, false, who + found.text.substr(0, found.text.find(": host ")) + " no more");
    }
  }
  port.shown.report = std::move(report);
  const std::lock_guard lock(mutex_);
  shown_[netdev] = port.shown;
}

void PeerWatch::tell(const std::string& netdev, bool mismatch, std::string text) {
  if (notice_) notice_(PeerNotice{netdev, mismatch, std::move(text)});
}

}  // namespace roced::lldp
