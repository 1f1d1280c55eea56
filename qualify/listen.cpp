// SPDX-License-Identifier: Apache-2.0
#include "qualify/listen.hpp"

#include <poll.h>

#include <memory>
#include <optional>

#include "lldp/compare.hpp"
#include "lldp/lldpdu.hpp"
#include "lldp/neighbours.hpp"
#include "qualify/check_kinds.hpp"

namespace roced::qualify {
namespace {

struct Listener {
  const Observation* seen = nullptr;
  std::unique_ptr<FrameSocket> socket;
  std::string error;  // why it could not listen
  std::optional<lldp::Lldpdu> heard;
  std::chrono::nanoseconds after{0};
  size_t dropped = 0;
};

lldp::HostState host_of(const Observation& seen) {
  lldp::HostState host;
  host.netdev = seen.port.netdev;
  if (seen.dcbx.ok()) host.dcbx = *seen.dcbx;
  if (seen.dcb.ok()) {
    host.pfc = seen.dcb->pfc;
    host.apps = seen.dcb->apps;
    host.ets = seen.dcb->ets;
  }
  if (seen.link.ok()) host.mtu = seen.link->mtu;
  return host;
}

bool firmware_mode(const Observation& seen) {
  return seen.dcbx.ok() && (*seen.dcbx & dcb::kDcbxHost) == 0;
}

std::string advertised(const lldp::Lldpdu& lldpdu) {
  std::string out = lldpdu.has_dcbx()
                        ? (lldpdu.cee && !lldpdu.pfc && !lldpdu.ets ? "CEE DCBX" : "IEEE DCBX")
                        : "no DCBX TLV";
  if (lldpdu.pfc) out += ", PFC on " + lldp::priority_list(lldpdu.pfc->enabled_mask);
  if (lldpdu.app) out += ", " + std::to_string(lldpdu.app->size()) + " APP entries";
  if (lldpdu.max_frame_size) out += ", max frame " + std::to_string(*lldpdu.max_frame_size);
  return out;
}

Check judge(const Listener& port, std::chrono::seconds how_long) {
  Check check = finding::cannot_tell(kinds::kSwitchLldpHeard, port.seen->port.netdev, {});
  check.wanted = std::string(kinds::kSwitchLldpHeard.meaning);
  if (!port.error.empty()) {
    check.found = "could not listen: " + port.error;
    return check;
  }
  if (!port.heard) {
    check.found = "no LLDP frame in " + std::to_string(how_long.count()) + " s";
    if (firmware_mode(*port.seen)) {
      check.found += " while the firmware's DCBX agent owns the port (it may keep them)";
    }
    if (port.dropped) check.found += "; " + std::to_string(port.dropped) + " frames undecodable";
    return check;
  }
  lldp::Neighbours neighbours;
  (void)neighbours.hear(*port.heard, lldp::Neighbours::TimePoint{});
  const lldp::PeerReport compared = lldp::compare(neighbours, host_of(*port.seen));
  check.verdict = Verdict::Holds;
  check.found =
      "heard after " +
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(port.after).count()) + " s" +
      (firmware_mode(*port.seen) ? " (in firmware DCBX mode)" : "") + ": " +
      advertised(*port.heard) + "; " + std::string(lldp::kPeerStateNames.name(compared.state));
  for (const auto& found : compared.findings) check.found += "; " + finding::line(found);
  return check;
}

}  // namespace

std::map<std::string, Check> listen_for_switches(System& system, TimeSource& time,
                                                 const StopSignal& stop,
                                                 const std::vector<Observation>& ports,
                                                 std::chrono::seconds how_long) {
  std::vector<Listener> listeners(ports.size());
  for (size_t i = 0; i < ports.size(); ++i) {
    listeners[i].seen = &ports[i];
    if (!system.open_lldp) {
      listeners[i].error = "no packet sockets on this system";
      continue;
    }
    auto socket = system.open_lldp(ports[i].port.netdev);
    if (socket.ok()) {
      listeners[i].socket = std::move(*socket);
    } else {
      listeners[i].error = socket.error().message;
    }
  }
  const auto start = time.now();
  const auto deadline = start + how_long;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<Listener*> waiting;
    for (auto& listener : listeners) {
      if (listener.socket && !listener.heard) {
        fds.push_back({listener.socket->fd(), POLLIN, 0});
        waiting.push_back(&listener);
      }
    }
    if (fds.empty() || stop.raised() || time.now() >= deadline) break;
    // Short polls, so that a stop is seen within a second.
    const auto until = std::min(deadline, time.now() + std::chrono::seconds(1));
    if (time.poll_until(fds, until) <= 0) continue;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!(fds[i].revents & POLLIN)) continue;
      for (;;) {
        auto frame = waiting[i]->socket->receive();
        if (!frame.ok() || frame->empty()) break;
        const lldp::Decoded decoded = lldp::decode_frame(*frame);
        if (!decoded.lldpdu) {
          ++waiting[i]->dropped;
          continue;
        }
        waiting[i]->heard = *decoded.lldpdu;
        waiting[i]->after = time.now() - start;
        break;
      }
    }
  }
  std::map<std::string, Check> checks;
  for (const auto& listener : listeners) {
    checks[listener.seen->port.netdev] = judge(listener, how_long);
  }
  return checks;
}

}  // namespace roced::qualify
