// SPDX-License-Identifier: Apache-2.0
// Discovery on a sysfs tree laid out like a real machine's, and the status report's text and JSON
// built from known fields.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "port/discovery.hpp"
#include "port/status.hpp"
#include "sim/transport/simulated_system.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;

// A node directory shaped like /sys: devices under sys/devices, class/net entries as symlinks.
class SysTree {
 public:
  SysTree() {
    char pattern[] = "/tmp/roced-discovery-test-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    fs::create_directories(dir_ / "sys/class/net");
    fs::create_directories(dir_ / "sys/class/infiniband");
    std::ofstream(dir_ / "sys/class/net/bonding_masters") << "\n";
    system_ = roce_sim::simulated_system(dir_);
  }
  ~SysTree() { fs::remove_all(dir_); }
  SysTree(const SysTree&) = delete;
  SysTree& operator=(const SysTree&) = delete;

  void write(const fs::path& relative, const std::string& text) {
    fs::create_directories((dir_ / relative).parent_path());
    std::ofstream(dir_ / relative) << text;
  }

  // A PCI function bound to `driver` with netdev `netdev` and, if given, an RDMA device whose
  // sysfs parent is the function (so net/<if>/device/infiniband/<dev> exists).
  void add_pci_port(const std::string& pci, const std::string& driver, const std::string& netdev,
                    const std::string& rdma_device) {
    const fs::path function = dir_ / "sys/devices/pci0000:00" / pci;
    fs::create_directories(dir_ / "sys/bus/pci/drivers" / driver);
    fs::create_directories(function / "net" / netdev);
    fs::create_symlink("../../../bus/pci/drivers/" + driver, function / "driver");
    std::ofstream(function / "net" / netdev / "ifindex") << "4\n";
    fs::create_symlink("../../../" + pci, function / "net" / netdev / "device");
    fs::create_symlink("../../devices/pci0000:00/" + pci + "/net/" + netdev,
                       dir_ / "sys/class/net" / netdev);
    if (!rdma_device.empty()) add_rdma_device(rdma_device, pci, /*under_function=*/true);
  }

  void add_rdma_device(const std::string& device, const std::string& pci, bool under_function) {
    const fs::path ib = under_function
                            ? dir_ / "sys/devices/pci0000:00" / pci / "infiniband" / device
                            : dir_ / "sys/devices/virtual/infiniband" / device;
    fs::create_directories(ib / "ports/1/gids");
    fs::create_directories(ib / "ports/1/gid_attrs/ndevs");
    const std::string target = under_function
                                   ? "../../devices/pci0000:00/" + pci + "/infiniband/" + device
                                   : "../../devices/virtual/infiniband/" + device;
    fs::create_symlink(target, dir_ / "sys/class/infiniband" / device);
    // The ib_device's parent is the PCI function, as for mlx5_ib: device/driver names its driver.
    if (under_function) fs::create_symlink("../../../" + pci, ib / "device");
  }

  // Soft-RoCE on `netdev` (rdma link add <device> type rxe netdev <netdev>): a virtual ib_device
  // with no `device` link, its `parent` attribute naming the netdev, and the netdev in its GID
  // table (plus any upper devices, e.g. a VLAN, listed after it).
  void add_rxe_device(const std::string& device, const std::vector<std::string>& ndevs) {
    add_rdma_device(device, "", /*under_function=*/false);
    const fs::path ib = "sys/devices/virtual/infiniband/" + device;
    write(ib / "parent", ndevs.front() + "\n");
    for (size_t slot = 0; slot < ndevs.size(); ++slot) {
      write(ib / "ports/1/gid_attrs/ndevs" / std::to_string(slot), ndevs[slot] + "\n");
      write(ib / "ports/1/gid_attrs/types" / std::to_string(slot), "RoCE v2\n");
    }
  }

  void add_virtual_netdev(const std::string& netdev) {
    fs::create_directories(dir_ / "sys/devices/virtual/net" / netdev);
    std::ofstream(dir_ / "sys/devices/virtual/net" / netdev / "ifindex") << "9\n";
    fs::create_symlink("../../devices/virtual/net/" + netdev, dir_ / "sys/class/net" / netdev);
  }

  const FileTree& files() const { return *system_.files; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
  System system_;
};

TEST(Discovery, FindsMlx5PortsAndTheirRdmaDevices) {
  SysTree tree;
  tree.add_pci_port("0000:3d:00.0", "mlx5_core", "lan3", "mlx5_1");
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "mlx5_0");
  tree.add_pci_port("0000:05:00.0", "virtio-pci", "eth0", "");
  tree.add_virtual_netdev("veth0");

  auto inventory = discover_ports(tree.files(), {});
  ASSERT_TRUE(inventory.ok()) << inventory.error().message;
  ASSERT_EQ(inventory->ports.size(), 2u);
  EXPECT_EQ(inventory->ports[0].netdev, "lan2");
  EXPECT_EQ(inventory->ports[0].driver, "mlx5_core");
  EXPECT_EQ(inventory->ports[0].pci, "0000:17:00.0");
  EXPECT_EQ(inventory->ports[0].rdma_device, "mlx5_0");
  EXPECT_EQ(inventory->ports[0].rdma_port, 1);
  EXPECT_TRUE(inventory->ports[0].is_mlx5());
  EXPECT_EQ(inventory->ports[1].netdev, "lan3");
  EXPECT_EQ(inventory->ports[1].rdma_device, "mlx5_1");
  EXPECT_TRUE(inventory->other_rdma.empty());
  EXPECT_TRUE(inventory->missing.empty());
}

// A node with SR-IOV in switchdev mode and a sub-function, as the kernel shows it: the uplink's
// phys_port_name is "p0" (mlx5e_devlink_port_register), a VF's netdev has device/physfn and its
// PF a virtfn<N> link back (pci_iov_sysfs_link), a representor hangs off the PF with a
// phys_port_name "pf0vf3" (__devlink_port_phys_port_name_get), an SF's netdev off its auxiliary
// device bound to mlx5_core.sf. Each is told apart; only the uplink is a plain port.
TEST(Discovery, VfsRepresentorsAndSubFunctionsAreToldApartFromTheUplink) {
  SysTree tree;
  const std::string pf = "0000:17:00.0";
  const std::string vf = "0000:17:00.4";
  tree.add_pci_port(pf, "mlx5_core", "lan2", "mlx5_0");
  tree.write("sys/devices/pci0000:00/" + pf + "/net/lan2/phys_port_name", "p0\n");
  tree.add_pci_port(vf, "mlx5_core", "lan2v3", "mlx5_4");
  fs::create_symlink("../" + pf, tree.dir() / "sys/devices/pci0000:00" / vf / "physfn");
  fs::create_symlink("../" + vf, tree.dir() / "sys/devices/pci0000:00" / pf / "virtfn3");
  // The representor of that VF: a netdev of the PF's function.
  const fs::path rep = tree.dir() / "sys/devices/pci0000:00" / pf / "net/pf0vf3";
  fs::create_directories(rep);
  std::ofstream(rep / "ifindex") << "11\n";
  std::ofstream(rep / "phys_port_name") << "pf0vf3\n";
  fs::create_symlink("../../../" + pf, rep / "device");
  fs::create_symlink("../../devices/pci0000:00/" + pf + "/net/pf0vf3",
                     tree.dir() / "sys/class/net/pf0vf3");
  tree.add_pci_port("mlx5_core.sf.2", "mlx5_core.sf", "enp23s0f0s88", "");

  auto inventory = discover_ports(tree.files(), {"lan2", "lan2v3", "pf0vf3", "enp23s0f0s88"});
  ASSERT_TRUE(inventory.ok()) << inventory.error().message;
  ASSERT_EQ(inventory->ports.size(), 4u);
  EXPECT_EQ(inventory->ports[0].role, PortRole::Uplink);
  EXPECT_EQ(inventory->ports[1].role, PortRole::Vf);
  EXPECT_EQ(inventory->ports[1].role_detail, "VF 3 of lan2");
  EXPECT_EQ(inventory->ports[1].parent, "lan2");
  EXPECT_EQ(inventory->ports[2].role, PortRole::Representor);
  EXPECT_EQ(inventory->ports[2].role_detail, "representor pf0vf3 of lan2");
  EXPECT_EQ(inventory->ports[2].parent, "lan2");
  EXPECT_EQ(inventory->ports[2].driver, "mlx5_core");  // the PF's: the driver cannot tell
  // The PF's RDMA device under the shared PCI function is the uplink's, not the representor's.
  EXPECT_EQ(inventory->ports[0].rdma_device, "mlx5_0");
  EXPECT_EQ(inventory->ports[2].rdma_device, "");
  EXPECT_EQ(inventory->ports[3].role, PortRole::SubFunction);
}

TEST(Discovery, FallsBackToGidNdevsWhenTheDeviceHasNoInfinibandChild) {
  SysTree tree;
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "");
  tree.add_rdma_device("mlx5_bond_0", "", /*under_function=*/false);
  tree.write("sys/devices/virtual/infiniband/mlx5_bond_0/ports/1/gid_attrs/ndevs/0", "lan2\n");

  auto inventory = discover_ports(tree.files(), {});
  ASSERT_TRUE(inventory.ok());
  ASSERT_EQ(inventory->ports.size(), 1u);
  EXPECT_EQ(inventory->ports[0].rdma_device, "mlx5_bond_0");
  EXPECT_EQ(inventory->ports[0].rdma_port, 1);
}

TEST(Discovery, OtherDriversRdmaPortsAreCollectedApart) {
  SysTree tree;
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "mlx5_0");
  tree.add_pci_port("0000:81:00.0", "ice", "ens1", "irdma0");
  auto inventory = discover_ports(tree.files(), {});
  ASSERT_TRUE(inventory.ok());
  ASSERT_EQ(inventory->ports.size(), 1u);
  ASSERT_EQ(inventory->other_rdma.size(), 1u);
  EXPECT_EQ(inventory->other_rdma[0].netdev, "ens1");
  EXPECT_EQ(inventory->other_rdma[0].driver, "ice");
  EXPECT_EQ(inventory->other_rdma[0].rdma_device, "irdma0");
}

TEST(Discovery, RequestedPortsOfAnyDriverInTheOrderAsked) {
  SysTree tree;
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "mlx5_0");
  tree.add_virtual_netdev("vethA");
  auto inventory = discover_ports(tree.files(), {"vethA", "nope", "lan2"});
  ASSERT_TRUE(inventory.ok());
  ASSERT_EQ(inventory->ports.size(), 2u);
  EXPECT_EQ(inventory->ports[0].netdev, "vethA");
  EXPECT_EQ(inventory->ports[0].driver, "");
  EXPECT_EQ(inventory->ports[0].rdma_device, "");
  EXPECT_FALSE(inventory->ports[0].is_mlx5());
  EXPECT_EQ(inventory->ports[1].netdev, "lan2");
  EXPECT_EQ(inventory->missing, std::vector<std::string>{"nope"});
}

TEST(Discovery, Mlx5PortsRdmaDriverIsThePciFunctionsDriver) {
  SysTree tree;
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "mlx5_0");
  auto inventory = discover_ports(tree.files(), {});
  ASSERT_TRUE(inventory.ok());
  ASSERT_EQ(inventory->ports.size(), 1u);
  EXPECT_EQ(inventory->ports[0].rdma_driver, "mlx5_core");
  EXPECT_TRUE(inventory->ports[0].owns_rdma_device);
  EXPECT_EQ(read_own_rdma_driver(tree.files(), "lan2"), "mlx5_core");
}

TEST(Discovery, RxeDevicesOnVethsAreFoundThroughTheirParent) {
  SysTree tree;
  tree.add_pci_port("0000:17:00.0", "mlx5_core", "lan2", "mlx5_0");
  tree.add_virtual_netdev("veth0");
  tree.add_virtual_netdev("veth0.10");
  tree.add_virtual_netdev("veth1");
  tree.add_virtual_netdev("lo");
  tree.add_rxe_device("rxe0", {"veth0", "veth0.10"});
  tree.add_rxe_device("rxe1", {"veth1"});

  // The default selection (mlx5_core): the rxe ports are other RDMA ports.
  auto mlx5 = discover_ports(tree.files(), {});
  ASSERT_TRUE(mlx5.ok());
  ASSERT_EQ(mlx5->ports.size(), 1u);
  EXPECT_EQ(mlx5->ports[0].netdev, "lan2");
  ASSERT_EQ(mlx5->other_rdma.size(), 3u);
  EXPECT_EQ(mlx5->other_rdma[0].netdev, "veth0");
  EXPECT_EQ(mlx5->other_rdma[0].driver, "");
  EXPECT_EQ(mlx5->other_rdma[0].pci, "");
  EXPECT_EQ(mlx5->other_rdma[0].rdma_device, "rxe0");
  EXPECT_EQ(mlx5->other_rdma[0].rdma_port, 1);
  EXPECT_EQ(mlx5->other_rdma[0].rdma_driver, "rxe");
  EXPECT_TRUE(mlx5->other_rdma[0].owns_rdma_device);
  EXPECT_FALSE(mlx5->other_rdma[0].is_mlx5());
  // The VLAN on veth0 is in rxe0's GID table but rxe0 is not its own.
  EXPECT_EQ(mlx5->other_rdma[1].netdev, "veth0.10");
  EXPECT_EQ(mlx5->other_rdma[1].rdma_device, "rxe0");
  EXPECT_EQ(mlx5->other_rdma[1].rdma_driver, "rxe");
  EXPECT_FALSE(mlx5->other_rdma[1].owns_rdma_device);
  EXPECT_EQ(mlx5->other_rdma[1].own_rdma_driver(), "");
  EXPECT_EQ(mlx5->other_rdma[2].netdev, "veth1");
  EXPECT_EQ(mlx5->other_rdma[2].rdma_device, "rxe1");

  // drivers: [rxe] selects the veths rxe runs on, not the VLAN and not the mlx5 port.
  auto rxe = discover_ports(tree.files(), {}, {"rxe"});
  ASSERT_TRUE(rxe.ok());
  ASSERT_EQ(rxe->ports.size(), 2u);
  EXPECT_EQ(rxe->ports[0].netdev, "veth0");
  EXPECT_EQ(rxe->ports[1].netdev, "veth1");
  EXPECT_EQ(rxe->ports[1].rdma_driver, "rxe");
  ASSERT_EQ(rxe->other_rdma.size(), 2u);
  EXPECT_EQ(rxe->other_rdma[0].netdev, "lan2");
  EXPECT_EQ(rxe->other_rdma[1].netdev, "veth0.10");

  EXPECT_EQ(read_own_rdma_driver(tree.files(), "veth1"), "rxe");
  EXPECT_EQ(read_own_rdma_driver(tree.files(), "veth0.10"), "");
  EXPECT_EQ(read_own_rdma_driver(tree.files(), "lo"), "");
  EXPECT_EQ(read_own_rdma_driver(tree.files(), "nope"), "");
}

TEST(Discovery, NoPortsOnAnEmptyNode) {
  SysTree tree;
  auto inventory = discover_ports(tree.files(), {});
  ASSERT_TRUE(inventory.ok());
  EXPECT_TRUE(inventory->ports.empty());
}

// ---- the report ----

PortStatus sample_port() {
  PortStatus s;
  s.port = {"lan2", "mlx5_core", "0000:17:00.0", "mlx5_0", 1, "mlx5_core", true};
  s.driver_info =
      Field<DriverInfo>::of({"mlx5_core", "6.1", "28.39.1002 (MT_0000000838)", "0000:17:00.0"});
  LinkInfo link;
  link.name = "lan2";
  link.mtu = 1500;
  link.max_mtu = 9978;
  link.operstate = 6;  // IF_OPER_UP
  s.link = Field<LinkInfo>::of(link);
  s.dcbx = Field<uint8_t>::of(0);
  s.trust = Field<dcb::Trust>::of(dcb::Trust::Dscp);
  s.dscp_apps = Field<std::vector<dcb::AppEntry>>::of({{5, 3, 26}, {5, 6, 48}, {5, 3, 24}});
  dcb::Pfc pfc;
  pfc.enabled_mask = 0x08;
  pfc.delay = 7;
  s.pfc = Field<dcb::Pfc>::of(pfc);
  dcb::Ets ets;
  ets.tc_tsa.fill(dcb::Tsa::Vendor);
  ets.prio_tc = {1, 0, 2, 3, 4, 5, 6, 7};
  s.ets = Field<dcb::Ets>::of(ets);
  s.buffer = Field<dcb::Buffer>::unsupported("the driver reports no buffer configuration");
  s.stall_prevention = Field<StallPrevention>::of({0xffff});
  rdma::GidEntry v2{3, "0000:0000:0000:0000:0000:ffff:c0a8:020a", "RoCE v2", "lan2"};
  s.gids = Field<GidStatus>::of({"sysfs", {v2}});
  s.roce_v2_ipv4 = Field<rdma::GidEntry>::of(v2);
  s.rdma_cm = Field<rdma::RdmaCmDefaults>::of({true, "RoCE v2", 106});
  rdma::EcnState ecn;
  ecn.flavour = rdma::EcnFlavour::Ofed;
  ecn.np_enabled = 0xff;
  ecn.rp_enabled = 0x08;
  ecn.np_params = {{"cnp_dscp", 48}, {"cnp_802p_prio", 6}};
  s.ecn = Field<rdma::EcnState>::of(ecn);
  s.hw_counters = Field<std::map<std::string, uint64_t>>::of({{"np_cnp_sent", 12}});
  return s;
}

TEST(StatusText, ShowsEachTopicOnItsOwnLine) {
  const std::string text = format_port_text(sample_port());
  EXPECT_NE(text.find("lan2  mlx5_0  0000:17:00.0  mlx5_core fw 28.39.1002 (MT_0000000838)  up  "
                      "mtu 1500/9978\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  dcbx     firmware (auto)      trust dscp\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  pfc      3                    cable 7 m (no effect unless the host sizes "
                      "the headroom)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  ets      tc0..7 vendor | prio->tc 1 0 2 3 4 5 6 7\n"), std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "  dscp     p3:24,26  p6:48  (others: firmware map, d>>3 or p0 if deleted since load)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("  stall    auto (100 ms)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("v2/IPv4 index 3 (::ffff:192.168.2.10)"), std::string::npos) << text;
  EXPECT_NE(text.find("rdma_cm RoCE v2 tos 106"), std::string::npos) << text;
  EXPECT_NE(text.find("  ecn      np prios 0-7, rp prios 3, cnp dscp 48 prio 6"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("buffer"), std::string::npos) << "an unsupported buffer is not a line";
}

TEST(StatusText, RateCapsAreALineOnlyWhenATcIsCapped) {
  PortStatus s = sample_port();
  s.maxrate = Field<dcb::Maxrate>::of({});
  EXPECT_EQ(format_port_text(s).find("maxrate"), std::string::npos) << "no cap is not a line";
  dcb::Maxrate capped;
  capped.tc_kbps[6] = 400000;  // kbit/s, as ieee_maxrate carries it
  capped.tc_kbps[7] = 40000000;
  s.maxrate = Field<dcb::Maxrate>::of(capped);
  const std::string text = format_port_text(s);
  EXPECT_NE(text.find("  maxrate  tc6 400 Mbit/s, tc7 40 Gbit/s\n"), std::string::npos) << text;
}

TEST(StatusText, FailedDcbReadIsOneClearLine) {
  PortStatus s = sample_port();
  const std::string message = describe_error(Error{EOPNOTSUPP, "RTM_GETDCB vethA"}, "DCB");
  EXPECT_EQ(message, "unsupported: DCB is not supported by this device (EOPNOTSUPP)");
  const Error no_dcb{EOPNOTSUPP, "RTM_GETDCB vethA"};
  s.trust = Field<dcb::Trust>::from(no_dcb, "DCB");
  s.dscp_apps = Field<std::vector<dcb::AppEntry>>::from(no_dcb, "DCB");
  s.pfc = Field<dcb::Pfc>::from(no_dcb, "DCB");
  s.ets = Field<dcb::Ets>::from(no_dcb, "DCB");
  s.dcbx = Field<uint8_t>::from(no_dcb, "DCB");
  const std::string text = format_port_text(s);
  EXPECT_NE(text.find("  dcb      unsupported: DCB is not supported by this device (EOPNOTSUPP)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("  pfc "), std::string::npos) << text;
  EXPECT_NE(text.find("  stall    auto (100 ms)"), std::string::npos) << "the rest is still shown";

  const auto json = s.to_json();
  EXPECT_EQ(json["pfc"]["error"], message);
  EXPECT_EQ(json["pfc"]["errno"], "EOPNOTSUPP");
  EXPECT_EQ(json["pfc"]["unsupported"], true);
  EXPECT_EQ(json["link"]["mtu"], 1500);
}

TEST(StatusText, DcbxWithoutHostBitIsTheFirmwareAgent) {
  PortStatus s = sample_port();
  s.dcbx = Field<uint8_t>::of(dcb::kDcbxVerCee | dcb::kDcbxVerIeee);
  EXPECT_NE(format_port_text(s).find("  dcbx     firmware (cee ieee)"), std::string::npos);
  s.dcbx = Field<uint8_t>::of(dcb::kDcbxHost | dcb::kDcbxVerIeee);
  EXPECT_NE(format_port_text(s).find("  dcbx     host ieee"), std::string::npos);
}

TEST(StatusText, OtherErrorsNameTheErrno) {
  EXPECT_EQ(describe_error(Error::from_errno(EACCES, "read /sys/x"), "y"),
            "error: read /sys/x: Permission denied (EACCES)");
}

// The negotiated speed, beside the link state in the text and in the link's JSON; null without
// carrier (mlx5's sysfs speed is -1 then).
TEST(StatusText, ShowsTheLinkSpeed) {
  PortStatus port = sample_port();
  EXPECT_TRUE(port.to_json()["link"]["speed_mbps"].is_null());
  port.speed_mbps = 100000;
  const std::string text = format_port_text(port);
  EXPECT_NE(text.find("(MT_0000000838)  up 100 Gb/s  mtu 1500/9978\n"), std::string::npos) << text;
  EXPECT_EQ(port.to_json()["link"]["speed_mbps"], 100000);
  EXPECT_EQ(speed_text(25000), "25 Gb/s");
  EXPECT_EQ(speed_text(2500), "2.5 Gb/s");
  EXPECT_EQ(speed_text(100), "100 Mb/s");
}

TEST(StatusJson, CarriesEveryField) {
  const auto json = sample_port().to_json();
  EXPECT_EQ(json["netdev"], "lan2");
  EXPECT_EQ(json["rdma_device"], "mlx5_0");
  EXPECT_EQ(json["driver_info"]["firmware"], "28.39.1002 (MT_0000000838)");
  EXPECT_EQ(json["link"]["state"], "up");
  EXPECT_EQ(json["link"]["max_mtu"], 9978);
  EXPECT_EQ(json["dcbx"]["name"], "firmware (auto)");
  EXPECT_EQ(json["trust"], "dscp");
  EXPECT_EQ(json["dscp_map"]["26"], 3);
  EXPECT_EQ(json["dscp_map"]["48"], 6);
  EXPECT_EQ(json["pfc"]["enabled_priorities"], nlohmann::ordered_json::array({3}));
  EXPECT_EQ(json["pfc"]["cable_length_m"], 7);
  EXPECT_EQ(json["ets"]["tc_tsa"][0], "vendor");
  EXPECT_EQ(json["ets"]["prio_tc"][0], 1);
  EXPECT_EQ(json["stall_prevention"]["mode"], "auto");
  EXPECT_EQ(json["stall_prevention"]["timeout_ms"], 100);
  EXPECT_EQ(json["roce_v2_ipv4"]["index"], 3);
  EXPECT_EQ(json["roce_v2_ipv4"]["ipv4"], "192.168.2.10");
  EXPECT_EQ(json["gids"]["source"], "sysfs");
  EXPECT_EQ(json["rdma_cm"]["tos"], 106);
  EXPECT_EQ(json["ecn"]["flavour"], "ofed");
  EXPECT_EQ(json["ecn"]["rp_enabled_priorities"], nlohmann::ordered_json::array({3}));
  EXPECT_EQ(json["ecn"]["cnp_dscp"], 48);
  EXPECT_EQ(json["hw_counters"]["np_cnp_sent"], 12);
  EXPECT_EQ(json["rdma_driver"], "mlx5_core");
}

// A veth under rxe: the identity says so in JSON and text, the RDMA driver beside the device
// (the netdev's own driver column names the veth), and the other ports' line names it too.
TEST(StatusReport, ShowsTheRdmaDriverOfANonMlx5Port) {
  PortStatus s = sample_port();
  s.port = {"veth0", "", "", "rxe0", 1, "rxe", true};
  s.driver_info = Field<DriverInfo>::of({"veth", "1.0", "", ""});
  const auto json = s.to_json();
  EXPECT_EQ(json["rdma_driver"], "rxe");
  EXPECT_EQ(json["mlx5"], false);
  EXPECT_EQ(json["driver"], "");
  const std::string text = format_port_text(s);
  EXPECT_EQ(text.rfind("veth0  rxe0 (rxe)  -  veth  up", 0), 0u) << text;

  StatusReport report;
  report.other_rdma.push_back({"veth1", "", "", "rxe1", 1, "rxe", true});
  const std::string others = format_status_text(report);
  EXPECT_NE(others.find("veth1 (?, rxe1 rxe)"), std::string::npos) << others;
  EXPECT_EQ(report.to_json()["other_rdma_ports"][0]["rdma_driver"], "rxe");
  // Without an RDMA device there is no driver to name.
  s.port = {"veth2", "", "", "", 0, "", false};
  EXPECT_TRUE(s.to_json()["rdma_driver"].is_null());
}

// An SR-IOV port's VFs are one line under it, in numeric order; a function whose port is not in
// the report (a representor, a sub-function) is named at the end.
TEST(StatusReport, FunctionsAreCountedUnderTheirPortNotShownEach) {
  StatusReport report;
  report.ports.push_back(sample_port());
  const std::string port = report.ports[0].port.netdev;
  for (const int vf : {10, 2, 0, 1, 3, 4, 5, 6, 7, 8, 9, 11}) {
    DiscoveredPort function;
    function.netdev = port + "v" + std::to_string(vf);
    function.role = PortRole::Vf;
    function.role_detail = "VF " + std::to_string(vf) + " of " + port;
    function.parent = port;
    report.functions.push_back(function);
  }
  DiscoveredPort representor;
  representor.netdev = "pf0vf3";
  representor.role = PortRole::Representor;
  representor.role_detail = "representor pf0vf3";
  report.functions.push_back(representor);
  const std::string text = format_status_text(report);
  EXPECT_NE(text.find("\n  vfs      12 not managed (" + port + "v0-" + port +
                      "v11; --port NAME reads one)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nnot managed (functions of a port; --port NAME reads one): pf0vf3 "
                      "(representor pf0vf3)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(report.to_json()["ports"].size(), 1u);  // as the daemon's: the ports it reads
}

// A Field's lack is set by the factory that made it; its text is never looked into.
TEST(Field, TypedFactoriesSayWhyThereIsNoValue) {
  const auto no = Field<int>::from(Error{EOPNOTSUPP, "RTM_GETDCB"}, "DCB");
  EXPECT_EQ(no.lack, Lack::Unsupported);
  EXPECT_TRUE(no.unsupported_here());
  EXPECT_EQ(no.reason, "DCB is not supported by this device (EOPNOTSUPP)");
  EXPECT_EQ(no.error, "unsupported: " + no.reason);

  const auto eio = Field<int>::from(Error{EIO, "RTM_GETDCB: Input/output error"}, "DCB");
  EXPECT_EQ(eio.lack, Lack::Error);
  EXPECT_FALSE(eio.unsupported_here());
  EXPECT_EQ(eio.reason, "RTM_GETDCB: Input/output error (EIO)");
  EXPECT_EQ(eio.error, "error: " + eio.reason);

  const auto absent = Field<int>::absent("no RDMA device for lan2", ENODEV);
  EXPECT_TRUE(absent.unsupported_here());
  EXPECT_EQ(absent.error, "absent: no RDMA device for lan2");

  EXPECT_EQ(Field<int>::not_read().lack, Lack::NotRead);
  const auto text = Field<int>::failed("unsupported: only the words say so", EIO);
  EXPECT_EQ(text.lack, Lack::Error);
  EXPECT_EQ(text.reason, text.error);
}

}  // namespace
}  // namespace roced
