// SPDX-License-Identifier: Apache-2.0
// The RDMA-side readers against real sysfs captures and against GID tables laid out the way
// drivers/infiniband/core/sysfs.c shows them.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "os/system.hpp"
#include "port/gid_owners.hpp"
#include "rdma/ecn.hpp"
#include "rdma/gid.hpp"
#include "rdma/hw_counters.hpp"
#include "rdma/rdma_cm.hpp"
#include "rdma/verbs.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"

namespace roced::rdma {
namespace {

namespace fs = std::filesystem;

// A scratch node directory, removed at the end; files go where simulated_system maps them.
class Tree {
 public:
  Tree() {
    char pattern[] = "/tmp/roced-rdma-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    system_ = roce_sim::simulated_system(dir_);
  }
  ~Tree() { fs::remove_all(dir_); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  // `real_path` as on a real machine ("/sys/class/...").
  void write(const fs::path& real_path, const std::string& text) {
    const fs::path path = system_.files->resolve(real_path);
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void mkdir(const fs::path& real_path) {
    fs::create_directories(system_.files->resolve(real_path));
  }
  const FileTree& files() const { return *system_.files; }

 private:
  fs::path dir_;
  System system_;
};

const std::string kZeroGid = "0000:0000:0000:0000:0000:0000:0000:0000";

// A RoCE GID table on mlx5_0 port 1: `filled` gives (index, gid, type, ndev); the other slots of
// 0..15 are all-zero GIDs whose types/ndevs files are absent (the kernel: EINVAL).
struct Slot {
  int index;
  std::string gid;
  std::string type;
  std::string ndev;
};
void write_gid_table(Tree& tree, const std::vector<Slot>& filled) {
  const fs::path port = "/sys/class/infiniband/mlx5_0/ports/1";
  for (int i = 0; i < 16; ++i) tree.write(port / "gids" / std::to_string(i), kZeroGid + "\n");
  tree.mkdir(port / "gid_attrs/types");
  tree.mkdir(port / "gid_attrs/ndevs");
  for (const auto& slot : filled) {
    const std::string index = std::to_string(slot.index);
    tree.write(port / "gids" / index, slot.gid + "\n");
    tree.write(port / "gid_attrs/types" / index, slot.type + "\n");
    tree.write(port / "gid_attrs/ndevs" / index, slot.ndev + "\n");
  }
}

const std::string kLinkLocal = "fe80:0000:0000:0000:0202:c9ff:fe00:0102";
const std::string kIpv4 = "0000:0000:0000:0000:0000:ffff:c0a8:020a";  // 192.168.2.10
const std::string kIpv6 = "fd00:0000:0000:0000:0000:0000:0000:0002";

// ---- GIDs ----

TEST(GidText, Ipv4MappedAndCompactForms) {
  EXPECT_EQ(ipv4_of_mapped_gid(kIpv4), "192.168.2.10");
  EXPECT_EQ(ipv4_of_mapped_gid(kLinkLocal), std::nullopt);
  EXPECT_EQ(ipv4_of_mapped_gid(kIpv6), std::nullopt);
  EXPECT_EQ(ipv4_of_mapped_gid("garbage"), std::nullopt);
  EXPECT_EQ(compact_gid(kIpv4), "::ffff:192.168.2.10");
  EXPECT_EQ(compact_gid(kLinkLocal), "fe80::202:c9ff:fe00:102");
  EXPECT_TRUE(is_zero_gid(kZeroGid));
  EXPECT_FALSE(is_zero_gid(kIpv4));
}

TEST(GidTable, OneIpv4AddressGivesRoceV2AtIndex3) {
  Tree tree;
  write_gid_table(tree, {{0, kLinkLocal, "IB/RoCE v1", "lan2"},
                         {1, kLinkLocal, "RoCE v2", "lan2"},
                         {2, kIpv4, "IB/RoCE v1", "lan2"},
                         {3, kIpv4, "RoCE v2", "lan2"}});
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->size(), 4u);  // the 12 all-zero slots are empty, not entries
  EXPECT_EQ((*table)[3].index, 3);
  EXPECT_EQ((*table)[3].type, "RoCE v2");
  EXPECT_EQ((*table)[3].ndev, "lan2");
  auto entry = roce_v2_ipv4_entry(*table, "lan2");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->index, 3);
  EXPECT_EQ(entry->gid, kIpv4);
}

TEST(GidTable, ExtraIpv6AddressShiftsTheIndex) {
  Tree tree;
  // An IPv6 address configured before the IPv4 one takes slots 2 and 3.
  write_gid_table(tree, {{0, kLinkLocal, "IB/RoCE v1", "lan2"},
                         {1, kLinkLocal, "RoCE v2", "lan2"},
                         {2, kIpv6, "IB/RoCE v1", "lan2"},
                         {3, kIpv6, "RoCE v2", "lan2"},
                         {4, kIpv4, "IB/RoCE v1", "lan2"},
                         {5, kIpv4, "RoCE v2", "lan2"}});
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  auto entry = roce_v2_ipv4_entry(*table, "lan2");
  ASSERT_TRUE(entry.has_value());
  EXPECT_EQ(entry->index, 5);
}

TEST(GidTable, EmptySlotsLeftByARemovedAddressAreSkipped) {
  Tree tree;
  // Slots 2 and 3 were freed by a removed address (all-zero GID, types/ndevs unreadable).
  write_gid_table(tree, {{0, kLinkLocal, "IB/RoCE v1", "lan2"},
                         {1, kLinkLocal, "RoCE v2", "lan2"},
                         {6, kIpv4, "IB/RoCE v1", "lan2"},
                         {7, kIpv4, "RoCE v2", "lan2"}});
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->size(), 4u);
  EXPECT_EQ((*table)[2].index, 6);
  EXPECT_EQ(roce_v2_ipv4_entry(*table, "lan2")->index, 7);
}

TEST(GidTable, NonZeroGidWithoutTypeIsAnEmptySlot) {
  Tree tree;
  write_gid_table(tree, {{0, kLinkLocal, "IB/RoCE v1", "lan2"}, {3, kIpv4, "RoCE v2", "lan2"}});
  // Slot 2 holds a GID but its type cannot be read (the kernel's EINVAL, here ENOENT).
  tree.write("/sys/class/infiniband/mlx5_0/ports/1/gids/2", kIpv4 + "\n");
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->size(), 2u);
  EXPECT_EQ((*table)[1].index, 3);
}

TEST(GidTable, ASlotNameBeyondIntIsIgnoredNotFatal) {
  Tree tree;
  write_gid_table(tree, {{3, kIpv4, "RoCE v2", "lan2"}});
  // No kernel names a slot so, but a name is text from outside and must not end the process.
  tree.write("/sys/class/infiniband/mlx5_0/ports/1/gids/99999999999", kIpv4 + "\n");
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  ASSERT_EQ(table->size(), 1u);
  EXPECT_EQ((*table)[0].index, 3);
}

TEST(GidTable, SelectionIgnoresOtherNetdevsAndRoceV1) {
  Tree tree;
  write_gid_table(tree, {{0, kLinkLocal, "IB/RoCE v1", "lan2"},
                         {1, kLinkLocal, "RoCE v2", "lan2"},
                         {2, kIpv4, "IB/RoCE v1", "lan2"},
                         {3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2", "lan2.100"},
                         {4, kIpv6, "RoCE v2", "lan2"},
                         {5, kIpv4, "RoCE v2", "lan2"}});
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(roce_v2_ipv4_entry(*table, "lan2")->index, 5);
  EXPECT_EQ(roce_v2_ipv4_entry(*table, "lan2.100")->index, 3);
  EXPECT_FALSE(roce_v2_ipv4_entry(*table, "lan3").has_value());
}

TEST(GidTable, NoIpv4AddressMeansNoEntry) {
  Tree tree;
  write_gid_table(tree,
                  {{0, kLinkLocal, "IB/RoCE v1", "lan2"}, {1, kLinkLocal, "RoCE v2", "lan2"}});
  auto table = read_gid_table(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(table.ok());
  EXPECT_FALSE(roce_v2_ipv4_entry(*table, "lan2").has_value());
}

// A pod's macvlan named like the port: its entries read as the port's, and only the GID tells
// them apart (the port's MAC link-local and its own addresses).
TEST(GidOwners, AnEntryWithAGidItsNetdevCannotHoldIsElsewhere) {
  const std::string pod_ipv4 = "0000:0000:0000:0000:0000:ffff:0ac8:0005";  // 10.200.0.5
  std::vector<GidEntry> table = {{0, kLinkLocal, "RoCE v2", "lan2"},
                                 {3, pod_ipv4, "RoCE v2", "lan2"},
                                 {5, kIpv4, "RoCE v2", "lan2"},
                                 {7, kIpv4, "RoCE v2", "net1"}};
  std::vector<std::string> asked;
  GidOwners owners([&](const std::string& name) -> std::optional<std::set<Address16>> {
    asked.push_back(name);
    if (name != "lan2") return std::nullopt;  // net1 is no netdev here
    Address16 link_local{}, ipv4{};
    inet_pton(AF_INET6, kLinkLocal.c_str(), link_local.data());
    inet_pton(AF_INET6, kIpv4.c_str(), ipv4.data());
    return std::set<Address16>{link_local, ipv4};
  });
  owners.mark(table);
  EXPECT_FALSE(table[0].elsewhere);
  EXPECT_TRUE(table[1].elsewhere);
  EXPECT_FALSE(table[2].elsewhere);
  EXPECT_FALSE(table[3].elsewhere);  // unknown here: foreign_entries counts it by its name
  EXPECT_EQ(asked, (std::vector<std::string>{"lan2", "net1"}));  // once per name
  EXPECT_EQ(roce_v2_ipv4_entry(table, "lan2")->index, 5);
  Tree tree;
  tree.write("/sys/class/net/lan2/ifindex", "2\n");
  const auto foreign = foreign_entries(tree.files(), table);
  EXPECT_EQ(foreign.count, 2u);
  EXPECT_EQ(foreign.netdevs, (std::vector<std::string>{"lan2", "net1"}));
}

TEST(GidOwners, UnknownAddressesTakeTheNameAtItsWord) {
  std::vector<GidEntry> table = {{3, "0000:0000:0000:0000:0000:ffff:0ac8:0005", "RoCE v2", "lan2"}};
  GidOwners owners([](const std::string&) { return std::nullopt; });
  owners.mark(table);
  EXPECT_FALSE(table[0].elsewhere);
  EXPECT_EQ(roce_v2_ipv4_entry(table, "lan2")->index, 3);
}

// addrconf_ifid_eui48: the universal/local bit flipped, ff:fe in the middle.
TEST(GidOwners, TheDefaultGidIsTheMacsLinkLocalAddress) {
  const auto gid = mac_link_local_gid("b8:3f:d2:17:00:00");
  ASSERT_TRUE(gid.has_value());
  char text[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, gid->data(), text, sizeof text);
  EXPECT_STREQ(text, "fe80::ba3f:d2ff:fe17:0");
  EXPECT_FALSE(mac_link_local_gid("b8:3f:d2:17:00").has_value());
  EXPECT_FALSE(mac_link_local_gid("b8:3f:d2:17:00:00:01").has_value());
}

TEST(GidTable, MissingDeviceIsAnError) {
  Tree tree;
  auto table = read_gid_table(tree.files(), "mlx5_9", 1);
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().code, ENOENT);
}

// ---- rdma_cm ----

TEST(RdmaCm, AbsentGroupIsNotConfiguredAndReadingDoesNotCreateIt) {
  Tree tree;
  tree.mkdir("/sys/kernel/config/rdma_cm");
  auto cm = read_rdma_cm(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(cm.ok()) << cm.error().message;
  EXPECT_FALSE(cm->configured);
  EXPECT_FALSE(tree.files().exists("/sys/kernel/config/rdma_cm/mlx5_0"));
}

TEST(RdmaCm, ConfiguredGroupReportsModeAndTos) {
  Tree tree;
  tree.write("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "RoCE v2\n");
  tree.write("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n");
  auto cm = read_rdma_cm(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(cm.ok()) << cm.error().message;
  EXPECT_TRUE(cm->configured);
  EXPECT_EQ(cm->roce_mode, "RoCE v2");
  EXPECT_EQ(cm->tos, 106);
}

TEST(RdmaCm, GarbageTosIsAnError) {
  Tree tree;
  tree.write("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode", "IB/RoCE v1\n");
  tree.write("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "300\n");
  auto cm = read_rdma_cm(tree.files(), "mlx5_0", 1);
  ASSERT_FALSE(cm.ok());
  EXPECT_EQ(cm.error().code, EINVAL);
  EXPECT_NE(cm.error().message.find("default_roce_tos"), std::string::npos);
}

// ---- hw_counters on the real capture ----

TEST(HwCounters, RealConnectX4Capture) {
  System capture = roce_sim::simulated_system(ROCED_RDMA_TEST_DATA);
  auto counters = read_hw_counters(*capture.files, "mlx5_0", 1);
  ASSERT_TRUE(counters.ok()) << counters.error().message;
  EXPECT_EQ(counters->size(), 25u);
  EXPECT_EQ(counters->at("duplicate_request"), 41u);
  EXPECT_EQ(counters->at("local_ack_timeout_err"), 131u);
  EXPECT_EQ(counters->at("rx_read_requests"), 175528982u);
  EXPECT_EQ(counters->at("roce_adp_retrans"), 99u);
  // A counter this device lacks is absent, not zero.
  EXPECT_EQ(counters->count("np_cnp_sent"), 0u);
}

TEST(HwCounters, MissingDirectoryIsEmptyNotAnError) {
  System capture = roce_sim::simulated_system(ROCED_RDMA_TEST_DATA);
  auto counters = read_hw_counters(*capture.files, "mlx5_0", 2);
  ASSERT_TRUE(counters.ok()) << counters.error().message;
  EXPECT_TRUE(counters->empty());
}

TEST(HwCounters, NonNumericFilesAreSkipped) {
  Tree tree;
  tree.write("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent",
             "18446744073709551615\n");
  tree.write("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/lifespan", "10\n");
  tree.write("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/note", "not a number\n");
  tree.mkdir("/sys/class/infiniband/mlx5_0/ports/1/hw_counters/subdir");
  auto counters = read_hw_counters(tree.files(), "mlx5_0", 1);
  ASSERT_TRUE(counters.ok()) << counters.error().message;
  EXPECT_EQ(counters->size(), 2u);
  EXPECT_EQ(counters->at("np_cnp_sent"), 18446744073709551615ull);
}

// ---- ECN / DCQCN ----

TEST(Ecn, OfedTreeFromRealCapture) {
  System capture = roce_sim::simulated_system(ROCED_RDMA_TEST_DATA);
  auto ecn = read_ecn(*capture.files, "0000:17:00.0", "eth0");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  EXPECT_EQ(ecn->flavour, EcnFlavour::Ofed);
  EXPECT_EQ(ecn->source, "/sys/class/net/eth0/ecn");
  // roce_np/enable: 1 on 0,1,3,4,6,7; roce_rp/enable: 1 on 0,1,3,4,6.
  EXPECT_EQ(ecn->np_enabled, uint8_t{0xdb});
  EXPECT_EQ(ecn->rp_enabled, uint8_t{0x5b});
  EXPECT_EQ(ecn->cnp_dscp(), 48u);
  EXPECT_EQ(ecn->cnp_priority(), 6u);
  EXPECT_EQ(ecn->np_params.at("min_time_between_cnps"), 4u);
  EXPECT_EQ(ecn->np_params.size(), 3u);
  EXPECT_EQ(ecn->rp_params.at("rpg_ai_rate"), 5u);
  EXPECT_EQ(ecn->rp_params.at("rpg_byte_reset"), 32767u);
  EXPECT_EQ(ecn->rp_params.at("initial_alpha_value"), 1023u);
  EXPECT_EQ(ecn->rp_params.count("enable"), 0u);
}

TEST(Ecn, OfedParamsSubdirectory) {
  Tree tree;
  tree.write("/sys/class/net/lan2/ecn/roce_np/enable/3", "1\n");
  tree.write("/sys/class/net/lan2/ecn/roce_np/params/cnp_dscp", "46\n");
  tree.write("/sys/class/net/lan2/ecn/roce_rp/enable/3", "0\n");
  tree.write("/sys/class/net/lan2/ecn/roce_rp/params/rpg_ai_rate", "5\n");
  auto ecn = read_ecn(tree.files(), "0000:17:00.0", "lan2");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  EXPECT_EQ(ecn->flavour, EcnFlavour::Ofed);
  EXPECT_EQ(ecn->np_enabled, uint8_t{0x08});
  EXPECT_EQ(ecn->rp_enabled, uint8_t{0x00});
  EXPECT_EQ(ecn->cnp_dscp(), 46u);
  EXPECT_EQ(ecn->rp_params.at("rpg_ai_rate"), 5u);
}

TEST(Ecn, InboxDebugfsCcParams) {
  Tree tree;
  const fs::path cc = "/sys/kernel/debug/mlx5/0000:17:00.0/cc_params";
  tree.write(cc / "np_cnp_dscp", "48\n");
  tree.write(cc / "np_cnp_prio", "6\n");
  tree.write(cc / "np_cnp_prio_mode", "1\n");
  tree.write(cc / "rp_ai_rate", "5\n");
  tree.write(cc / "rp_time_reset", "300\n");
  auto ecn = read_ecn(tree.files(), "0000:17:00.0", "lan2");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  EXPECT_EQ(ecn->flavour, EcnFlavour::Inbox);
  EXPECT_EQ(ecn->source, cc.string());
  EXPECT_FALSE(ecn->np_enabled.has_value());
  EXPECT_EQ(ecn->cnp_dscp(), 48u);
  EXPECT_EQ(ecn->cnp_priority(), 6u);
  EXPECT_EQ(ecn->np_params.size(), 3u);
  EXPECT_EQ(ecn->rp_params.size(), 2u);
  EXPECT_EQ(ecn->rp_params.at("rp_time_reset"), 300u);
  // Another PCI function's debugfs is not this port's.
  auto other = read_ecn(tree.files(), "0000:3d:00.0", "lan3");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->flavour, EcnFlavour::None);
}

TEST(Ecn, NeitherTreeIsNoneNotAnError) {
  Tree tree;
  auto ecn = read_ecn(tree.files(), "0000:17:00.0", "lan2");
  ASSERT_TRUE(ecn.ok()) << ecn.error().message;
  EXPECT_EQ(ecn->flavour, EcnFlavour::None);
  EXPECT_EQ(ecn_flavour_name(ecn->flavour), "none");
}

}  // namespace
}  // namespace roced::rdma

namespace roced::rdma {
namespace {

// libibverbs is the real machine's alternative GID source; an unknown device is an error, never
// an empty table that would read as "no GIDs".
TEST(VerbsGidTable, UnknownDeviceIsAnError) {
  auto table = verbs_gid_table("roced_no_such_device", 1);
  ASSERT_FALSE(table.ok());
  EXPECT_FALSE(table.error().message.empty());
}

}  // namespace
}  // namespace roced::rdma
