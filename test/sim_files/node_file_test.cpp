// SPDX-License-Identifier: Apache-2.0
// The node description: the default node, a dual-port NIC, and each kind of bad input with its
// exact place and field.
#include "sim/model/node_file.hpp"

#include <gtest/gtest.h>
#include <linux/dcbnl.h>

#include <string>

#include "sim/model/node.hpp"
#include "test/support/build_paths.hpp"

namespace roce_sim {
namespace {

FileError node_parse_error(const std::string& text) {
  try {
    parse_node_yaml(text, "node.yaml");
  } catch (const FileError& e) {
    return e;
  }
  ADD_FAILURE() << "no FileError for:\n" << text;
  return FileError("", 0, 0, "", "");
}

const char* const kOnePort =
    "nics:\n"
    "  - pci: 0000:17:00.0\n"
    "    ports:\n"
    "      - netdev: lan2\n"
    "        rdma_device: mlx5_0\n";

TEST(NodeFile, DefaultNodeIsFourConnectX7Ports) {
  const auto specs = default_node();
  ASSERT_EQ(specs.size(), 4u);
  const char* netdevs[] = {"lan2", "lan3", "lan4", "lan5"};
  const char* rdma[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
  const char* pci[] = {"0000:17:00.0", "0000:3d:00.0", "0000:b1:00.0", "0000:d3:00.0"};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(netdevs[i]);
    EXPECT_EQ(specs[i].netdev, netdevs[i]);
    EXPECT_EQ(specs[i].rdma_device, rdma[i]);
    EXPECT_EQ(specs[i].rdma_port, 1);
    EXPECT_EQ(specs[i].pci_address, pci[i]);
    EXPECT_EQ(specs[i].board, "ConnectX-7");
    EXPECT_EQ(specs[i].firmware, "28.39.1002");
    EXPECT_EQ(specs[i].speed_mbps, 400000u);
    EXPECT_EQ(specs[i].flavour, DriverFlavour::Debian61);
    ASSERT_EQ(specs[i].ipv4.size(), 1u);
    EXPECT_EQ(specs[i].ipv4[0], "192.168." + std::to_string(i + 2) + ".10/24");
    EXPECT_TRUE(specs[i].ipv6.empty());
    EXPECT_FALSE(specs[i].firmware_trust_dscp);
    EXPECT_FALSE(specs[i].firmware_dcbx_host);
    EXPECT_TRUE(specs[i].caps.stall_prevention);
  }
}

TEST(NodeFile, EmbeddedDefaultIsTheFileInTheTree) {
  const auto from_file = load_node_file(std::string(SIM_SOURCE_DIR) + "/nodes/default.yaml");
  const auto embedded = default_node();
  ASSERT_EQ(from_file.size(), embedded.size());
  for (size_t i = 0; i < embedded.size(); ++i) {
    EXPECT_EQ(from_file[i].netdev, embedded[i].netdev);
    EXPECT_EQ(from_file[i].mac, embedded[i].mac);
  }
}

TEST(NodeFile, DualPortNicSharesThePciBase) {
  const auto specs = load_node_file(std::string(SIM_FILES_DATA_DIR) + "/dual-port.yaml");
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].pci_address, "0000:81:00.0");
  EXPECT_EQ(specs[1].pci_address, "0000:81:00.1");
  EXPECT_EQ(specs[0].board, "ConnectX-6 Dx");
  EXPECT_EQ(specs[1].firmware, "22.38.1900");
  EXPECT_EQ(specs[0].flavour, DriverFlavour::Ofed);
  EXPECT_EQ(specs[0].driver_version, "24.10-1.1.4");
  EXPECT_FALSE(specs[1].caps.stall_prevention);
  EXPECT_FALSE(specs[1].caps.buffers);
  EXPECT_TRUE(specs[1].caps.ecn);
  EXPECT_EQ(specs[0].speed_mbps, 100000u);
  EXPECT_EQ(specs[1].speed_mbps, 25000u);
  EXPECT_EQ(specs[0].max_mtu, 9000u);
  EXPECT_EQ(specs[1].max_mtu, 9978u);
  EXPECT_EQ(specs[0].ipv4, std::vector<std::string>{"10.0.0.1/24"});
  EXPECT_EQ(specs[0].ipv6, std::vector<std::string>{"fd00::1/64"});
  EXPECT_TRUE(specs[0].firmware_trust_dscp);
  EXPECT_TRUE(specs[0].firmware_dcbx_host);
  EXPECT_EQ(specs[1].mac, "b8:3f:d2:81:00:01");  // normalised to lower case
  EXPECT_EQ(specs[0].mac, "b8:3f:d2:81:00:00");  // derived from the PCI function
}

TEST(NodeFile, BadSpeedNamesFileLineColumnAndField) {
  try {
    load_node_file(std::string(SIM_FILES_DATA_DIR) + "/bad-speed.yaml");
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_EQ(e.line(), 8);
    EXPECT_EQ(e.column(), 16);
    EXPECT_EQ(e.field(), "nics[0].ports[1].speed");
    EXPECT_EQ(std::string(e.what()), std::string(SIM_FILES_DATA_DIR) +
                                         "/bad-speed.yaml:8:16: nics[0].ports[1].speed: 'fast' "
                                         "is not a speed (e.g. 400G)");
  }
}

TEST(NodeFile, ASpeedTooLargeForAnyNumberIsNotAnEthernetSpeed) {
  const auto e = node_parse_error(std::string(kOnePort) + "        speed: 99999999999999999999G\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].speed");
  EXPECT_NE(std::string(e.what()).find("is not an Ethernet speed"), std::string::npos) << e.what();
}

TEST(NodeFile, PodsTakeACountAndAnIpv4SubnetTheyFitIn) {
  const auto specs = parse_node_yaml(
      std::string(kOnePort) + "        pods: {count: 3, subnet: 10.201.0.0/24}\n", "node.yaml");
  EXPECT_EQ(specs[0].pods, 3u);
  EXPECT_EQ(specs[0].pod_subnet, "10.201.0.0/24");
  auto e =
      node_parse_error(std::string(kOnePort) + "        pods: {count: 7, subnet: 10.201.0.0/29}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].pods.count");
  EXPECT_EQ(std::string(e.what()),
            "node.yaml:6:23: nics[0].ports[0].pods.count: 7 pods do not fit in 10.201.0.0/29 (6 "
            "addresses)");
  e = node_parse_error(std::string(kOnePort) + "        pods: {count: 1, subnet: fd00::/64}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].pods.subnet");
}

TEST(NodeFile, UppersAreNetdevsOverThePortAndTheirAddressesItsGids) {
  const auto specs = parse_node_yaml(
      std::string(kOnePort) +
          "        uppers:\n"
          "          - {netdev: lan2.100, kind: vlan, vlan: 100, addresses: [10.100.2.10/24]}\n"
          "          - {netdev: mv2, kind: macvlan}\n",
      "node.yaml");
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[1].netdev, "lan2.100");
  EXPECT_EQ(specs[1].upper_of, "lan2");
  EXPECT_EQ(specs[1].vlan_id, 100u);
  EXPECT_EQ(specs[1].mac, specs[0].mac);  // a VLAN has its port's address
  EXPECT_NE(specs[2].mac, specs[0].mac);
  EXPECT_FALSE(specs[1].has_dcbnl());
  ASSERT_EQ(specs[0].uppers.size(), 2u);
  EXPECT_EQ(specs[0].uppers[0].ipv4, std::vector<std::string>{"10.100.2.10/24"});

  auto e = node_parse_error(std::string(kOnePort) +
                            "        uppers: [{netdev: lan2.5000, kind: vlan, vlan: 5000}]\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].uppers[0].vlan");
  e = node_parse_error(std::string(kOnePort) +
                       "        uppers: [{netdev: mv2, kind: macvlan, vlan: 3}]\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].uppers[0].vlan");
  EXPECT_EQ(e.message(), "only a VLAN has a VLAN ID");
  e = node_parse_error(std::string(kOnePort) + "        uppers: [{netdev: lan2, kind: macvlan}]\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].uppers[0].netdev");
}

TEST(NodeFile, SubFunctionsNeedSwitchdevAndGetAnAuxiliaryDeviceEach) {
  auto e = node_parse_error(std::string(kOnePort) + "        sfs: 2\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].sfs");
  EXPECT_EQ(e.message(),
            "sub-functions are made by `devlink port add ... flavour pcisf`, which needs the "
            "e-switch in switchdev mode: add `eswitch: switchdev`");
  const auto specs = parse_node_yaml(
      std::string(kOnePort) + "        eswitch: switchdev\n        sfs: 2\n", "node.yaml");
  ASSERT_EQ(specs.size(), 5u);  // lan2, then each SF and its representor
  EXPECT_EQ(specs[1].netdev, "lan2s0");
  EXPECT_EQ(specs[1].pci_address, "mlx5_core.sf.1");
  EXPECT_EQ(specs[1].sf_pf_pci, "0000:17:00.0");
  EXPECT_FALSE(specs[1].has_dcbnl());
  EXPECT_EQ(specs[2].phys_port_name, "pf0sf0");
  EXPECT_TRUE(specs[2].represents_sf);
  EXPECT_EQ(specs[3].pci_address, "mlx5_core.sf.2");
}

TEST(NodeFile, ASwitchAtThePortsOtherEndSendsLldpInHostDcbxModeOnly) {
  auto e = node_parse_error(std::string(kOnePort) + "        switch: {pfc: [3, 3]}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].switch.pfc[1]");
  e = node_parse_error(std::string(kOnePort) + "        switch: {dcbx: lldp}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].switch.dcbx");
  e = node_parse_error(std::string(kOnePort) + "        switch: {interval: 0.5s}\n");
  EXPECT_EQ(e.message(), "must be 1s to 1h (802.1AB msgTxInterval is 1 to 3600 seconds)");
  e = node_parse_error(std::string(kOnePort) + "        switch: {system: leaf1}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].switch.system");
  const auto specs = parse_node_yaml(
      std::string(kOnePort) +
          "        switch: {system_name: leaf3, port_id: swp3, pfc: [4], dscp: {26: 4},\n"
          "                 udp: {4791: 4}, max_frame_size: 9216, interval: 10s}\n",
      "node.yaml");
  ASSERT_TRUE(specs[0].switch_peer);
  Node node(specs);
  ASSERT_NE(node.switch_of("lan2"), nullptr);
  EXPECT_EQ(node.switch_of("lan2")->pfc, 1u << 4);
  EXPECT_EQ(node.switch_of("lan2")->interval_s, 10u);
  EXPECT_EQ(node.switch_of("lan2")->udp_ports,
            (std::vector<std::pair<uint16_t, uint8_t>>{{4791, 4}}));
  e = node_parse_error(std::string(kOnePort) + "        switch: {udp: {0: 3}}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].switch.udp.0");
  // Firmware DCBX mode (the node's default): the NIC's agent takes the frames.
  node.advance(std::chrono::seconds(1));
  EXPECT_TRUE(node.take_lldp_frames().empty());
  EXPECT_EQ(node.lldp_frames_to_firmware(), 1u);
  // Host mode: every interval, and at once after the carrier comes back.
  node.find("lan2")->setdcbx(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
  node.advance(std::chrono::seconds(10));
  auto frames = node.take_lldp_frames();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].netdev, "lan2");
  EXPECT_EQ(frames[0].frame[12], 0x88);
  node.advance(std::chrono::seconds(9));
  EXPECT_TRUE(node.take_lldp_frames().empty());
  node.find("lan2")->set_peer_carrier(false);
  node.advance(std::chrono::seconds(1));
  node.find("lan2")->set_peer_carrier(true);
  node.advance(std::chrono::milliseconds(10));
  EXPECT_EQ(node.take_lldp_frames().size(), 1u);
}

TEST(NodeFile, GlobalPauseAtStartIsUnsetOrTheDirectionsNamed) {
  EXPECT_FALSE(parse_node_yaml(kOnePort, "node.yaml")[0].firmware_global_pause);
  const std::pair<const char*, GlobalPause> cases[] = {
      {"on", {true, true}}, {"off", {false, false}}, {"rx", {true, false}}, {"tx", {false, true}}};
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    const auto specs = parse_node_yaml(
        std::string(kOnePort) + "        firmware_defaults: {global_pause: " + text + "}\n",
        "node.yaml");
    ASSERT_TRUE(specs[0].firmware_global_pause);
    EXPECT_EQ(specs[0].firmware_global_pause->rx, expected.rx);
    EXPECT_EQ(specs[0].firmware_global_pause->tx, expected.tx);
  }
  const auto e =
      node_parse_error(std::string(kOnePort) + "        firmware_defaults: {global_pause: both}\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].firmware_defaults.global_pause");
}

TEST(NodeFile, UnknownKeySuggestsTheClosestOne) {
  const auto e = node_parse_error(std::string(kOnePort) + "        sped: 400G\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 9);
  EXPECT_EQ(e.field(), "nics[0].ports[0].sped");
  EXPECT_EQ(std::string(e.what()),
            "node.yaml:6:9: nics[0].ports[0].sped: unknown key (did you "
            "mean 'speed'?)");
}

TEST(NodeFile, UnknownKeyFarFromAnyHasNoSuggestion) {
  const auto e = node_parse_error(std::string(kOnePort) + "        colour: blue\n");
  EXPECT_EQ(std::string(e.what()), "node.yaml:6:9: nics[0].ports[0].colour: unknown key");
}

TEST(NodeFile, WrongType) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    capabilities: {ecn: maybe}\n"
      "    ports: [{netdev: lan2, rdma_device: mlx5_0}]\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 25);
  EXPECT_EQ(e.field(), "nics[0].capabilities.ecn");
  EXPECT_EQ(e.message(), "expected true or false, got 'maybe'");
}

TEST(NodeFile, ListExpected) {
  const auto e = node_parse_error("nics: {pci: 0000:17:00.0}\n");
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.column(), 7);
  EXPECT_EQ(e.field(), "nics");
  EXPECT_EQ(e.message(), "expected a list, got a map");
}

TEST(NodeFile, OutOfRange) {
  const auto e = node_parse_error(std::string(kOnePort) + "        max_mtu: 12000\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 18);
  EXPECT_EQ(e.field(), "nics[0].ports[0].max_mtu");
  EXPECT_EQ(e.message(), "12000 is out of range (1500-9978)");
}

TEST(NodeFile, SpeedAboveTheModel) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    model: ConnectX-6 Dx\n"
      "    ports: [{netdev: lan2, rdma_device: mlx5_0, speed: 400G}]\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.field(), "nics[0].ports[0].speed");
  EXPECT_EQ(e.message(), "400G is faster than a ConnectX-6 Dx port (200G)");
}

TEST(NodeFile, UnknownModelSuggests) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    model: ConnectX-7x\n"
      "    ports: [{netdev: lan2, rdma_device: mlx5_0}]\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 12);
  EXPECT_EQ(e.field(), "nics[0].model");
  EXPECT_NE(e.message().find("(did you mean 'ConnectX-7'?)"), std::string::npos) << e.what();
}

TEST(NodeFile, DuplicateNetdev) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    ports: [{netdev: lan2, rdma_device: mlx5_0}]\n"
      "  - pci: 0000:3d:00.0\n"
      "    ports:\n"
      "      - {netdev: lan2, rdma_device: mlx5_1}\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 18);
  EXPECT_EQ(e.field(), "nics[1].ports[0].netdev");
  EXPECT_EQ(e.message(), "netdev 'lan2' is already used by nics[0].ports[0].netdev");
}

TEST(NodeFile, DuplicateKey) {
  const auto e = node_parse_error(std::string(kOnePort) + "        netdev: lan3\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 9);
  EXPECT_EQ(e.field(), "nics[0].ports[0].netdev");
  EXPECT_EQ(e.message(), "duplicate key (first given on line 4)");
}

TEST(NodeFile, DuplicateAddress) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    ports:\n"
      "      - {netdev: lan2, rdma_device: mlx5_0, addresses: [10.0.0.1/24]}\n"
      "      - {netdev: lan3, rdma_device: mlx5_1, addresses: [10.0.0.1/16]}\n");
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.field(), "nics[0].ports[1].addresses[0]");
  EXPECT_EQ(e.message(), "address '10.0.0.1' is already used by nics[0].ports[0].addresses[0]");
}

TEST(NodeFile, MissingRequired) {
  const auto e = node_parse_error(
      "nics:\n"
      "  - pci: 0000:17:00.0\n"
      "    ports:\n"
      "      - netdev: lan2\n");
  EXPECT_EQ(e.line(), 4);
  EXPECT_EQ(e.column(), 9);
  EXPECT_EQ(e.field(), "nics[0].ports[0].rdma_device");
  EXPECT_EQ(e.message(), "missing (required)");
}

TEST(NodeFile, BadPciMacAndAddress) {
  EXPECT_EQ(
      node_parse_error("nics: [{pci: 17:00.0, ports: [{netdev: a, rdma_device: b}]}]\n").message(),
      "'17:00.0' is not a PCI address (e.g. 0000:17:00.0)");
  EXPECT_EQ(node_parse_error(std::string(kOnePort) + "        mac: 01:00:5e:00:00:01\n").message(),
            "'01:00:5e:00:00:01' is a multicast address");
  EXPECT_EQ(
      node_parse_error(std::string(kOnePort) + "        addresses: [10.0.0.300/24]\n").message(),
      "'10.0.0.300/24' is not an IP address with prefix (e.g. 192.168.2.10/24)");
  EXPECT_EQ(node_parse_error(std::string(kOnePort) + "        addresses: [10.0.0.3]\n").message(),
            "'10.0.0.3' needs a prefix length (e.g. 192.168.2.10/24)");
}

TEST(NodeFile, CountersStartIsAnUnsigned64BitInteger) {
  auto specs = parse_node_yaml(
      std::string(kOnePort) + "        counters_start: 18446744073709000000\n", "node.yaml");
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].counters_start, 18'446'744'073'709'000'000u);
  specs = parse_node_yaml(std::string(kOnePort) + "        counters_start: 18446744073709551615\n",
                          "node.yaml");
  EXPECT_EQ(specs[0].counters_start, 18'446'744'073'709'551'615u);
  EXPECT_EQ(parse_node_yaml(kOnePort, "node.yaml")[0].counters_start, 0u);  // the default

  auto e =
      node_parse_error(std::string(kOnePort) + "        counters_start: 18446744073709551616\n");
  EXPECT_EQ(std::string(e.what()),
            "node.yaml:6:25: nics[0].ports[0].counters_start: 18446744073709551616 is out of "
            "range (0-18446744073709551615)");
  e = node_parse_error(std::string(kOnePort) + "        counters_start: -1\n");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), 25);
  EXPECT_EQ(e.message(), "-1 is out of range (0-18446744073709551615)");
  e = node_parse_error(std::string(kOnePort) + "        counters_start: 1.5e19\n");
  EXPECT_EQ(e.field(), "nics[0].ports[0].counters_start");
  EXPECT_EQ(e.message(), "'1.5e19' is not a whole number");
  e = node_parse_error(std::string(kOnePort) + "        counters_start: [1]\n");
  EXPECT_EQ(e.message(), "expected a whole number, got a list");
  e = node_parse_error(std::string(kOnePort) + "        counter_start: 5\n");
  EXPECT_EQ(e.message(), "unknown key (did you mean 'counters_start'?)");
}

TEST(NodeFile, SyntaxErrorHasAPlace) {
  const auto e = node_parse_error("nics: [{pci: 0000:17:00.0\n");
  EXPECT_EQ(e.line(), 2);
  EXPECT_TRUE(e.field().empty());
  EXPECT_EQ(std::string(e.what()).rfind("node.yaml:2:", 0), 0u) << e.what();
}

TEST(NodeFile, MissingFileIsAFileError) {
  EXPECT_THROW(load_node_file("/nonexistent/node.yaml"), FileError);
}

}  // namespace
}  // namespace roce_sim
