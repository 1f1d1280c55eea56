// SPDX-License-Identifier: Apache-2.0
// Writes the binary seed corpora from roce-sim's own answers: the rtnetlink replies (DCB, links),
// the ethtool replies and the sysfs trees of simulated nodes, recorded while the production
// clients make the same calls, in the same order, as the fuzz targets do.
//   fuzz_seed_gen SOURCE_DIR OUT_DIR   (OUT_DIR/<target>/<seed>; scripts/fuzz.sh --seeds)
#include <linux/dcbnl.h>
#include <roce_sim.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "fuzz/support/datagram_stream.hpp"
#include "fuzz/support/scripted_rtnl.hpp"
#include "link/link.hpp"
#include "sim/model/node_file.hpp"
#include "sim/server/ethtool_service.hpp"
#include "sim/server/file_mirror.hpp"
#include "sim/server/rtnl_service.hpp"
#include "sim/transport/sim_ethtool_ioctl.hpp"

namespace fs = std::filesystem;
using roced::Error;
using roced::Result;
using roced::fuzz::append_datagram;

namespace {

// The replies a client received, framed as the targets read them (datagram_stream.hpp).
struct Recording {
  bool on = true;
  std::vector<uint8_t> stream;
  void add(std::vector<uint8_t> datagram) {
    if (on) append_datagram(stream, datagram);
  }
};

// rtnetlink answered in-process by roce-sim's RtnlService.
class SimRtnlSocket final : public roced::NetlinkSocket {
 public:
  SimRtnlSocket(roce_sim::server::RtnlService& service, Recording& recording)
      : service_(service), recording_(recording) {}
  uint32_t port_id() const override { return roced::fuzz::ScriptedNetlinkSocket::kPortId; }
  Result<void> send(std::span<const uint8_t> datagram) override {
    nlmsghdr header{};
    std::memcpy(&header, datagram.data(), sizeof(header));
    seq_ = header.nlmsg_seq;
    roce_sim::server::NlPeer peer{port_id(), {}};
    for (auto& out : service_.handle(datagram, peer)) {
      if (!out.multicast) pending_.push_back(std::move(out.datagram));
    }
    return roced::ok();
  }
  Result<std::vector<uint8_t>> receive(std::chrono::milliseconds) override {
    if (pending_.empty()) return std::vector<uint8_t>{};
    std::vector<uint8_t> datagram = std::move(pending_.front());
    pending_.pop_front();
    std::vector<uint8_t> relative = datagram;  // stored relative to the request (scripted_rtnl)
    roced::fuzz::shift_sequence_numbers(relative, 0u - seq_);
    recording_.add(std::move(relative));
    return datagram;
  }
  Result<void> join_group(uint32_t) override { return roced::ok(); }
  int fd() const override { return -1; }

 private:
  roce_sim::server::RtnlService& service_;
  Recording& recording_;
  uint32_t seq_ = 0;
  std::deque<std::vector<uint8_t>> pending_;
};

// The ethtool ioctl answered in-process by roce-sim's EthtoolService.
class SimEthtool final : public roced::EthtoolIoctl {
 public:
  SimEthtool(roce_sim::server::EthtoolService& service, Recording& recording)
      : service_(service), recording_(recording) {}
  Result<void> call(const std::string& ifname, std::span<uint8_t> buffer, size_t in_len) override {
    roce_sim_ethtool_req header{};
    std::memcpy(header.ifname, ifname.data(), std::min(ifname.size(), sizeof(header.ifname) - 1));
    std::memcpy(&header.cmd, buffer.data(), sizeof(header.cmd));
    header.len = static_cast<uint32_t>(in_len);
    std::vector<uint8_t> request(sizeof(header) + in_len);
    std::memcpy(request.data(), &header, sizeof(header));
    std::memcpy(request.data() + sizeof(header), buffer.data(), in_len);
    std::vector<uint8_t> reply = service_.handle(request);
    recording_.add(reply);
    return roce_sim::decode_sim_ethtool_reply(reply, ifname, buffer);
  }

 private:
  roce_sim::server::EthtoolService& service_;
  Recording& recording_;
};

// One simulated node with the production clients wired to it.
struct SimNode {
  explicit SimNode(std::vector<roce_sim::PortSpec> specs)
      : node(std::move(specs)), rtnl(node), ethtool_service(node) {
    system.open_rtnl = [this]() -> Result<std::unique_ptr<roced::NetlinkSocket>> {
      return std::unique_ptr<roced::NetlinkSocket>(new SimRtnlSocket(rtnl, recording));
    };
    system.ethtool = std::make_unique<SimEthtool>(ethtool_service, recording);
  }
  roce_sim::Node node;
  roce_sim::server::RtnlService rtnl;
  roce_sim::server::EthtoolService ethtool_service;
  Recording recording;
  roced::System system;
};

fs::path g_out;
int g_written = 0;

void write_seed(const std::string& target, const std::string& name,
                const std::vector<uint8_t>& bytes) {
  fs::create_directories(g_out / target);
  std::ofstream(g_out / target / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  std::cout << target << "/" << name << " (" << bytes.size() << " bytes)\n";
  ++g_written;
}

void write_seed(const std::string& target, const std::string& name, const std::string& text) {
  write_seed(target, name, std::vector<uint8_t>(text.begin(), text.end()));
}

// The calls of dcb_fuzz.cpp, in its order (results do not matter here).
void dcb_calls(roced::System& system, const std::string& port) {
  namespace dcb = roced::dcb;
  dcb::DcbClient client(system);
  (void)client.get(port);
  (void)client.get_dcbx(port);
  (void)client.set_dcbx(port, dcb::kDcbxHost | dcb::kDcbxVerIeee);
  dcb::Pfc pfc;
  pfc.enabled_mask = 1u << 3;
  pfc.delay = 7;
  (void)client.set_pfc(port, pfc);
  (void)client.set_ets(port, dcb::Ets{});
  (void)client.set_maxrate(port, dcb::Maxrate{});
  (void)client.set_buffer(port, dcb::Buffer{});
  const std::vector<dcb::AppEntry> apps{{5, 3, 26}, {5, 6, 48}};
  (void)client.add_apps(port, apps);
  (void)client.delete_apps(port, apps);
}

// The calls of link_fuzz.cpp.
void link_calls(roced::System& system, const std::string& port) {
  roced::LinkClient links(system);
  (void)links.list();
  (void)links.get(port);
  (void)links.set_mtu(port, 9000);
  (void)links.set_admin_up(port, true);
}

// The calls of ethtool_stats_fuzz.cpp.
void ethtool_calls(roced::System& system, const std::string& port) {
  roced::EthtoolClient client(system);
  (void)client.stats(port);
  (void)client.driver_info(port);
  (void)client.pfc_prevention_timeout(port);
  roced::StatsReader reader(system, port);
  (void)reader.names();
  for (int poll = 0; poll < 2; ++poll) (void)reader.values();
  auto call = reader.values_call();
  if (call) {
    call->result = system.ethtool->call(port, call->buffer, call->in_len);
    (void)reader.values_answered(*call);
  }
}

// A node's lan2..: lossless on priority 3 with the DSCP map, as roced leaves a port (unrecorded).
void make_lossless(SimNode& sim, const std::string& port) {
  namespace dcb = roced::dcb;
  sim.recording.on = false;
  dcb::DcbClient client(sim.system);
  (void)client.set_dcbx(port, dcb::kDcbxHost | dcb::kDcbxVerIeee);
  dcb::Pfc pfc;
  pfc.enabled_mask = 1u << 3;
  pfc.delay = 7;
  (void)client.set_pfc(port, pfc);
  std::vector<dcb::AppEntry> apps;
  for (uint16_t dscp = 0; dscp < 64; ++dscp) {
    apps.push_back({5, static_cast<uint8_t>(dscp == 26 ? 3 : dscp == 48 ? 6 : dscp >> 3), dscp});
  }
  (void)client.add_apps(port, apps);
  (void)roced::LinkClient(sim.system).set_mtu(port, 9000);
  sim.recording.on = true;
}

template <class Calls>
void record(const std::string& target, const std::string& name, SimNode& sim,
            const std::string& port, Calls calls) {
  sim.recording.stream.clear();
  calls(sim.system, port);
  write_seed(target, name, sim.recording.stream);
}

void rtnl_and_ethtool_seeds(const fs::path& source) {
  const auto node_file = [&](const char* name) {
    return roce_sim::load_node_file(source / "sim/nodes" / name);
  };
  for (const auto& [target, calls] :
       {std::pair<std::string, void (*)(roced::System&, const std::string&)>{"dcb", dcb_calls},
        {"link", link_calls},
        {"ethtool_stats", ethtool_calls}}) {
    {
      SimNode sim(roce_sim::default_node());
      record(target, "default-lan2-firmware-defaults", sim, "lan2", calls);
      make_lossless(sim, "lan3");
      record(target, "default-lan3-lossless", sim, "lan3", calls);
      sim.node.inject_set_errors("lan4", EBUSY, 100);
      record(target, "default-lan4-set-errors-ebusy", sim, "lan4", calls);
      sim.node.unbind("lan5");
      record(target, "default-lan5-driver-unbound", sim, "lan5", calls);
    }
    {
      SimNode sim(node_file("dual-port-ofed.yaml"));
      const std::string port = sim.node.ports().front()->netdev();
      make_lossless(sim, port);
      record(target, "dual-port-ofed-lossless", sim, port, calls);
    }
    {
      SimNode sim(node_file("sixteen-port.yaml"));
      record(target, "sixteen-port-first", sim, sim.node.ports().front()->netdev(), calls);
    }
  }
}

// Which of a node's files a seed keeps: one port's (by its names) and those of no port.
struct PortFilter {
  std::vector<std::string> mine;    // the port's netdev, RDMA device and PCI address
  std::vector<std::string> others;  // every other port's
  bool keeps(const std::string& path) const {
    const auto named = [&](const std::vector<std::string>& names) {
      return std::any_of(names.begin(), names.end(), [&](const std::string& name) {
        const size_t at = path.find(name);
        // A whole path component ("lan2", not the "lan2" of "lan20").
        return at != std::string::npos &&
               (at + name.size() == path.size() || path[at + name.size()] == '/');
      });
    };
    return named(mine) || !named(others);
  }
};

// Empty GID slots are most of a GID table: a few stay, to keep their handling covered.
bool empty_gid_slot(const fs::path& mapped, const std::string& content) {
  return mapped.parent_path().filename() == "gids" && mapped.filename().string().size() > 1 &&
         content.rfind("0000:0000:0000:0000:0000:0000:0000:0000", 0) == 0;
}

// A directory tree in memory_file_tree.hpp's text form, its paths mapped to the real ones.
void serialize_tree(const fs::path& dir, const fs::path& real, std::string& out,
                    const PortFilter& filter = {}) {
  if (!fs::exists(dir)) return;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    const fs::path mapped = real / path.lexically_relative(dir);
    if (!filter.keeps(mapped.string())) continue;
    if (fs::is_symlink(path)) {
      out += "~" + mapped.string() + " " + fs::read_symlink(path).string() + "\n";
    } else if (fs::is_directory(path)) {
      if (fs::is_empty(path)) out += "=" + mapped.string() + "/\n";
    } else {
      std::ifstream file(path, std::ios::binary);
      std::stringstream text;
      text << file.rdbuf();
      const std::string content = text.str();
      if (empty_gid_slot(mapped, content)) continue;
      out += "=" + mapped.string() + "\n" + content;
      if (!content.empty() && content.back() != '\n') out += "\n";
    }
  }
}

// One seed per port of the node: its sysfs, configfs and debugfs files as roce-sim writes them.
void sim_tree_seeds(const std::vector<roce_sim::PortSpec>& specs, const std::string& name) {
  roce_sim::Node node(specs);
  const fs::path dir = fs::temp_directory_path() / ("fuzz_seed_gen." + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    roce_sim::server::FileMirror tree(node, dir);
    tree.build();
    for (const auto& spec : specs) {
      PortFilter filter;
      for (const auto& other : specs) {
        auto& names = other.netdev == spec.netdev ? filter.mine : filter.others;
        names.insert(names.end(), {other.netdev, other.rdma_device, other.pci_address});
      }
      std::string out;
      serialize_tree(dir / ROCE_SIM_SYS_DIR, "/sys", out, filter);
      serialize_tree(dir / ROCE_SIM_CONFIG_DIR, "/sys/kernel/config", out, filter);
      serialize_tree(dir / ROCE_SIM_DEBUG_DIR, "/sys/kernel/debug", out, filter);
      write_seed("sysfs", name + "-" + spec.netdev, out);
      if (&spec != &specs.front()) continue;
      // The first port again: with an rdma_cm group (configfs, as `rocectl apply` leaves it), and
      // with files whose read fails (EACCES, EIO, EINVAL as an empty GID slot gives).
      const std::string cm = "/sys/kernel/config/rdma_cm/" + spec.rdma_device + "/ports/" +
                             std::to_string(spec.rdma_port) + "/";
      write_seed("sysfs", name + "-" + spec.netdev + "-rdma-cm",
                 out + "=" + cm + "default_roce_mode\nRoCE v2\n=" + cm + "default_roce_tos\n106\n");
      const std::string port_dir = "/sys/class/infiniband/" + spec.rdma_device + "/ports/" +
                                   std::to_string(spec.rdma_port) + "/";
      write_seed("sysfs", name + "-" + spec.netdev + "-unreadable",
                 out + "!" + port_dir + "hw_counters/out_of_buffer 13\n!" + port_dir +
                     "gids/1 22\n!" + port_dir + "gid_attrs/types/2 5\n");
    }
  }
  fs::remove_all(dir);
}

void sysfs_seeds(const fs::path& source, const std::optional<fs::path>& fixtures) {
  sim_tree_seeds(roce_sim::default_node(), "default");
  sim_tree_seeds(roce_sim::load_node_file(source / "sim/nodes/dual-port-ofed.yaml"),
                 "dual-port-ofed");
  // Real machines' sysfs (FIXTURES_DIR/SOURCES.md: prometheus/procfs and node_exporter,
  // Apache-2.0).
  if (!fixtures) return;
  for (const auto& [dir, name] :
       {std::pair{"procfs/sys/class/infiniband", "procfs-infiniband"},
        {"node_exporter/sys/class/infiniband", "node-exporter-infiniband"},
        {"procfs/sys/class/net", "procfs-net"}}) {
    std::string out;
    serialize_tree(*fixtures / dir, fs::path("/sys/class") / fs::path(dir).filename(), out);
    if (!out.empty()) write_seed("sysfs", name, out);
  }
}

// The sim's ethtool string set, as `ethtool -S` would list it (names with ": 0").
void ethtool_names_seeds() {
  for (const bool lossless : {false, true}) {
    SimNode sim(roce_sim::default_node());
    if (lossless) make_lossless(sim, "lan2");
    auto names = roced::StatsReader(sim.system, "lan2").names();
    if (!names) continue;
    std::string out = "NIC statistics:\n";
    for (const auto& name : *names) out += "     " + name + ": 0\n";
    write_seed("ethtool_names", lossless ? "sim-lan2-lossless" : "sim-lan2-firmware-defaults", out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: fuzz_seed_gen SOURCE_DIR OUT_DIR [FIXTURES_DIR]\n";
    return 2;
  }
  const fs::path source = argv[1];
  g_out = argv[2];
  // Without FIXTURES_DIR, the real machines' sysfs trees are left out of the seeds.
  const std::optional<fs::path> fixtures =
      argc == 4 ? std::optional<fs::path>(argv[3]) : std::nullopt;
  try {
    rtnl_and_ethtool_seeds(source);
    sysfs_seeds(source, fixtures);
    ethtool_names_seeds();
  } catch (const std::exception& error) {
    std::cerr << "fuzz_seed_gen: " << error.what() << "\n";
    return 1;
  }
  std::cout << g_written << " seeds written to " << g_out.string() << "\n";
  return 0;
}
