// SPDX-License-Identifier: Apache-2.0
#pragma once
// The ports the reconciler manages: one worker per selected netdev, the stopping ones until they
// have finished, the last view of the ones that vanished, and what the event thread has learnt of
// links and addresses. Every method takes the registry's lock; a worker's own lock is only ever
// taken inside it (lock order: registry, then worker), never the other way round.

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "daemon/reconcile/netlink_events.hpp"
#include "daemon/reconcile/port_worker.hpp"

namespace roced::reconcile {

// Why an entry of ports.netdevs selects nothing on this node now, one line each: "lan9: no such
// netdev", "eth*: matches no netdev", "lan2: not selected (driver ixgbe is not in ports.drivers)",
// "lan3: not selected (ports.exclude)". Empty when every entry selects a port; "names no port"
// when there is no entry.
std::vector<std::string> unmatched_selection(const FileTree& files, const config::Config& config);

class PortRegistry {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  explicit PortRegistry(WorkerHost& host) : host_(host) {}

  // Workers in line with the selected netdevs that exist: new ones start, gone ones are
  // forgotten (Vanished), ones the config no longer selects stop quietly.
  void sync(const config::Config& config, bool announce_new, bool recheck_all, bool reset_backoff,
            std::vector<PortEvent>& events);
  // The worker found its netdev gone; nothing when it was forgotten already.
  void forget_gone(PortWorker& worker, std::vector<PortEvent>& events);
  // Joins the stopped workers that have finished.
  void reap();

  // One netlink notification: links remembered, affected workers marked dirty.
  void handle(const NetlinkEvent& event, TimePoint now, std::vector<PortEvent>& events);
  // A hint that the port changed without a notification: its worker re-reads it (as for a DCB
  // notification). Nothing when no worker manages the netdev.
  void recheck(const std::string& netdev);
  // The second check of ports whose addresses changed; when the next one is due.
  std::optional<TimePoint> follow_up_gids(TimePoint now);
  // Netdevs announced but not yet managed: managed once sysfs shows them, if selected.
  bool awaiting_appearance() const;
  void look_for_appearing(const config::Config& config, TimePoint now,
                          std::vector<PortEvent>& events);

  bool all_checked() const;
  bool all_checked_or_at_gate() const;  // each port checked, or queued for a disruption slot
  bool all_alive(TimePoint now, std::chrono::milliseconds window) const;
  std::vector<PortSnapshot> snapshots() const;  // workers and vanished ports, unsorted
  std::vector<ManagedPort> ports() const;       // the same, each port and condition alone
  // nullopt when no worker manages the netdev.
  std::optional<std::future<apply::PortResult>> request_remediation(const std::string& netdev,
                                                                    Remediation remediation);
  std::vector<std::future<apply::PortResult>> request_apply_all();
  // Every worker, current and retired, handed over to be stopped and joined.
  std::vector<std::unique_ptr<PortWorker>> take_all();

 private:
  struct LinkState {
    int ifindex = 0;
    uint32_t mtu = 0;
    bool admin_up = false;
    bool carrier = false;
    bool operator==(const LinkState&) const = default;
  };
  using Workers = std::map<std::string, std::unique_ptr<PortWorker>>;

  // mutex_ held by the callers of these.
  void add_worker(DiscoveredPort port, bool announce_it, std::vector<PortEvent>& events);
  void forget(Workers::iterator it, bool vanished, std::vector<PortEvent>& events);
  void address_changed(int ifindex, TimePoint now);

  WorkerHost& host_;
  mutable std::mutex mutex_;
  Workers workers_;
  std::vector<std::unique_ptr<PortWorker>> retired_;  // stopping; joined once finished
  std::map<std::string, PortSnapshot> vanished_;
  std::map<std::string, LinkState> links_;           // last link state seen
  std::map<std::string, TimePoint> gid_follow_ups_;  // address changed: look again then
  std::map<std::string, TimePoint> appearing_;       // netdev -> give up at
};

}  // namespace roced::reconcile
