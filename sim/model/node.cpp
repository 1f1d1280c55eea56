// SPDX-License-Identifier: Apache-2.0
#include "sim/model/node.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace roce_sim {

const std::vector<std::string>& set_op_names() {
  static const std::vector<std::string> names = {
      "any",          "dcbx",       "pfc",      "ets",  "app",
      "buffer",       "maxrate",    "mtu",      "link", "stall_prevention",
      "global_pause", "rdma_stats", "phy_stats"};
  return names;
}

std::string set_op_name(SetOp op) { return set_op_names().at(static_cast<size_t>(op)); }

namespace {

// `op: link` stands for any link set, so it matches an MTU set too.
bool op_matches(SetOp pending, SetOp operation) {
  if (operation == SetOp::RdmaStats || operation == SetOp::PhyStats) return pending == operation;
  return pending == SetOp::Any || pending == operation ||
         (pending == SetOp::Link && operation == SetOp::Mtu);
}

}  // namespace

Node::Node(std::vector<PortSpec> specs) {
  for (auto& spec : specs) {
    // A cable ends at a physical port: VFs, representors, SFs and stacked devices share it.
    const bool cabled =
        !spec.is_vf() && !spec.is_representor() && !spec.is_sf() && !spec.is_stacked();
    if (spec.switch_peer && cabled) spec.switch_peer->apply_to(switches_[spec.netdev].peer);
    for (const auto& slot : slots_)
      if (slot.port->netdev() == spec.netdev)
        throw std::invalid_argument("duplicate netdev " + spec.netdev);
    slots_.push_back(Slot{std::make_unique<Port>(std::move(spec)), next_ifindex_++, true});
    slots_.back().rdma_index = next_rdma_index_++;
  }
}

std::vector<Port*> Node::ports() {
  std::vector<Port*> present;
  for (auto& slot : slots_)
    if (slot.present) present.push_back(slot.port.get());
  return present;
}

Node::Kernel Node::kernel() {
  Kernel out;
  for (Port* port : ports()) {
    if (kernel_driver(port->spec().flavour) && !port->spec().is_stacked()) {
      out.release = port->spec().driver_version;
      out.package = port->spec().kernel_package;
    }
  }
  return out;
}

bool Node::Kernel::has_app_trust() const {
  unsigned major = 0;
  unsigned minor = 0;
  if (std::sscanf(release.c_str(), "%u.%u", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 2);
}

bool Node::Kernel::checks_stats_count() const {
  unsigned major = 0;
  unsigned minor = 0;
  unsigned patch = 0;
  if (std::sscanf(package.c_str(), "Debian %u.%u.%u", &major, &minor, &patch) != 3) return false;
  if (major > 6 || (major == 6 && minor >= 19)) return true;
  if (major == 6 && minor == 1) return patch >= 192;
  if (major == 6 && minor == 12) return patch >= 107;
  return false;
}

Port* Node::find(const std::string& netdev) {
  for (auto& slot : slots_)
    if (slot.present && slot.port->netdev() == netdev) return slot.port.get();
  return nullptr;
}

Port* Node::find_any(const std::string& netdev) {
  for (auto& slot : slots_)
    if (slot.port->netdev() == netdev) return slot.port.get();
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

int64_t Node::rdma_index(const std::string& netdev) const {
  for (const auto& slot : slots_)
    if (slot.present && slot.port->netdev() == netdev && !slot.port->rdma().name().empty())
      return slot.rdma_index;
  return -1;
}

Port* Node::find_rdma(uint32_t index, uint32_t port) {
  for (auto& slot : slots_) {
    if (slot.present && slot.rdma_index == index && slot.port->rdma().port() == port &&
        !slot.port->rdma().name().empty())
      return slot.port.get();
  }
  return nullptr;
}

void Node::unbind(const std::string& netdev) {
  for (auto& slot : slots_) {
    if (!slot.present || (!netdev.empty() && slot.port->netdev() != netdev)) continue;
    slot.present = false;
    events_.push_back({NodeEvent::Kind::LinkRemoved, slot.port->netdev(), slot.ifindex});
    if (Port* bond = bond_of(*slot.port)) follow_slaves(*bond);
  }
}

void Node::rebind(const std::string& netdev) {
  for (auto& slot : slots_) {
    if (slot.present || slot.sriov_disabled || (!netdev.empty() && slot.port->netdev() != netdev)) {
      continue;
    }
    // A re-probed netdev: firmware defaults and a fresh ifindex, as register_netdevice gives.
    slot.port->reset_to_firmware_defaults();
    slot.ifindex = next_ifindex_++;
    slot.rdma_index = next_rdma_index_++;
    slot.present = true;
    events_.push_back({NodeEvent::Kind::LinkAdded, slot.port->netdev(), slot.ifindex});
  }
}

std::optional<uint32_t> Node::function_of(const Slot& slot, const Port& pf) const {
  const PortSpec& spec = slot.port->spec();
  if (spec.is_vf() && spec.physfn == pf.spec().pci_address) return spec.vf_index;
  if (spec.is_representor() && !spec.represents_sf && spec.representor_of == pf.netdev()) {
    return spec.vf_index;
  }
  return std::nullopt;
}

void Node::set_present(Slot& slot, bool present) {
  if (slot.present == present) return;
  slot.present = present;
  slot.sriov_disabled = !present;
  if (present) {
    slot.port->reset_to_firmware_defaults();
    slot.ifindex = next_ifindex_++;
    events_.push_back({NodeEvent::Kind::LinkAdded, slot.port->netdev(), slot.ifindex});
  } else {
    events_.push_back({NodeEvent::Kind::LinkRemoved, slot.port->netdev(), slot.ifindex});
  }
}

uint32_t Node::numvfs(const std::string& pf) {
  Port* port = find_any(pf);
  if (port == nullptr) return 0;
  uint32_t count = 0;
  for (const auto& slot : slots_) {
    if (slot.present && slot.port->spec().is_vf() && function_of(slot, *port)) ++count;
  }
  return count;
}

uint32_t Node::set_numvfs(const std::string& pf, uint32_t count) {
  Port* port = find_any(pf);
  if (port == nullptr) return 0;
  const uint32_t now = numvfs(pf);
  if (count == now) return now;
  for (auto& slot : slots_) {
    const auto vf = function_of(slot, *port);
    if (!vf) continue;
    // Off first when it was on: a changed non-zero count makes every VF anew.
    if (now > 0) set_present(slot, false);
  }
  for (auto& slot : slots_) {
    const auto vf = function_of(slot, *port);
    if (vf && *vf < count) set_present(slot, true);
  }
  return numvfs(pf);
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
  for (auto it = armed_.begin(); it != armed_.end(); ++it) {
    if (it->netdev != netdev || !op_matches(it->op, operation)) continue;
    WriteTrigger fired = *it;
    fired.fired_by = operation;
    armed_.erase(it);
    if (fired.kind == WriteTrigger::Kind::Vanish) {
      unbind(netdev);  // unregister_netdevice under the request: the driver's op sees no device
      fired_vanishes_.push_back(std::move(fired));
      return -ENODEV;
    }
    fired_holds_.push_back(std::move(fired));
    break;  // one trigger per call; the request itself goes on
  }
  for (Injection& pending : injected_) {
    if (pending.netdev != netdev || pending.count <= 0) continue;
    if (!op_matches(pending.op, operation)) continue;
    --pending.count;
    return -pending.err;  // negative errno, ready to be the op's result
  }
  return 0;
}
void Node::arm_trigger(WriteTrigger trigger) {
  for (WriteTrigger& armed : armed_) {
    if (armed.netdev == trigger.netdev && armed.kind == trigger.kind && armed.op == trigger.op) {
      armed = std::move(trigger);
      return;
    }
  }
  armed_.push_back(std::move(trigger));
}

std::vector<WriteTrigger> Node::take_fired_vanishes() { return std::exchange(fired_vanishes_, {}); }

std::vector<WriteTrigger> Node::take_fired_holds() { return std::exchange(fired_holds_, {}); }

std::chrono::microseconds Node::take_firmware_time() {
  std::chrono::microseconds total{0};
  for (Port* port : ports()) total += port->take_firmware_time();
  return total;
}

void Node::set_file_unreadable(const std::string& path, bool unreadable) {
  if (unreadable) {
    unreadable_files_.insert(path);
  } else {
    unreadable_files_.erase(path);
  }
}

bool Node::advance(std::chrono::microseconds elapsed) {
  bool changed = false;
  for (Port* port : ports()) {
    if (port->advance(elapsed)) {
      note_link_changed(port->netdev());
      changed = true;
    }
  }
  advance_switches(elapsed);
  return changed;
}

void Node::set_switch(const std::string& netdev, const SwitchPeerChange& change) {
  SwitchLink& link = switches_[netdev];
  change.apply_to(link.peer);
  if (change.lldp) link.lldp = *change.lldp;
  const Port* port = find(netdev);
  if (port == nullptr || !port->carrier()) return;  // sent when the carrier comes up
  if (link.lldp == SwitchLldp::Shutdown) {
    send_lldp(netdev, link, 0);
    link.lldp = SwitchLldp::Off;
  } else if (link.lldp == SwitchLldp::On) {
    send_lldp(netdev, link, std::nullopt);  // 802.1AB: a local change is sent at once
    link.due_in_us = int64_t{link.peer.interval_s} * 1'000'000;
  }
}

const SwitchPeer* Node::switch_of(const std::string& netdev) const {
  const auto it = switches_.find(netdev);
  return it == switches_.end() ? nullptr : &it->second.peer;
}

std::vector<Node::LldpFrame> Node::take_lldp_frames() {
  std::vector<LldpFrame> frames;
  frames.swap(lldp_out_);
  return frames;
}

void Node::advance_switches(std::chrono::microseconds elapsed) {
  for (auto& [netdev, link] : switches_) {
    const Port* port = find(netdev);
    if (port == nullptr || !port->carrier()) {
      link.had_carrier = false;
      continue;
    }
    if (!link.had_carrier) {  // link up: the switch's fast start sends at once
      link.had_carrier = true;
      link.due_in_us = 0;
    }
    if (link.lldp != SwitchLldp::On) continue;
    link.due_in_us -= elapsed.count();
    if (link.due_in_us > 0) continue;
    send_lldp(netdev, link, std::nullopt);
    link.due_in_us = int64_t{link.peer.interval_s} * 1'000'000;
  }
}

void Node::send_lldp(const std::string& netdev, SwitchLink& link, std::optional<uint16_t> ttl) {
  const Port* port = find(netdev);
  if (port == nullptr) return;
  if (!port->dcbx_host_mode()) {
    ++lldp_to_firmware_;
    return;
  }
  // Nobody may be draining (a model without a server): keep the newest, as a full socket would.
  constexpr size_t kKept = 1024;
  if (lldp_out_.size() >= kKept) lldp_out_.erase(lldp_out_.begin());
  lldp_out_.push_back({netdev, lldp_frame(link.peer, link.peer.chassis_mac, ttl)});
}

void Node::note_link_changed(const std::string& netdev) {
  if (const int index = ifindex(netdev))
    events_.push_back({NodeEvent::Kind::LinkChanged, netdev, index});
  if (Port* port = find(netdev)) {
    if (Port* bond = bond_of(*port)) follow_slaves(*bond);
    follow_lower(*port);
  }
}

void Node::follow_lower(const Port& lower) {
  for (const UpperAddresses& entry : lower.spec().uppers) {
    Port* upper = find(entry.netdev);
    if (upper == nullptr) continue;
    const bool had = upper->carrier();
    upper->set_peer_carrier(lower.carrier());
    if (had != upper->carrier()) note_link_changed(upper->netdev());
  }
}

Port* Node::bond_of(const Port& port) {
  return port.spec().bond.empty() ? nullptr : find(port.spec().bond);
}

bool Node::slave_active(const Port& slave) {
  Port* bond = bond_of(slave);
  if (bond == nullptr || !slave.carrier()) return false;
  if (bond->spec().bond_mode != "active-backup") return true;
  for (const std::string& name : bond->spec().bond_slaves) {
    if (const Port* first = find(name); first != nullptr && first->carrier()) {
      return first == &slave;
    }
  }
  return false;
}

void Node::follow_slaves(Port& bond) {
  bool any = false;
  for (const std::string& name : bond.spec().bond_slaves) {
    if (const Port* slave = find(name); slave != nullptr && slave->carrier()) any = true;
  }
  const bool had = bond.carrier();
  bond.set_peer_carrier(any);
  if (had != bond.carrier()) note_link_changed(bond.netdev());
}

int Node::set_mtu(Port& port, uint32_t mtu) {
  if (port.spec().is_upper()) {
    // vlan_dev_change_mtu: -ERANGE above the real device's MTU; macvlan_change_mtu: -EINVAL.
    const Port* lower = find(port.spec().upper_of);
    if (lower != nullptr && mtu > lower->mtu()) {
      return port.spec().upper_kind == "vlan" ? -ERANGE : -EINVAL;
    }
  }
  if (const int err = port.set_mtu(mtu); err != 0) return err;
  // vlan_device_event and macvlan_device_event on NETDEV_CHANGEMTU: an upper above the port's
  // new MTU comes down to it; one below keeps its own.
  for (const UpperAddresses& entry : port.spec().uppers) {
    Port* upper = find(entry.netdev);
    if (upper == nullptr || upper->mtu() <= mtu) continue;
    if (upper->set_mtu(mtu) == 0) note_link_changed(entry.netdev);
  }
  for (const std::string& name : port.spec().bond_slaves) {
    Port* slave = find(name);
    if (slave == nullptr || slave->mtu() == mtu) continue;
    if (const int err = slave->set_mtu(mtu); err != 0) return err;
    note_link_changed(name);
  }
  return 0;
}

void Node::note_dcb_changed(const std::string& netdev, uint8_t dcb_cmd) {
  if (const int index = ifindex(netdev))
    events_.push_back({NodeEvent::Kind::DcbChanged, netdev, index, dcb_cmd});
}

std::vector<NodeEvent> Node::take_events() {
  std::vector<NodeEvent> taken;
  taken.swap(events_);
  return taken;
}

}  // namespace roce_sim
