// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the trouble most likely is, from what this node's probes saw: the intersection rule of
// Pingmesh (SIGCOMM 2015) and R-Pingmesh (SIGCOMM 2024) on one node's row of the matrix. A port
// whose every peer is bad while the node's other ports reach theirs is this port (its NIC,
// cable or switch port); a peer bad from every port while other peers answer is that peer; all
// peers of one group (one switch) bad while other groups answer is that switch; every path bad
// is this host. Each needs two paths to say so; what is left is the one path. The fleet-wide view
// (many nodes' rows) is the recording rules' over every node's series.
#include <string>
#include <vector>

#include "util/enum_names.hpp"

namespace roced::probe {

struct PathState {
  std::string port;   // the local netdev
  std::string peer;   // the peer's address
  std::string group;  // the peer's group
  bool bad = false;   // loss or tail latency past its threshold
};

enum class Place { Host, Port, Switch, Peer, Path };
inline constexpr auto kPlaceNames = enum_names<Place>({{Place::Host, "host"},
                                                       {Place::Port, "port"},
                                                       {Place::Switch, "switch"},
                                                       {Place::Peer, "peer"},
                                                       {Place::Path, "path"}});
static_assert(kPlaceNames.covers<Place::Path>(), "name every Place");

struct Blame {
  Place place;
  std::string port;   // Port, Path
  std::string peer;   // Peer, Path
  std::string group;  // Switch (and the peer's, for Peer and Path)
  bool operator==(const Blame&) const = default;
};

// One blame per place, each bad path explained by exactly one; none when nothing is bad.
std::vector<Blame> localize(const std::vector<PathState>& paths);

}  // namespace roced::probe
