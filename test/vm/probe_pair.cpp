// SPDX-License-Identifier: Apache-2.0
// Path probing between two VMs (run_vm_pair.sh), each with soft-RoCE on the NIC that joins
// them. `probe_pair respond ADDRESS` answers probes until the VM is stopped; without arguments,
// the cases on the probing side, against the responder at kPeer: a clean path, then one with
// netem's delay and loss on this side's egress. Each prints its figures as a JSON line
// (PROBE-PAIR-FIGURES) for the runner's note and the alert rules' test.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "daemon/probe/verbs_transport.hpp"
#include "probe/engine.hpp"
#include "vm_support.hpp"

namespace roced::probe_module {
namespace {

using namespace std::chrono_literals;
constexpr const char* kSelf = "10.7.0.1";
constexpr const char* kPeer = "10.7.0.2";
constexpr const char* kNetdev = "eth0";
constexpr uint16_t kServicePort = 7471;
constexpr uint8_t kDscp = 26;
constexpr uint8_t kTrafficClass = kDscp << 2 | 2;  // DSCP 26, ECN-capable (ECT(0))

VerbsOptions options(const std::string& address) {
  return {address, kServicePort, probe::ProbeSettings{}.q_key, kTrafficClass, 3};
}

// Turns the engine for `span` on the real clock, waking for the transport's descriptors.
void run(probe::ProbeEngine& engine, VerbsTransport& transport, std::chrono::seconds span) {
  const auto end = std::chrono::steady_clock::now() + span;
  std::vector<pollfd> fds;
  for (const int fd : transport.fds()) fds.push_back({fd, POLLIN, 0});
  for (auto now = std::chrono::steady_clock::now(); now < end;
       now = std::chrono::steady_clock::now()) {
    const auto next = std::min(engine.turn(now), end);
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - now);
    (void)::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait.count())));
  }
}

// RoCE v2 packets on the wire, both ways, by their IP header's traffic class; QP1's (the
// connection manager's service resolution) apart, as they take rdma_cm's default class. Bound
// to every protocol: a packet socket of one protocol sees only what arrives (ptype_base), and
// outgoing frames reach the taps of ptype_all alone (dev_queue_xmit_nit, net/core/dev.c).
class RoceCapture {
 public:
  RoceCapture() {
    fd_ = ::socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
    sockaddr_ll address{};
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_ALL);
    address.sll_ifindex = static_cast<int>(::if_nametoindex(kNetdev));
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ADD_FAILURE() << "no packet socket on " << kNetdev << ": " << std::strerror(errno);
      return;
    }
    thread_ = std::thread([this] { capture(); });
  }
  ~RoceCapture() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  std::map<int, int> classes() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    return classes_;
  }

 private:
  void capture() {
    uint8_t packet[2048];
    while (!stop_) {
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, 100) <= 0) continue;
      sockaddr_ll from{};
      socklen_t size = sizeof from;
      const ssize_t n =
          ::recvfrom(fd_, packet, sizeof packet, 0, reinterpret_cast<sockaddr*>(&from), &size);
      if (from.sll_protocol != htons(ETH_P_IP)) continue;
      if (n < 20 + 8 + 12 || (packet[0] >> 4) != 4 || packet[9] != IPPROTO_UDP) continue;
      const size_t ihl = (packet[0] & 0xf) * 4u;
      const uint8_t* udp = packet + ihl;
      if (static_cast<size_t>(n) < ihl + 8 + 12 || (udp[2] << 8 | udp[3]) != 4791) continue;
      const uint8_t* bth = udp + 8;
      const uint32_t dest_qp = bth[5] << 16 | bth[6] << 8 | bth[7];
      if (dest_qp == 1) continue;
      ++classes_[packet[1]];
    }
  }
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::map<int, int> classes_;
};

struct Figures {
  probe::PathReport path;
  std::vector<probe::RttSample> rtts;
  std::chrono::nanoseconds p50{0};
};

Figures probe_peer(std::chrono::seconds span, const probe::ProbeSettings& settings) {
  auto transport = VerbsTransport::open(options(kSelf));
  if (!transport) throw std::runtime_error(transport.error().message);
  const auto start = std::chrono::steady_clock::now();
  probe::ProbeEngine engine(settings, {{kNetdev, transport->get(), {{kPeer, "pair"}}}}, start, 1);
  run(engine, **transport, span);
  Figures figures;
  figures.path = engine.paths(std::chrono::steady_clock::now()).at(0);
  figures.rtts = engine.take_rtts();
  std::vector<std::chrono::nanoseconds> network;
  for (const auto& sample : figures.rtts) network.push_back(sample.rtt.network);
  std::sort(network.begin(), network.end());
  if (!network.empty()) figures.p50 = network[network.size() / 2];
  return figures;
}

double micros(std::chrono::nanoseconds span) {
  return std::chrono::duration<double, std::micro>(span).count();
}

void print(const std::string& name, const Figures& figures) {
  nlohmann::json line{
      {"case", name},
      {"sent", figures.path.totals.sent},
      {"answered", figures.path.totals.answered},
      {"lost", figures.path.totals.lost},
      {"send_failed", figures.path.totals.send_failed},
      {"loss_ratio", figures.path.loss_ratio},
      {"timed", figures.rtts.size()},
      {"network_rtt_p50_us", micros(figures.p50)},
      {"network_rtt_p99_us", figures.path.rtt_p99 ? micros(*figures.path.rtt_p99) : -1},
      {"bad", figures.path.bad}};
  std::cout << "PROBE-PAIR-FIGURES " << line.dump() << std::endl;
}

// Software emulation (TCG) makes round trips milliseconds long, and a busy machine starves the
// emulated CPUs: the latency threshold here is out of the way, and only loss makes a path bad.
probe::ProbeSettings pair_settings() {
  probe::ProbeSettings settings;
  settings.enabled = true;
  settings.window = 60s;
  settings.rtt_p99 = 1s;
  return settings;
}

TEST(ProbePair, ACleanPathLosesNothingAndProbesOnTheLosslessClass) {
  RoceCapture capture;
  const Figures figures = probe_peer(12s, pair_settings());
  print("clean", figures);
  const auto classes = capture.classes();
  EXPECT_GE(figures.path.totals.sent, 80u);
  EXPECT_EQ(figures.path.totals.lost, 0u);
  EXPECT_EQ(figures.path.totals.send_failed, 0u);
  // rxe has no completion timestamps: the time of the poll stands for them, and a send
  // completion first seen in the same poll as its answer leaves no time to trust (about one in
  // ten under emulation).
  EXPECT_GE(figures.rtts.size(), figures.path.totals.answered * 3 / 4);
  EXPECT_FALSE(figures.path.bad);
  // Probes (this VM's) and both answers (the responder's): three packets a probe, every one on
  // DSCP 26.
  ASSERT_EQ(classes.size(), 1u) << "traffic classes seen: " << nlohmann::json(classes).dump();
  EXPECT_EQ(classes.begin()->first, kTrafficClass);
  EXPECT_GE(classes.begin()->second, static_cast<int>(figures.path.totals.answered * 3));
}

TEST(ProbePair, NetemDelayAndLossAreFoundOnThePath) {
  ASSERT_EQ(std::system("/usr/bin/tc qdisc add dev eth0 root netem delay 40ms loss 10%"), 0);
  const Figures figures = probe_peer(25s, pair_settings());
  (void)std::system("/usr/bin/tc qdisc del dev eth0 root");
  print("netem", figures);
  EXPECT_GE(figures.path.totals.sent, 150u);
  // netem drops a tenth of the probes on the way out. An answer later than the probe's timeout
  // counts as lost too, and a starved emulator (two VMs under TCG beside other work) makes some
  // late: the upper bound only tells a lossy path from one where nothing comes back.
  EXPECT_GT(figures.path.loss_ratio, 0.03);
  EXPECT_LT(figures.path.loss_ratio, 0.6);
  EXPECT_TRUE(figures.path.bad);
  // The added 40 ms, and what emulation adds to a round trip (bounded loosely: a starved
  // emulator adds tens of milliseconds).
  EXPECT_GE(figures.p50, 40ms);
  EXPECT_LT(figures.p50, 240ms);
}

// roced itself, probing the other VM through netem's loss: the series it exports (printed as
// PROBE-PAIR-SERIES lines, which run_vm_pair.sh turns into the alert rules' test) and its
// finding.
TEST(ProbePair, RocedExportsTheLossyPathsProbesAndFindsThePath) {
  const std::string config =
      vm::config_file("probe.yaml", R"(ports: {drivers: [rxe], netdevs: [eth0]}
daemon: {drift_check_interval: 1h}
profile:
  roce: {rdma_cm_mode: v2, tos: 106, gid_family: ipv4}
probe:
  enabled: true
  peers: [{address: 10.7.0.2, group: pair}]
  self_probe: false
  rtt_p99: 10s  # emulation's round trips: only loss makes the path bad here
)");
  ASSERT_EQ(std::system("/usr/bin/tc qdisc add dev eth0 root netem loss 10%"), 0);
  const pid_t daemon = vm::start_roced(config, "/tmp/roced.log", "127.0.0.1:9879");
  const std::map<std::string, std::string> path = {{"netdev", "eth0"}, {"group", "pair"}};
  const auto start = std::chrono::steady_clock::now();
  std::string text;
  bool found = false;
  // A minute of series at least, for the alert rules' test; two at most, for the finding.
  for (int i = 0; i < 24 && !(found && i >= 12); ++i) {
    std::this_thread::sleep_for(5s);
    text = vm::scrape_url("http://127.0.0.1:9879/metrics");
    const auto sent = vm::metric(text, "roce_probe_sent_total", path);
    const auto lost = vm::metric(text, "roce_probe_lost_total", path);
    if (!sent || !lost) continue;
    const auto seconds =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start);
    std::cout << "PROBE-PAIR-SERIES " << seconds.count() << " " << *sent << " " << *lost
              << std::endl;
    found = found || vm::metric(text, "roced_finding",
                                {{"netdev", "eth0"}, {"id", "probe_path_loss"}}) == 1.0;
  }
  (void)std::system("/usr/bin/tc qdisc del dev eth0 root");
  vm::stop_roced(daemon, "/tmp/roced.log");
  EXPECT_TRUE(found) << text;
  const double sent = vm::metric(text, "roce_probe_sent_total", path).value_or(0);
  const double lost = vm::metric(text, "roce_probe_lost_total", path).value_or(0);
  EXPECT_GE(sent, 100);
  EXPECT_GT(lost / sent, 0.03);
  EXPECT_LT(lost / sent, 0.25);
  EXPECT_GT(vm::metric(text, "roce_probe_network_rtt_seconds_count", path).value_or(0), 50);
  EXPECT_EQ(vm::metric(text, "roce_probe_up", {{"netdev", "eth0"}}), 1.0);
  EXPECT_NE(text.find("about=\"path 10.7.0.2\""), std::string::npos) << text;
}

// rocectl probe against the responder: every probe answered, on the clean path.
TEST(ProbePair, RocectlProbeAnswersOnce) {
  int exit_code = -1;
  const auto out =
      vm::run_json({"/usr/bin/rocectl", "probe", kPeer, "--count", "20", "--json"}, &exit_code);
  EXPECT_EQ(exit_code, 0) << out.dump();
  EXPECT_EQ(out.value("schema", ""), "roced.probe/v1");
  EXPECT_EQ(out.value("from", ""), kSelf);
  EXPECT_EQ(out.value("device", ""), "rxe0");
  EXPECT_EQ(out.value("sent", 0), 20);
  EXPECT_EQ(out.value("answered", 0), 20);
  EXPECT_EQ(out.value("lost", -1), 0);
  EXPECT_GT(out["network_rtt_us"].value("p50", -1.0), 0);
}

int respond(const std::string& address) {
  auto transport = VerbsTransport::open(options(address));
  if (!transport) {
    std::cerr << "PROBE-PAIR-RESPONDER-FAILED: " << transport.error().message << std::endl;
    return 1;
  }
  std::cout << "PROBE-PAIR-RESPONDING on " << (*transport)->device() << std::endl;
  probe::ProbeEngine engine(pair_settings(), {{kNetdev, transport->get(), {}}},
                            std::chrono::steady_clock::now(), 2);
  for (;;) run(engine, **transport, 3600s);
}

// Until the peer's probe service resolves (the responder may start after its ping answers).
int wait_until_ready(const std::string& peer) {
  auto transport = VerbsTransport::open(options(kSelf));
  if (!transport) {
    std::cerr << "PROBE-PAIR-READY-FAILED: " << transport.error().message << std::endl;
    return 1;
  }
  const probe::ProbeMessage probe{probe::MessageKind::Probe, 1, 0, 0, 0};
  std::vector<probe::Completion> completions;
  const auto end = std::chrono::steady_clock::now() + 120s;
  while (std::chrono::steady_clock::now() < end) {
    (*transport)->poll(completions);
    if ((*transport)->post({peer, 0}, probe::encode(probe), 1, 1)) return 0;
    std::this_thread::sleep_for(100ms);
  }
  std::cerr << "PROBE-PAIR-READY-FAILED: " << peer << " did not resolve within 120 s" << std::endl;
  return 1;
}

}  // namespace
}  // namespace roced::probe_module

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "respond") {
    return roced::probe_module::respond(argv[2]);
  }
  if (argc == 3 && std::string(argv[1]) == "ready") {
    return roced::probe_module::wait_until_ready(argv[2]);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
