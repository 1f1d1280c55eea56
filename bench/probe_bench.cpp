// SPDX-License-Identifier: Apache-2.0
// bench/probe_bench: what path probing costs a node. Two nodes' probe modules (the daemon's own
// daemon/probe code: the thread, the engine, the series) run in this process, each with N ports
// probing the other node's N ports at the given rate a port and answering the other's probes, as
// every node of a full mesh does. Between them an in-process wire stands where the verbs
// transport would be (a post is a queue push and an eventfd write, as a UD post is a doorbell
// write), so what is measured is roced's own work: the wire's cost is in the figure, the NIC's
// and the kernel's are not. Beside it, in the same run, what an operator would otherwise run for
// the same coverage: one `ping` a port at the same rate (ICMP, not RoCE, not on the lossless
// class; the kernel's echo answers are not in ping's CPU).
//   probe_bench [--ports N] [--rate R] [--seconds S] [--smoke]
// --smoke: 4 ports for 3 s; exits 1 unless probes are sent and answered and next to none lost.
// Speed is printed, never asserted.
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "bench/child_process.hpp"
#include "bench/process_cost.hpp"
#include "daemon/probe/probe_module.hpp"
#include "telemetry/exposition.hpp"

namespace roced::bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Every port of both nodes on one lossless wire in process: what is posted arrives at once.
class Wire {
 public:
  class Port final : public probe::ProbeTransport {
   public:
    Port(Wire& wire, std::string address, uint32_t qpn)
        : wire_(wire),
          address_(std::move(address)),
          qpn_(qpn),
          event_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
    ~Port() override {
      wire_.detach(address_);
      if (event_fd_ >= 0) ::close(event_fd_);
    }
    Port(const Port&) = delete;
    Port& operator=(const Port&) = delete;

    Result<void> post(const probe::Remote& to, const probe::MessageBytes& message,
                      uint32_t /*flow_label*/, uint64_t wr) override {
      return wire_.carry(*this, to, message, wr);
    }
    void poll(std::vector<probe::Completion>& out) override {
      uint64_t ignored = 0;
      (void)!::read(event_fd_, &ignored, sizeof ignored);
      std::deque<probe::Completion> taken;
      {
        const std::lock_guard lock(wire_.mutex_);
        taken.swap(queue_);
      }
      const int64_t at = now_ns();  // as the verbs transport: the poll's time
      for (probe::Completion& completion : taken) {
        completion.at_ns = at;
        out.push_back(std::move(completion));
      }
    }
    std::vector<int> fds() const override { return {event_fd_}; }

   private:
    friend class Wire;
    void signal() const {
      const uint64_t one = 1;
      (void)!::write(event_fd_, &one, sizeof one);
    }

    Wire& wire_;
    std::string address_;
    uint32_t qpn_;
    int event_fd_;
    std::deque<probe::Completion> queue_;
  };

  std::unique_ptr<probe::ProbeTransport> attach(const std::string& address) {
    const std::lock_guard lock(mutex_);
    auto port = std::make_unique<Port>(*this, address, next_qpn_++);
    ports_[address] = port.get();
    return port;
  }

 private:
  void detach(const std::string& address) {
    const std::lock_guard lock(mutex_);
    ports_.erase(address);
  }

  // The eventfds are written after the mutex is let go: the other node's thread should not wait
  // on the wire for a system call of this one's.
  Result<void> carry(Port& from, const probe::Remote& to, const probe::MessageBytes& message,
                     uint64_t wr) {
    Port* remote = nullptr;
    {
      const std::lock_guard lock(mutex_);
      const auto it = ports_.find(to.address);
      if (it == ports_.end()) return Error{EHOSTUNREACH, to.address + ": no probe service"};
      from.queue_.push_back(probe::Completion{probe::Completion::Kind::Sent, wr, 0, {}, {}});
      if (to.qpn == 0 || to.qpn == it->second->qpn_) {  // else no such queue pair there
        probe::Completion received;
        received.kind = probe::Completion::Kind::Received;
        received.from = {from.address_, from.qpn_};
        received.bytes.assign(message.begin(), message.end());
        it->second->queue_.push_back(std::move(received));
        remote = it->second;
      }
    }
    from.signal();
    if (remote != nullptr) remote->signal();
    return ok();
  }

  std::mutex mutex_;
  std::map<std::string, Port*> ports_;
  uint32_t next_qpn_ = 0x100;
};

struct Node {
  std::string name;
  std::vector<std::string> addresses;
};

Node make_node(const std::string& name, int subnet, int ports) {
  Node node{name, {}};
  for (int i = 1; i <= ports; ++i) {
    node.addresses.push_back("10.0." + std::to_string(subnet) + "." + std::to_string(i));
  }
  return node;
}

std::unique_ptr<probe_module::ProbeModule> make_module(Wire& wire, const Node& self,
                                                       const Node& peers, double rate) {
  std::vector<probe_module::ProbeEndpoint> endpoints;
  for (size_t i = 0; i < self.addresses.size(); ++i) {
    endpoints.push_back({self.name + "p" + std::to_string(i), self.addresses[i], 106, 3, ""});
  }
  probe::ProbeSettings settings;
  settings.enabled = true;
  settings.rate = rate;
  settings.budget = rate * static_cast<double>(self.addresses.size());
  settings.self_probe = false;
  for (const std::string& address : peers.addresses)
    settings.peers.push_back({address, peers.name});
  return std::make_unique<probe_module::ProbeModule>(
      [endpoints]() { return endpoints; },
      [&wire](const probe_module::ProbeEndpoint& endpoint,
              const probe::ProbeSettings&) -> Result<std::unique_ptr<probe::ProbeTransport>> {
        return wire.attach(endpoint.address);
      },
      settings);
}

// The sum of a counter family's samples in a scrape of `module`.
double scraped_total(probe_module::ProbeModule& module, const std::string& family) {
  telemetry::ExpositionWriter writer;
  module.collect(writer);
  const std::string text = writer.take();
  const std::regex sample("^" + family + "\\{[^}]*\\} ([0-9.e+]+)$");
  double total = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::smatch match;
    const std::string line = text.substr(start, end - start);
    if (std::regex_match(line, match, sample)) total += std::stod(match[1].str());
    start = end + 1;
  }
  return total;
}

double process_cpu_ms() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

struct Counts {
  double sent = 0, answered = 0, lost = 0;
};

Counts counts(probe_module::ProbeModule& module) {
  return {scraped_total(module, "roce_probe_sent_total"),
          scraped_total(module, "roce_probe_answered_total"),
          scraped_total(module, "roce_probe_lost_total")};
}

// One `ping` a port at `rate` to loopback addresses for `seconds`: their CPU in ms, or a negative
// value when ping cannot run at that rate here.
double ping_cpu_ms(int ports, double rate, double seconds) {
  const std::string interval = std::to_string(1.0 / rate);
  std::vector<std::unique_ptr<Child>> pings;
  pings.reserve(static_cast<size_t>(ports));
  const auto log = std::filesystem::temp_directory_path() / "probe_bench_ping.log";
  for (int i = 0; i < ports; ++i) {
    pings.push_back(
        std::make_unique<Child>(std::vector<std::string>{"ping", "-n", "-q", "-i", interval, "-W",
                                                         "1", "127.0.1." + std::to_string(i + 1)},
                                std::vector<std::string>{}, log));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  double before = 0;
  for (auto& ping : pings) {
    if (!ping->running()) return -1;
    before += read_cost(ping->pid()).cpu_sched_ms;
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  double after = 0;
  for (auto& ping : pings) {
    if (!ping->running()) return -1;
    after += read_cost(ping->pid()).cpu_sched_ms;
  }
  return after - before;
}

struct Options {
  int ports = 16;
  double rate = 100;
  double seconds = 30;
  bool smoke = false;
};

int run(const Options& options) {
  Wire wire;
  const Node a = make_node("a", 1, options.ports);
  const Node b = make_node("b", 2, options.ports);
  auto module_a = make_module(wire, a, b, options.rate);
  auto module_b = make_module(wire, b, a, options.rate);
  module_a->start();
  module_b->start();
  // The first second resolves every peer and fills the windows.
  std::this_thread::sleep_for(std::chrono::seconds(options.smoke ? 1 : 3));
  const Counts start_a = counts(*module_a);
  const double cpu_before = process_cpu_ms();
  const auto wall_before = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(options.seconds));
  const double cpu_ms = process_cpu_ms() - cpu_before;
  const double wall_s = std::chrono::duration<double>(Clock::now() - wall_before).count();
  // Served as of the last second's publication: both readings lag it by the same phase, so their
  // difference counts whole seconds of probing.
  const Counts end_a = counts(*module_a);
  module_a->stop();
  module_b->stop();

  const double sent = end_a.sent - start_a.sent;
  const double answered = end_a.answered - start_a.answered;
  const double lost = end_a.lost - start_a.lost;
  const double node_cpu_percent = cpu_ms / 2 / (wall_s * 1e3) * 100;
  std::printf("probe_bench: %d ports a node, %.0f probes a second a port, %.1f s\n", options.ports,
              options.rate, wall_s);
  std::printf("  node a: %.0f probes sent (%.1f a second a port), %.0f answered, %.0f lost\n", sent,
              sent / wall_s / options.ports, answered, lost);
  std::printf(
      "  roced's probing, per node (probing and answering): %.3f %% of a core, %.2f us a "
      "probe\n",
      node_cpu_percent, sent > 0 ? cpu_ms / 2 * 1e3 / sent : 0.0);
  if (!options.smoke) {
    const double ping_ms = ping_cpu_ms(options.ports, options.rate, options.seconds);
    if (ping_ms < 0) {
      std::printf("  ping: could not run at %.0f a second here\n", options.rate);
    } else {
      std::printf("  %d pings at %.0f a second (ICMP on loopback): %.3f %% of a core\n",
                  options.ports, options.rate, ping_ms / (options.seconds * 1e3) * 100);
    }
  }
  // Correctness only, whatever the machine's load: probes went out and came back.
  if (options.smoke && (sent <= 0 || answered <= 0 || lost > answered / 10)) {
    std::printf("probe_bench: FAILED: expected probes sent and answered, next to none lost\n");
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace roced::bench

int main(int argc, char** argv) try {
  spdlog::set_level(spdlog::level::warn);  // the modules' start lines, two nodes' worth
  roced::bench::Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "probe_bench: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--ports") {
      options.ports = std::stoi(value());
    } else if (arg == "--rate") {
      options.rate = std::stod(value());
    } else if (arg == "--seconds") {
      options.seconds = std::max(1.0, std::round(std::stod(value())));
    } else if (arg == "--smoke") {
      options.smoke = true;
      options.ports = 4;
      options.seconds = 3;
    } else {
      std::fprintf(stderr, "usage: probe_bench [--ports N] [--rate R] [--seconds S] [--smoke]\n");
      return 2;
    }
  }
  return roced::bench::run(options);
} catch (const std::exception& failure) {
  std::fprintf(stderr, "probe_bench: %s\n", failure.what());
  return 2;
}
