// SPDX-License-Identifier: Apache-2.0
#include "probe/localize.hpp"

#include <map>
#include <set>

namespace roced::probe {

namespace {

struct Tally {
  size_t paths = 0;
  size_t bad = 0;
  bool all_bad() const { return paths > 0 && bad == paths; }
  bool some_good() const { return bad < paths; }
};

}  // namespace

std::vector<Blame> localize(const std::vector<PathState>& paths) {
  std::map<std::string, Tally> by_port, by_peer, by_group;
  std::map<std::string, std::set<std::string>> group_peers;
  std::map<std::string, std::string> peer_group;
  Tally all;
  for (const PathState& path : paths) {
    for (Tally* tally : {&by_port[path.port], &by_peer[path.peer], &by_group[path.group], &all}) {
      ++tally->paths;
      tally->bad += path.bad ? 1 : 0;
    }
    group_peers[path.group].insert(path.peer);
    peer_group[path.peer] = path.group;
  }
  std::vector<Blame> blames;
  if (all.bad == 0) return blames;
  if (all.all_bad() && all.paths > 1) return {{Place::Host, "", "", ""}};

  std::set<std::string> bad_ports, bad_groups, bad_peers;
  // Each conclusion needs two witnesses: one bad path alone could as well be the path.
  for (const auto& [port, tally] : by_port) {
    if (tally.all_bad() && tally.paths > 1) {
      bad_ports.insert(port);
      blames.push_back({Place::Port, port, "", ""});
    }
  }
  // A group counts only with two peers or more: one peer's trouble is that peer's.
  for (const auto& [group, tally] : by_group) {
    if (tally.all_bad() && group_peers[group].size() > 1) {
      bad_groups.insert(group);
      blames.push_back({Place::Switch, "", "", group});
    }
  }
  for (const auto& [peer, tally] : by_peer) {
    if (bad_groups.count(peer_group[peer]) != 0) continue;
    // Bad from every port that is not itself to blame.
    size_t paths_left = 0, bad_left = 0;
    for (const PathState& path : paths) {
      if (path.peer != peer || bad_ports.count(path.port) != 0) continue;
      ++paths_left;
      bad_left += path.bad ? 1 : 0;
    }
    if (paths_left > 1 && bad_left == paths_left) {
      bad_peers.insert(peer);
      blames.push_back({Place::Peer, "", peer, peer_group[peer]});
    }
  }
  for (const PathState& path : paths) {
    if (!path.bad || bad_ports.count(path.port) != 0 || bad_groups.count(path.group) != 0 ||
        bad_peers.count(path.peer) != 0) {
      continue;
    }
    blames.push_back({Place::Path, path.port, path.peer, path.group});
  }
  return blames;
}

}  // namespace roced::probe
