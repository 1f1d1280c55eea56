#include "sim/model/node.hpp"

#include <cstdlib>
#include <stdexcept>

namespace roce_sim {

const std::vector<std::string>& set_op_names() {
  static const std::vector<std::string> names = {
      "any", "dcbx", "pfc", "ets", "app", "buffer", "maxrate", "mtu", "link", "stall_prevention"};
  return names;
}

std::string set_op_name(SetOp op) { return set_op_names().at(static_cast<size_t>(op)); }

Node::Node(std::vector<PortSpec> specs) {
  for (auto& spec : specs) {
    for (const auto& slot : slots_)
      if (slot.port->netdev() == spec.netdev)
        throw std::invalid_argument("duplicate netdev " + spec.netdev);
    slots_.push_back(Slot{std::make_unique<Port>(std::move(spec)), next_ifindex_++, true});
  }
}

std::vector<Port*> Node::ports() {
  std::vector<Port*> present;
  for (auto& slot : slots_)
    if (slot.present) present.push_back(slot.port.get());
  return present;
}

Port* Node::find(const std::string& netdev) {
  for (auto& slot : slots_)
    if (slot.present && slot.port->netdev() == netdev) return slot.port.get();
  return nullptr;
}

Port* Node::find(int ifindex) {
  for (auto& slot : slots_)
    if (slot.present && slot.ifindex == ifindex) return slot.port.get();
  return nullptr;
}

int Node::ifindex(const std::string& netdev) const {
  for (const auto& slot : slots_)
    if (slot.present && slot.port->netdev() == netdev) return slot.ifindex;
  return 0;
}

void Node::unbind(const std::string& netdev) {
  for (auto& slot : slots_) {
    if (!slot.present || (!netdev.empty() && slot.port->netdev() != netdev)) continue;
    slot.present = false;
    events_.push_back({NodeEvent::Kind::LinkRemoved, slot.port->netdev(), slot.ifindex});
  }
}

void Node::rebind(const std::string& netdev) {
  for (auto& slot : slots_) {
    if (slot.present || (!netdev.empty() && slot.port->netdev() != netdev)) continue;
    // A re-probed netdev: firmware defaults and a fresh ifindex, as register_netdevice gives.
    slot.port->reset_to_firmware_defaults();
    slot.ifindex = next_ifindex_++;
    slot.present = true;
    events_.push_back({NodeEvent::Kind::LinkAdded, slot.port->netdev(), slot.ifindex});
  }
}

void Node::inject_set_errors(const std::string& netdev, int err, int count, SetOp op) {
  for (Injection& pending : injected_) {
    if (pending.netdev == netdev && pending.op == op) {
      pending.err = std::abs(err);
      pending.count = count;
      return;
    }
  }
  injected_.push_back({netdev, op, std::abs(err), count});
}

int Node::take_injected_error(const std::string& netdev, SetOp operation) {
  for (Injection& pending : injected_) {
    if (pending.netdev != netdev || pending.count <= 0) continue;
    const bool matches = pending.op == SetOp::Any || pending.op == operation ||
                         (pending.op == SetOp::Link && operation == SetOp::Mtu);
    if (!matches) continue;
    --pending.count;
    return -pending.err;  // negative errno, ready to be the op's result
  }
  return 0;
}
void Node::note_link_changed(const std::string& netdev) {
  if (const int index = ifindex(netdev))
    events_.push_back({NodeEvent::Kind::LinkChanged, netdev, index});
}

void Node::note_dcb_changed(const std::string& netdev) {
  if (const int index = ifindex(netdev))
    events_.push_back({NodeEvent::Kind::DcbChanged, netdev, index});
}

std::vector<NodeEvent> Node::take_events() {
  std::vector<NodeEvent> taken;
  taken.swap(events_);
  return taken;
}

}  // namespace roce_sim
