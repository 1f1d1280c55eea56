// SPDX-License-Identifier: Apache-2.0
#include "probe/localize.hpp"

#include <gtest/gtest.h>

namespace roced::probe {
namespace {

// Two local ports, each probing four peers: a1 and a2 under switch a, b1 and b2 under b.
std::vector<PathState> matrix() {
  std::vector<PathState> paths;
  for (const char* port : {"rail0", "rail1"}) {
    for (const auto& [peer, group] : std::vector<std::pair<std::string, std::string>>{
             {"10.0.0.1", "a"}, {"10.0.0.2", "a"}, {"10.0.1.1", "b"}, {"10.0.1.2", "b"}}) {
      paths.push_back({port, peer, group, false});
    }
  }
  return paths;
}

void set_bad(std::vector<PathState>& paths, const std::string& port, const std::string& peer) {
  for (PathState& path : paths) {
    if ((port.empty() || path.port == port) && (peer.empty() || path.peer == peer)) path.bad = true;
  }
}

TEST(ProbeLocalize, NothingBadNothingBlamed) { EXPECT_TRUE(localize(matrix()).empty()); }

TEST(ProbeLocalize, APortThatReachesNoPeerIsThatPort) {
  auto paths = matrix();
  set_bad(paths, "rail1", "");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Port, "rail1", "", ""}}));
}

TEST(ProbeLocalize, APeerNoPortReachesIsThatPeer) {
  auto paths = matrix();
  set_bad(paths, "", "10.0.1.2");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Peer, "", "10.0.1.2", "b"}}));
}

TEST(ProbeLocalize, EveryPeerOfAGroupIsItsSwitch) {
  auto paths = matrix();
  set_bad(paths, "", "10.0.0.1");
  set_bad(paths, "", "10.0.0.2");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Switch, "", "", "a"}}));
}

TEST(ProbeLocalize, OneBadPathIsThePath) {
  auto paths = matrix();
  set_bad(paths, "rail0", "10.0.1.1");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Path, "rail0", "10.0.1.1", "b"}}));
}

TEST(ProbeLocalize, EveryPathBadIsThisHost) {
  auto paths = matrix();
  set_bad(paths, "", "");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Host, "", "", ""}}));
}

TEST(ProbeLocalize, ABadPortDoesNotMakeItsPeersBad) {
  // rail1 is down and, besides, a1 does not answer rail0: the port, and a1 only as a path
  // (one witness left for it).
  auto paths = matrix();
  set_bad(paths, "rail1", "");
  set_bad(paths, "rail0", "10.0.0.1");
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Port, "rail1", "", ""},
                                                 {Place::Path, "rail0", "10.0.0.1", "a"}}));
}

TEST(ProbeLocalize, OneWitnessIsOnlyAPath) {
  // A single port with a single peer: it cannot tell the port from the peer from the path.
  std::vector<PathState> paths = {{"rail0", "10.0.0.1", "a", true},
                                  {"rail0", "10.0.0.2", "a", false}};
  EXPECT_EQ(localize(paths), (std::vector<Blame>{{Place::Path, "rail0", "10.0.0.1", "a"}}));
  EXPECT_EQ(kPlaceNames.name(Place::Switch), "switch");
}

}  // namespace
}  // namespace roced::probe
