// SPDX-License-Identifier: Apache-2.0
// rocectl probe PEER: a few probes to one peer now, from the port the kernel routes to it, on the
// configuration's lossless class, Q_Key and service port; the peer's roced (or any responder of
// the same Q_Key) answers. What roced's probing does (docs/probing.md), once, in the foreground.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/load_config.hpp"
#include "daemon/probe/verbs_transport.hpp"
#include "probe/engine.hpp"

namespace roced::cli {

namespace {

constexpr const char* kUsage =
    "usage: rocectl probe PEER [--count N] [--from ADDRESS] [--config FILE] [--json]\n"
    "\n"
    "Sends N probes (10) to PEER, a peer port's IPv4 or IPv6 address, one every 100 ms, from the\n"
    "local port the kernel routes to it (or --from ADDRESS, a local port's address), over a UD\n"
    "queue pair on the configuration's lossless class (profile.roce.tos), Q_Key and service port\n"
    "(probe.q_key, probe.service_port); prints what came back: probes answered and lost, and\n"
    "the network's share of each round trip. PEER's roced must have probing on.\n"
    "\n"
    "  --count N      probes to send, 1-1000 (10)\n"
    "  --from ADDRESS the local address to probe from\n"
    "  --config FILE  the configuration (/etc/roced/roced.yaml; its defaults when absent)\n"
    "  --json         one JSON object (roced.probe/v1)\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 every probe answered, 1 error, 3 probes lost.\n";

// The source address the kernel would use towards `peer` (a UDP socket's connect picks it and
// sends nothing).
std::optional<std::string> route_source(const std::string& peer) {
  sockaddr_storage storage{};
  socklen_t size = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, peer.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(4791);
    size = sizeof *v4;
  } else if (::inet_pton(AF_INET6, peer.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(4791);
    size = sizeof *v6;
  } else {
    return std::nullopt;
  }
  const int fd = ::socket(storage.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_storage local{};
  socklen_t local_size = sizeof local;
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&storage), size) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) == 0;
  ::close(fd);
  if (!ok) return std::nullopt;
  char text[INET6_ADDRSTRLEN] = {};
  const void* address =
      local.ss_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
  ::inet_ntop(local.ss_family, address, text, sizeof text);
  return std::string(text);
}

struct Options {
  std::string peer;
  std::string from;
  int count = 10;
  std::string config = "/etc/roced/roced.yaml";
  bool json = false;
};

std::optional<int> parse(Args& args, Options& options) {
  std::string error;
  std::string value;
  while (!args.done()) {
    if (args.flag("-h") || args.flag("--help")) {
      std::cout << kUsage;
      return kExitOk;
    }
    if (args.flag("--json")) {
      options.json = true;
    } else if (args.option("--count", value, error)) {
      char* end = nullptr;
      const long count = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || count < 1 || count > 1000) {
        return usage_error("--count takes a number of probes from 1 to 1000", kUsage);
      }
      options.count = static_cast<int>(count);
    } else if (args.option("--from", options.from, error) ||
               args.option("--config", options.config, error)) {
    } else if (!error.empty()) {
      return usage_error(error, kUsage);
    } else if (args.peek().rfind('-', 0) == 0) {
      return usage_error("unknown option " + args.peek(), kUsage);
    } else if (options.peer.empty()) {
      options.peer = args.take();
    } else {
      return usage_error("one peer at a time", kUsage);
    }
    if (!error.empty()) return usage_error(error, kUsage);
  }
  if (options.peer.empty()) return usage_error("name the peer's address", kUsage);
  return std::nullopt;
}

}  // namespace

int probe_command(const Context& context, Args args) {
  Options options;
  if (auto exit = parse(args, options)) return *exit;
  if (context.sim_dir) {
    std::cerr << "rocectl: probe sends real probes over an RDMA device; the simulated node has "
                 "none\n";
    return kExitError;
  }
  config::Config config;
  if (std::filesystem::exists(options.config)) {
    auto loaded = load_config(options.config);
    if (!loaded) return kExitError;
    config = std::move(*loaded);
  }
  probe::ProbeSettings settings = config.probe;
  settings.enabled = true;
  settings.rate = 10;
  settings.budget = 10;
  if (options.from.empty()) {
    const auto source = route_source(options.peer);
    if (!source) {
      std::cerr << "rocectl: no route to " << options.peer << " (or not an address)\n";
      return kExitError;
    }
    options.from = *source;
  }
  const settings::Profile& profile = config.profile;
  // Port 0: this one-shot prober answers nobody, and roced may hold the service port.
  auto transport = probe_module::VerbsTransport::open(
      {options.from, settings.service_port, settings.q_key, profile.roce.tos,
       profile.dscp_map[profile.roce.tos >> 2], /*answers=*/false});
  if (!transport) {
    std::cerr << "rocectl: " << transport.error().message << "\n";
    return kExitError;
  }
  const auto start = std::chrono::steady_clock::now();
  probe::ProbeEngine engine(settings, {{"probe", transport->get(), {{options.peer, "peer"}}}},
                            start, static_cast<uint64_t>(::getpid()));
  // The probes, then a timeout's wait for the last answers; a peer still being resolved gets
  // its probes once it is.
  const auto end = start + std::chrono::milliseconds(100 * options.count + 3000) + settings.timeout;
  std::vector<pollfd> fds;
  for (const int fd : (*transport)->fds()) fds.push_back({fd, POLLIN, 0});
  for (auto now = start; now < end; now = std::chrono::steady_clock::now()) {
    const bool all_sent = static_cast<int>(engine.paths(now).at(0).totals.sent) >= options.count;
    if (all_sent && engine.in_flight() == 0) break;
    const auto next = engine.turn(now, /*send=*/!all_sent);
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(std::min(next, end) - now);
    (void)::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(0, wait.count())));
  }
  const probe::PathReport report = engine.paths(std::chrono::steady_clock::now()).at(0);
  const auto rtts = engine.take_rtts();
  std::vector<double> micros;
  micros.reserve(rtts.size());
  for (const auto& sample : rtts) {
    micros.push_back(std::chrono::duration<double, std::micro>(sample.rtt.network).count());
  }
  std::sort(micros.begin(), micros.end());
  const auto quantile = [&](double q) {
    return micros.empty()
               ? -1.0
               : micros[std::min(micros.size() - 1,
                                 static_cast<size_t>(q * static_cast<double>(micros.size())))];
  };
  if (options.json) {
    nlohmann::ordered_json out = {{"schema", "roced.probe/v1"},
                                  {"peer", options.peer},
                                  {"from", options.from},
                                  {"device", (*transport)->device()},
                                  {"traffic_class", profile.roce.tos},
                                  {"sent", report.totals.sent},
                                  {"answered", report.totals.answered},
                                  {"lost", report.totals.lost},
                                  {"timed", micros.size()},
                                  {"network_rtt_us",
                                   {{"min", micros.empty() ? -1.0 : micros.front()},
                                    {"p50", quantile(0.5)},
                                    {"max", micros.empty() ? -1.0 : micros.back()}}}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << fmt::format(
        "probe {} from {} ({}), traffic class {}: {} sent, {} answered, {} lost\n", options.peer,
        options.from, (*transport)->device(), profile.roce.tos, report.totals.sent,
        report.totals.answered, report.totals.lost);
    if (!micros.empty()) {
      std::cout << fmt::format(
          "network round trip: min {:.1f} us, p50 {:.1f} us, max {:.1f} us ({} timed)\n",
          micros.front(), quantile(0.5), micros.back(), micros.size());
    }
  }
  if (report.totals.sent == 0) {
    std::cerr << "rocectl: no probe could be sent: " << options.peer
              << "'s probe service did not resolve (is probing on there?)\n";
    return kExitError;
  }
  return report.totals.lost > 0 ? kExitDiffers : kExitOk;
}

}  // namespace roced::cli
