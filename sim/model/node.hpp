#pragma once
// A simulated node: its mlx5 ports, interface indexes, driver reloads, injected faults, and the
// events the server turns into RTNLGRP_LINK / RTNLGRP_DCB notifications.

#include <memory>
#include <string>
#include <vector>

#include "sim/model/port.hpp"

namespace roce_sim {

struct NodeEvent {
  enum class Kind { LinkChanged, LinkAdded, LinkRemoved, DcbChanged };
  Kind kind;
  std::string netdev;
  int ifindex;
};

class Node {
 public:
  explicit Node(std::vector<PortSpec> specs);

  // Ports that are present now (a port whose driver is unbound during a reload is absent).
  std::vector<Port*> ports();
  Port* find(const std::string& netdev);  // nullptr if absent
  Port* find(int ifindex);
  // 0 if unknown or absent. Stable while present; a re-probed netdev gets a new ifindex (as Linux).
  int ifindex(const std::string& netdev) const;

  // Driver reload of one port (all when netdev is empty): ports vanish (LinkRemoved), and on
  // rebind come back with firmware defaults and new ifindexes (LinkAdded).
  void unbind(const std::string& netdev);
  void rebind(const std::string& netdev);

  // The next `count` DCB or link set operations on netdev fail with -err (e.g. EBUSY).
  void inject_set_errors(const std::string& netdev, int err, int count);  // err: either sign
  int take_injected_error(
      const std::string& netdev);  // -errno, or 0 when none pending; consumes one

  // Model changes that others must hear about. Port methods do not know the node, so the server
  // (or scenario) calls note_* after a successful op; drivers' own flaps are reported here too.
  void note_link_changed(const std::string& netdev);
  void note_dcb_changed(const std::string& netdev);
  std::vector<NodeEvent> take_events();

 private:
  struct Slot {
    std::unique_ptr<Port> port;
    int ifindex;
    bool present;
  };
  std::vector<Slot> slots_;
  int next_ifindex_ = 2;  // 1 is lo
  std::vector<NodeEvent> events_;
  std::vector<std::pair<std::string, std::pair<int, int>>> injected_;  // netdev -> (err, count)
};

}  // namespace roce_sim
