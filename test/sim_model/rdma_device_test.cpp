// SPDX-License-Identifier: Apache-2.0
// The RDMA device on a simulated port: GID table (roce_gid_mgmt.c, cache.c), rdma_cm configfs
// (cma_configfs.c) and hw_counters (hw/mlx5/counters.c).
#include "sim/model/rdma_device.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <map>

namespace roce_sim {
namespace {

constexpr const char* kMac = "b8:3f:d2:00:00:02";

RdmaDevice device_with(const std::vector<std::string>& ipv4,
                       const std::vector<std::string>& ipv6 = {}) {
  RdmaDevice device("mlx5_0", 1, "lan2");
  device.set_addresses(kMac, ipv4, ipv6);
  return device;
}

void expect_entry(const RdmaDevice& device, size_t index, const std::string& gid, GidType type) {
  ASSERT_LT(index, device.gid_table().size());
  const auto& entry = device.gid_table()[index];
  ASSERT_TRUE(entry.has_value()) << "slot " << index << " empty";
  EXPECT_EQ(RdmaDevice::format_gid(entry->gid), gid) << "slot " << index;
  EXPECT_EQ(entry->type, type) << "slot " << index;
  EXPECT_EQ(entry->ndev, "lan2");
}

TEST(RdmaGid, OneIpv4AddressGivesRoceV2AtIndex3) {
  const auto device = device_with({"192.168.2.10/24"});
  EXPECT_EQ(device.gid_table().size(), static_cast<size_t>(RdmaDevice::kGidTableSize));
  expect_entry(device, 0, "fe80:0000:0000:0000:ba3f:d2ff:fe00:0002", GidType::RoceV1);
  expect_entry(device, 1, "fe80:0000:0000:0000:ba3f:d2ff:fe00:0002", GidType::RoceV2);
  expect_entry(device, 2, "0000:0000:0000:0000:0000:ffff:c0a8:020a", GidType::RoceV1);
  expect_entry(device, 3, "0000:0000:0000:0000:0000:ffff:c0a8:020a", GidType::RoceV2);
  EXPECT_FALSE(device.gid_table()[4].has_value());
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
}

TEST(RdmaGid, Ipv4AddressesComeBeforeIpv6AtLoad) {
  const auto device = device_with({"192.168.2.10/24"}, {"fd00::2/64"});
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
  expect_entry(device, 4, "fd00:0000:0000:0000:0000:0000:0000:0002", GidType::RoceV1);
  expect_entry(device, 5, "fd00:0000:0000:0000:0000:0000:0000:0002", GidType::RoceV2);
}

TEST(RdmaGid, AddedIpv6AddressTakesTheNextFreeSlots) {
  auto device = device_with({"192.168.2.10/24"});
  device.add_address("fd00::2/64");
  EXPECT_EQ(device.find_gid_index(GidType::RoceV1, "fd00::2"), 4);
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "fd00::2"), 5);
}

TEST(RdmaGid, LinkLocalAddressDuplicatesTheDefaultGidAndIsNotAddedTwice) {
  auto device = device_with({"192.168.2.10/24"});
  device.add_address("fe80::ba3f:d2ff:fe00:2/64");
  EXPECT_FALSE(device.gid_table()[4].has_value());
}

TEST(RdmaGid, RemovedAddressLeavesAHoleTheNextAddressFills) {
  auto device = device_with({"192.168.2.10/24"}, {"fd00::2/64"});
  device.remove_address("192.168.2.10/24");
  EXPECT_FALSE(device.gid_table()[2].has_value());
  EXPECT_FALSE(device.gid_table()[3].has_value());
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "fd00::2"), 5);  // did not move
  EXPECT_TRUE(device.gid_table()[0].has_value());                   // default GIDs stay
  device.add_address("192.168.2.11/24");
  EXPECT_EQ(device.find_gid_index(GidType::RoceV1, "192.168.2.11"), 2);
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.11"), 3);
}

TEST(RdmaGid, APodAddsFourEntriesNamedByItsOwnNetdev) {
  auto device = device_with({"192.168.2.10/24"});
  ASSERT_TRUE(device.start_pod("10.201.0.1"));
  EXPECT_FALSE(device.start_pod("10.201.0.1"));
  const auto& table = device.gid_table();
  // Its IPv4 address, then its link-local address (MAC 0a:58:0a:c9:00:01, EUI-64).
  const char* const expected[] = {
      "0000:0000:0000:0000:0000:ffff:0ac9:0001", "0000:0000:0000:0000:0000:ffff:0ac9:0001",
      "fe80:0000:0000:0000:0858:0aff:fec9:0001", "fe80:0000:0000:0000:0858:0aff:fec9:0001"};
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(table[4 + i].has_value()) << 4 + i;
    EXPECT_EQ(RdmaDevice::format_gid(table[4 + i]->gid), expected[i]);
    EXPECT_EQ(table[4 + i]->type, i % 2 == 0 ? GidType::RoceV1 : GidType::RoceV2);
    EXPECT_EQ(table[4 + i]->ndev, "net1");
  }
}

TEST(RdmaGid, AHostAddressAddedAfterPodsTakesTheSlotsAPodLeft) {
  auto device = device_with({});
  for (const char* pod : {"10.201.0.1", "10.201.0.2"}) ASSERT_TRUE(device.start_pod(pod));
  ASSERT_TRUE(device.stop_pod("10.201.0.1"));
  EXPECT_FALSE(device.stop_pod("10.201.0.1"));
  device.add_address("192.168.2.10/24");
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
  device.remove_address("192.168.2.10/24");
  for (int i = 0; i < 3; ++i) device.start_pod("10.201.1." + std::to_string(i + 1));
  device.add_address("192.168.2.10/24");
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 19);  // after 4 pods
}

TEST(RdmaGid, AFullTableDropsWhatDoesNotFit) {
  auto device = device_with({"192.168.2.10/24"});
  for (int pod = 1; pod <= 70; ++pod) device.start_pod("10.201.0." + std::to_string(pod));
  size_t used = 0;
  for (const auto& entry : device.gid_table()) used += entry.has_value() ? 1 : 0;
  EXPECT_EQ(used, static_cast<size_t>(RdmaDevice::kGidTableSize));
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "10.201.0.70"), -1);  // no room left
}

TEST(RdmaGid, PodsComeBackAfterTheHostsAddressesOnADriverReload) {
  auto device = device_with({});
  device.start_pod("10.201.0.1");
  device.set_addresses(kMac, {"192.168.2.10/24"}, {});
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "192.168.2.10"), 3);
  EXPECT_EQ(device.find_gid_index(GidType::RoceV2, "10.201.0.1"), 5);
}

TEST(RdmaGid, TypeNamesUseTheSysfsSpelling) {
  EXPECT_EQ(gid_type_name(GidType::RoceV1), "IB/RoCE v1");
  EXPECT_EQ(gid_type_name(GidType::RoceV2), "RoCE v2");
}

TEST(RdmaCm, FreshDeviceIsRoceV2AndTos0) {
  RdmaDevice device("mlx5_0", 1, "lan2");
  EXPECT_EQ(device.default_roce_mode(), "RoCE v2");
  EXPECT_EQ(device.default_roce_tos(), 0);
}

TEST(RdmaCm, ModeAcceptsOnlyTheTwoSpellingsWithOptionalNewline) {
  RdmaDevice device("mlx5_0", 1, "lan2");
  EXPECT_EQ(device.set_default_roce_mode("RoCE v3"), -EINVAL);
  EXPECT_EQ(device.set_default_roce_mode("roce v2"), -EINVAL);
  EXPECT_EQ(device.set_default_roce_mode(""), -EINVAL);
  EXPECT_EQ(device.set_default_roce_mode("RoCE v2\n\n"), -EINVAL);
  EXPECT_EQ(device.default_roce_mode(), "RoCE v2");
  ASSERT_EQ(device.set_default_roce_mode("IB/RoCE v1\n"), 0);
  EXPECT_EQ(device.default_roce_mode(), "IB/RoCE v1");
  ASSERT_EQ(device.set_default_roce_mode("RoCE v2"), 0);
  EXPECT_EQ(device.default_roce_mode(), "RoCE v2");
}

TEST(RdmaCm, TosIsAU8LikeKstrtou8) {
  RdmaDevice device("mlx5_0", 1, "lan2");
  EXPECT_EQ(device.set_default_roce_tos(256), -ERANGE);
  EXPECT_EQ(device.set_default_roce_tos(-1), -EINVAL);
  ASSERT_EQ(device.set_default_roce_tos(106), 0);
  EXPECT_EQ(device.default_roce_tos(), 106);
  EXPECT_EQ(device.write_default_roce_tos("abc"), -EINVAL);
  EXPECT_EQ(device.write_default_roce_tos("300\n"), -ERANGE);
  ASSERT_EQ(device.write_default_roce_tos("0x20\n"), 0);
  EXPECT_EQ(device.default_roce_tos(), 32);
}

TEST(RdmaCounters, ThirtyTwoBitCountersWrapAndSixtyFourBitOnesDoNot) {
  RdmaDevice device("mlx5_0", 1, "lan2");
  ASSERT_TRUE(device.hw_counters().at("out_of_sequence").wraps_32bit);
  ASSERT_FALSE(device.hw_counters().at("np_cnp_sent").wraps_32bit);
  device.add_to_counter("out_of_sequence", 0xffffffffULL);
  device.add_to_counter("out_of_sequence", 2);
  EXPECT_EQ(device.hw_counters().at("out_of_sequence").value, 1u);
  device.add_to_counter("np_cnp_sent", 0xffffffffULL);
  device.add_to_counter("np_cnp_sent", 2);
  EXPECT_EQ(device.hw_counters().at("np_cnp_sent").value, 0x100000001ULL);
  device.add_to_counter("no_such_counter", 1);
  EXPECT_FALSE(device.hw_counters().count("no_such_counter"));
  for (const char* name :
       {"np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored", "out_of_buffer",
        "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err", "duplicate_request",
        "rnr_nak_retry_err", "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart",
        "rx_icrc_encapsulated", "req_cqe_error", "resp_cqe_error"})
    EXPECT_TRUE(device.hw_counters().count(name)) << name;
}

TEST(PmaCounters, DataInFourOctetWordsPacketsAsTheyAreErrorsZero) {
  // core/sysfs.c pma_attrs_ext: the 21 files of counters/ on an mlx5 port, in that order.
  const auto counters = pma_counters({4000003, 8000, 977, 2});
  ASSERT_EQ(counters.size(), 21u);
  EXPECT_EQ(counters.front().first, "symbol_error");
  EXPECT_EQ(counters.back().first, "multicast_xmit_packets");
  std::map<std::string, uint64_t> by_name(counters.begin(), counters.end());
  EXPECT_EQ(by_name.at("port_xmit_data"), 1000000u);  // 4000003 bytes >> 2
  EXPECT_EQ(by_name.at("port_rcv_data"), 2000u);
  EXPECT_EQ(by_name.at("port_xmit_packets"), 977u);
  EXPECT_EQ(by_name.at("unicast_xmit_packets"), 977u);
  EXPECT_EQ(by_name.at("port_rcv_packets"), 2u);
  EXPECT_EQ(by_name.at("unicast_rcv_packets"), 2u);
  for (const char* zero : {"multicast_rcv_packets", "link_downed", "port_rcv_errors",
                           "port_xmit_discards", "port_xmit_wait", "VL15_dropped"}) {
    EXPECT_EQ(by_name.at(zero), 0u) << zero;
  }
}

}  // namespace
}  // namespace roce_sim
