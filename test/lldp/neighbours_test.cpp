// SPDX-License-Identifier: Apache-2.0
#include "lldp/neighbours.hpp"

#include <gtest/gtest.h>

namespace roced::lldp {
namespace {

using std::chrono::seconds;
const Neighbours::TimePoint kStart{seconds(1000)};

Lldpdu from(const std::string& chassis, const std::string& port, uint16_t ttl = 120) {
  Lldpdu l;
  l.chassis_id_subtype = 4;
  l.chassis_id = chassis;
  l.port_id_subtype = 5;
  l.port_id = port;
  l.ttl = ttl;
  return l;
}

TEST(Neighbours, ANeighbourLivesForItsTtlFromItsLastFrame) {
  Neighbours n;
  EXPECT_EQ(n.hear(from("a", "Eth1"), kStart), Heard::Changed);
  EXPECT_EQ(n.hear(from("a", "Eth1"), kStart + seconds(30)), Heard::Same);
  EXPECT_EQ(n.all().size(), 1u);
  EXPECT_EQ(n.current()->frames, 2u);
  EXPECT_EQ(n.next_expiry(), kStart + seconds(150));
  EXPECT_FALSE(n.expire(kStart + seconds(149)));
  EXPECT_TRUE(n.expire(kStart + seconds(150)));
  EXPECT_EQ(n.current(), nullptr);
  EXPECT_FALSE(n.next_expiry());
}

TEST(Neighbours, AChangedAdvertisementIsAChange) {
  Neighbours n;
  (void)n.hear(from("a", "Eth1"), kStart);
  Lldpdu changed = from("a", "Eth1");
  changed.pfc = Pfc{false, false, 8, 1u << 4};
  EXPECT_EQ(n.hear(changed, kStart + seconds(30)), Heard::Changed);
  EXPECT_EQ(n.current()->first_heard, kStart);
  EXPECT_EQ(n.current()->lldpdu.pfc->enabled_mask, 1u << 4);
}

TEST(Neighbours, AShutdownLldpduForgetsTheSenderAtOnce) {
  Neighbours n;
  (void)n.hear(from("a", "Eth1"), kStart);
  EXPECT_EQ(n.hear(from("a", "Eth1", 0), kStart + seconds(1)), Heard::Changed);
  EXPECT_TRUE(n.all().empty());
  EXPECT_EQ(n.hear(from("b", "Eth1", 0), kStart + seconds(2)), Heard::Same);
}

TEST(Neighbours, TheMostRecentSenderIsCurrentAndTheirNumberIsCapped) {
  Neighbours n;
  for (size_t i = 0; i < kMaxNeighbours; ++i) {
    EXPECT_EQ(n.hear(from("c" + std::to_string(i), "p"), kStart + seconds(i)), Heard::Changed);
  }
  EXPECT_EQ(n.current()->lldpdu.chassis_id, "c" + std::to_string(kMaxNeighbours - 1));
  EXPECT_EQ(n.hear(from("intruder", "p"), kStart + seconds(10)), Heard::Crowded);
  EXPECT_EQ(n.all().size(), kMaxNeighbours);
  EXPECT_EQ(n.hear(from("c0", "p"), kStart + seconds(11)), Heard::Same);  // known: refreshed
  EXPECT_EQ(n.current()->lldpdu.chassis_id, "c0");
}

}  // namespace
}  // namespace roced::lldp
