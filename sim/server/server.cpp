// SPDX-License-Identifier: Apache-2.0
#include "sim/server/server.hpp"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "roce_sim.h"
#include "sim/model/node.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/scenario.hpp"
#include "sim/server/clock_file.hpp"
#include "sim/server/ethtool_genl.hpp"
#include "sim/server/ethtool_service.hpp"
#include "sim/server/file_mirror.hpp"
#include "sim/server/inject.hpp"
#include "sim/server/rdma_nldev.hpp"
#include "sim/server/rtnl_service.hpp"
#include "sim/server/write_counter.hpp"

namespace roce_sim::server {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// The timer ticks every 10 ms; a port's files are rewritten every this many ticks (10 Hz).
constexpr size_t kRefreshTicks = 10;

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

[[noreturn]] void fail(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

Fd listen_on(const fs::path& path) {
  Fd fd(::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) fail("socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    fail("socket path " + path.string());
  }
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ::unlink(path.c_str());
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    fail("bind " + path.string());
  if (::listen(fd.get(), 64) != 0) fail("listen " + path.string());
  return fd;
}

enum class Kind {
  RtnlListener,
  EthtoolListener,
  RdmaListener,
  GenlListener,
  Rtnl,
  Ethtool,
  Rdma,
  Genl,
  LldpListener,
  Lldp,
  Timer,
  Inotify,
  Inject,
  Signal
};

// While a hold_reply fault holds a reply, this file names it: "<netdev> <op>" per held reply.
constexpr const char* kHeldFile = "roce-sim.held";

// Whether the process at the other end of a connection had CAP_NET_ADMIN in its effective set:
// what the kernel asks of the sender of a set (netlink_net_capable, ns_capable). Read once, at
// connect, from /proc/PID/status; a process whose status cannot be read has none.
bool peer_has_net_admin(int fd) {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) return false;
  std::ifstream status("/proc/" + std::to_string(peer.pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    const uint64_t effective = std::strtoull(line.c_str() + 7, nullptr, 16);
    constexpr int kCapNetAdmin = 12;  // include/uapi/linux/capability.h
    return (effective >> kCapNetAdmin) & 1;
  }
  return false;
}

struct Client {
  Fd fd;
  Kind kind;
  NlPeer peer;
  std::string lldp_netdev;  // an lldp.sock client's, once bound
};

// A reply held back by hold_reply: the client's socket is not read meanwhile, as a caller blocked
// in the slow driver op sends nothing else.
struct HeldReply {
  int fd = -1;
  std::vector<Outgoing> rtnl_replies;
  std::vector<Bytes> ethtool_answers;
  Clock::time_point release_at;
  std::string what;  // "lan3 pfc"
};

class Server {
 public:
  Server(const RunOptions& options, std::vector<PortSpec> specs, std::optional<Scenario> scenario)
      : options_(options),
        node_(std::move(specs)),
        writes_(options.dir / kWritesFile, netdevs(node_)),
        rtnl_(node_, &writes_),
        ethtool_(node_, &writes_),
        rdma_(node_),
        genl_(node_),
        mirror_(node_, options.dir, &writes_) {
    if (scenario) runner_.emplace(node_, std::move(*scenario));
    scenario_given_ = runner_.has_value();
    speed_ = options.speed.value_or(runner_ ? runner_->clock_speed() : 1.0);
  }

  int run() {
    fs::create_directories(options_.dir);
    mirror_.build();
    writes_.flush();       // the counter file exists, with zeros, before the node is ready
    rtnl_.drain_events();  // start-up state is not news

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    if (::sigprocmask(SIG_BLOCK, &signals, nullptr) != 0) fail("sigprocmask");
    ::signal(SIGPIPE, SIG_IGN);
    signal_fd_ = Fd(::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC));
    if (signal_fd_.get() < 0) fail("signalfd");

    epoll_ = Fd(::epoll_create1(EPOLL_CLOEXEC));
    if (epoll_.get() < 0) fail("epoll_create1");
    rtnl_path_ = options_.dir / ROCE_SIM_RTNL_SOCKET;
    ethtool_path_ = options_.dir / ROCE_SIM_ETHTOOL_SOCKET;
    rdma_path_ = options_.dir / ROCE_SIM_RDMA_SOCKET;
    genl_path_ = options_.dir / ROCE_SIM_GENL_SOCKET;
    pid_path_ = options_.dir / ROCE_SIM_PIDFILE;
    rtnl_listener_ = listen_on(rtnl_path_);
    ethtool_listener_ = listen_on(ethtool_path_);
    rdma_listener_ = listen_on(rdma_path_);
    genl_listener_ = listen_on(genl_path_);
    lldp_path_ = options_.dir / ROCE_SIM_LLDP_SOCKET;
    lldp_listener_ = listen_on(lldp_path_);

    timer_ = Fd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
    if (timer_.get() < 0) fail("timerfd_create");
    itimerspec tick{};
    tick.it_interval.tv_nsec = 10'000'000;  // 10 ms real time
    tick.it_value.tv_nsec = 10'000'000;
    if (::timerfd_settime(timer_.get(), 0, &tick, nullptr) != 0) fail("timerfd_settime");

    watch(rtnl_listener_.get(), Kind::RtnlListener);
    watch(ethtool_listener_.get(), Kind::EthtoolListener);
    watch(rdma_listener_.get(), Kind::RdmaListener);
    watch(genl_listener_.get(), Kind::GenlListener);
    watch(lldp_listener_.get(), Kind::LldpListener);
    watch(timer_.get(), Kind::Timer);
    watch(mirror_.inotify_fd(), Kind::Inotify);
    watch_injections();
    watch(signal_fd_.get(), Kind::Signal);

    // Simulated time 0. The clock file is complete before the readiness marker, so a client
    // that sees the pid file can convert scenario times to CLOCK_MONOTONIC.
    epoch_ = Clock::now();
    clock_path_ = options_.dir / ROCE_SIM_CLOCKFILE;
    {
      const fs::path temp = options_.dir / ".roce-sim.clock.tmp";
      std::ofstream(temp) << ClockFile{epoch_, speed_}.text();
      fs::rename(temp, clock_path_);
    }
    if (options_.enforce_capabilities)
      std::ofstream(options_.dir / ROCE_SIM_CAPSFILE) << "enforced\n";
    {  // readiness marker last (uapi/roce_sim.h)
      const fs::path temp = options_.dir / ".roce-sim.pid.tmp";
      std::ofstream(temp) << ::getpid() << "\n";
      fs::rename(temp, pid_path_);
    }
    say("roce-sim: node ready in " + options_.dir.string() + " (" +
        std::to_string(node_.ports().size()) + " ports, speed x" + format_speed() + ")");

    int exit_code = 0;
    while (!stop_) {
      epoll_event events[32];
      const int n = wait_for_events(events, 32);
      if (n < 0) {
        if (errno == EINTR) continue;
        fail("epoll_wait");
      }
      for (int i = 0; i < n && !stop_; ++i) dispatch(events[i]);
      deliver_lldp();
      // A held reply (a firmware command's time, a scenario's hold) goes out when it is due,
      // not at the next tick.
      if (!held_.empty()) release_due_holds(Clock::now());
    }
    cleanup();
    return exit_code;
  }

 private:
  void say(const std::string& text) {
    if (!options_.quiet) std::cout << text << std::endl;
  }
  void verbose(const std::vector<std::string>& lines) {
    if (!options_.verbose || options_.quiet) return;
    for (const std::string& text : lines) std::cout << "  " << text << std::endl;
  }
  std::string format_speed() const {
    char text[32];
    std::snprintf(text, sizeof text, "%g", speed_);
    return text;
  }

  void watch(int fd, Kind kind) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    kinds_[fd] = kind;
    if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) fail("epoll_ctl");
  }

  void dispatch(const epoll_event& event) {
    const int fd = event.data.fd;
    auto kind_it = kinds_.find(fd);
    if (kind_it == kinds_.end()) return;
    switch (kind_it->second) {
      case Kind::RtnlListener:
        accept_all(fd, Kind::Rtnl);
        break;
      case Kind::EthtoolListener:
        accept_all(fd, Kind::Ethtool);
        break;
      case Kind::RdmaListener:
        accept_all(fd, Kind::Rdma);
        break;
      case Kind::GenlListener:
        accept_all(fd, Kind::Genl);
        break;
      case Kind::LldpListener:
        accept_all(fd, Kind::Lldp);
        break;
      case Kind::Lldp:
        bind_lldp(fd);
        break;
      case Kind::Rtnl:
      case Kind::Ethtool:
      case Kind::Rdma:
      case Kind::Genl:
        serve(fd);
        break;
      case Kind::Timer:
        on_tick();
        break;
      case Kind::Inotify:
        verbose(mirror_.on_inotify());
        writes_.flush();
        publish_events();
        break;
      case Kind::Inject:
        on_inject_events();
        break;
      case Kind::Signal: {
        signalfd_siginfo info{};
        while (::read(signal_fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
          say("roce-sim: signal " + std::to_string(info.ssi_signo) + ", stopping");
          stop_ = true;
        }
        break;
      }
    }
  }

  void accept_all(int listener, Kind kind) {
    for (;;) {
      const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;
      const int buffer = 4 << 20;  // a dump or a large GSTRINGS fits in one datagram
      ::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer);
      auto client = std::make_unique<Client>();
      client->fd = Fd(fd);
      client->kind = kind;
      if (options_.enforce_capabilities) client->peer.net_admin = peer_has_net_admin(fd);
      clients_[fd] = std::move(client);
      watch(fd, kind);
    }
  }

  void drop(int fd) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    kinds_.erase(fd);
    clients_.erase(fd);
  }

  // A unicast reply waits (bounded) for room; a multicast one is dropped when the receiver's
  // queue is full, as netlink_broadcast does (the listener then sees ENOBUFS in a real kernel).
  static bool send_datagram(int fd, const Bytes& data, bool wait) {
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT) >= 0) return true;
      if (errno != EAGAIN || !wait) return false;
      ::usleep(1000);
    }
    return false;
  }

  // What the model did since it was last asked, to each socket joined to its group: rtnetlink's
  // link and DCB notifications, devlink's reporter changes.
  void publish_events() {
    send_all(rtnl_.drain_events(), nullptr);
    send_all(genl_.drain_events(), nullptr);
  }

  void send_all(const std::vector<Outgoing>& messages, Client* self) {
    for (const Outgoing& message : messages) {
      if (!message.multicast) {
        if (self) send_datagram(self->fd.get(), message.datagram, true);
        continue;
      }
      for (auto& [fd, client] : clients_) {
        const Kind kind = message.generic ? Kind::Genl : Kind::Rtnl;
        if (client->kind == kind && client->peer.groups.count(message.group)) {
          send_datagram(fd, message.datagram, false);
        }
      }
    }
  }

  // An lldp.sock client names its netdev once; it sends nothing else (a hang-up drops it).
  void bind_lldp(int fd) {
    auto it = clients_.find(fd);
    if (it == clients_.end()) return;
    for (;;) {
      const ssize_t n = ::recv(fd, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(fd);
        return;
      }
      if (n < 0) return;
      if (static_cast<size_t>(n) == sizeof(roce_sim_lldp_bind) && it->second->lldp_netdev.empty()) {
        roce_sim_lldp_bind bind{};
        std::memcpy(&bind, buffer_.data(), sizeof bind);
        it->second->lldp_netdev.assign(bind.ifname, strnlen(bind.ifname, sizeof bind.ifname));
      }
    }
  }

  // The switches' frames since the last call, to the sockets bound to their netdevs; a full
  // socket drops them, as a packet socket's receive queue does.
  void deliver_lldp() {
    for (const Node::LldpFrame& sent : node_.take_lldp_frames()) {
      for (auto& [fd, client] : clients_) {
        if (client->kind == Kind::Lldp && client->lldp_netdev == sent.netdev) {
          send_datagram(fd, sent.frame, false);
        }
      }
    }
  }

  void serve(int fd) {
    auto it = clients_.find(fd);
    if (it == clients_.end()) return;
    Client* client = it->second.get();
    // ethtool answers wait until the requests queued now are served: a client that sent a batch
    // (one request per port) is woken once for all of it, not once per answer.
    std::vector<Bytes> answers;
    for (;;) {
      const ssize_t n = ::recv(fd, buffer_.data(), buffer_.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        drop(fd);
        return;
      }
      if (n < 0) break;
      const ByteView datagram(buffer_.data(), static_cast<size_t>(n));
      // A kernel answers at the moment of the call: mlx5 reads the PPCNT counters when ethtool
      // asks, and a set takes effect then. Advance the world to now, and tell listeners what
      // happened in it, before this request.
      advance_to_now();
      publish_events();
      // Writes to sysfs are synchronous in a kernel: file writes a client made before this
      // request take effect (and are counted) before it is answered.
      const uint64_t writes_before = writes_.total();
      verbose(mirror_.on_inotify());
      std::vector<Outgoing> replies;
      if (client->kind == Kind::Rtnl) {
        replies = rtnl_.handle(datagram, client->peer);
        writes_.flush();  // the counter is current once the reply arrives
        verbose(rtnl_.take_request_log());
      } else if (client->kind == Kind::Rdma) {
        replies = rdma_.handle(datagram, client->peer);
        verbose(rdma_.take_request_log());
      } else if (client->kind == Kind::Genl) {
        replies = genl_.handle(datagram, client->peer);
        verbose(genl_.take_request_log());
      } else {
        answers.push_back(ethtool_.handle(datagram, client->peer.net_admin));
        writes_.flush();
        verbose(ethtool_.take_request_log());
        publish_events();
      }
      // The files follow the model before the next request. Only a set request (or a file
      // write) changes the model; reads skip the walk over every port's files.
      if (writes_.total() != writes_before) {
        if (auto touched = writes_.take_touched()) {
          mirror_.refresh(*touched);
        } else {
          mirror_.refresh();
        }
      }
      if (hold(fd, replies, answers)) return;
      send_all(replies, client);
    }
    for (const Bytes& answer : answers) send_datagram(fd, answer, true);
  }

  // When the request just handled fired a hold_reply, its replies (and the batch's earlier
  // ethtool answers) wait, and the client is not served, until the hold ends.
  // The firmware commands a request issued delay its answer the same way, without a word.
  bool hold(int fd, std::vector<Outgoing>& replies, std::vector<Bytes>& answers) {
    const std::vector<WriteTrigger> fired = node_.take_fired_holds();
    const std::chrono::microseconds firmware = node_.take_firmware_time();
    if (fired.empty() && firmware.count() == 0) return false;
    HeldReply held;
    held.fd = fd;
    held.rtnl_replies = std::move(replies);
    held.ethtool_answers = std::move(answers);
    std::chrono::microseconds longest{0};
    for (const WriteTrigger& trigger : fired) longest = std::max(longest, trigger.duration);
    longest += firmware;
    held.release_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double, std::micro>(
                                             static_cast<double>(longest.count()) / speed_));
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
    if (!fired.empty()) {
      held.what = fired.front().netdev + " " + set_op_name(fired.front().fired_by);
      say(sim_time_text() + " " + fired.front().netdev + ": holding the reply to a " +
          set_op_name(fired.front().fired_by) + " set");
    }
    held_.push_back(std::move(held));
    write_held_file();
    return true;
  }

  // epoll until the first held reply is due, or for ever when none is held. To the microsecond
  // (epoll_pwait2): a firmware command is tens of microseconds, and a millisecond's rounding would
  // double a statistics read's time. epoll_wait's milliseconds where the kernel lacks it (< 5.11).
  int wait_for_events(epoll_event* events, int size) {
    if (held_.empty()) return ::epoll_wait(epoll_.get(), events, size, -1);
    Clock::time_point first = held_.front().release_at;
    for (const HeldReply& held : held_) first = std::min(first, held.release_at);
    const auto wait = std::max<Clock::duration>(Clock::duration::zero(), first - Clock::now());
    if (pwait2_) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
      const timespec timeout{static_cast<time_t>(ns / 1'000'000'000),
                             static_cast<long>(ns % 1'000'000'000)};
      const int n = ::epoll_pwait2(epoll_.get(), events, size, &timeout, nullptr);
      if (n >= 0 || errno != ENOSYS) return n;
      pwait2_ = false;
    }
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(wait).count();
    return ::epoll_wait(epoll_.get(), events, size, static_cast<int>(ms));
  }

  void release_due_holds(Clock::time_point now) {
    std::vector<HeldReply> due;
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->release_at > now) {
        ++it;
        continue;
      }
      due.push_back(std::move(*it));
      it = held_.erase(it);
    }
    if (due.empty()) return;
    // The file first: a client that has its reply must not still find it named there.
    write_held_file();
    for (HeldReply& held : due) {
      auto client = clients_.find(held.fd);
      if (client != clients_.end()) {
        // A client killed meanwhile: the sends fail, and its hang-up is seen once watched again.
        send_all(held.rtnl_replies, client->second.get());
        for (const Bytes& answer : held.ethtool_answers) send_datagram(held.fd, answer, true);
        epoll_event event{};
        event.events = EPOLLIN;
        event.data.fd = held.fd;
        ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, held.fd, &event);
      }
      say(sim_time_text() + " " + held.what.substr(0, held.what.find(' ')) + ": reply released");
    }
  }

  // Atomically, as the other files of DIR: present exactly while a reply is held.
  void write_held_file() {
    const fs::path path = options_.dir / kHeldFile;
    if (std::none_of(held_.begin(), held_.end(),
                     [](const HeldReply& held) { return !held.what.empty(); })) {
      ::unlink(path.c_str());
      return;
    }
    const fs::path temp = options_.dir / (std::string(".") + kHeldFile + ".tmp");
    {
      std::ofstream out(temp);
      for (const HeldReply& held : held_) {
        if (!held.what.empty()) out << held.what << "\n";  // firmware time alone is no hold
      }
    }
    fs::rename(temp, path);
  }

  std::string sim_time_text() const {
    char text[32];
    std::snprintf(text, sizeof text, "t=%.3fs", static_cast<double>(sim_elapsed_.count()) / 1e6);
    return text;
  }

  void on_tick() {
    uint64_t expirations = 0;
    while (::read(timer_.get(), &expirations, sizeof expirations) > 0) {
    }
    const Clock::time_point now = advance_to_now();
    publish_events();
    release_due_holds(now);
    // Client writes made before the tick take effect before any file is refreshed: a refresh
    // never lands between a write and its store().
    verbose(mirror_.on_inotify());
    writes_.flush();
    publish_events();
    mirror_.apply_file_modes();
    // Counters move every tick (and before every request); the files follow at 10 Hz (set
    // requests and writes refresh at once): a tenth of the ports each 10 ms tick, so no request
    // waits for every port's files to be rewritten.
    const size_t ports = node_.ports().size();
    mirror_.refresh_next((ports + kRefreshTicks - 1) / kRefreshTicks);
    if (options_.duration) {
      const auto limit = std::chrono::microseconds(static_cast<int64_t>(*options_.duration * 1e6));
      if (sim_elapsed_ >= limit) {
        say("roce-sim: duration reached");
        stop_ = true;
      } else if (scenario_given_ && runner_->finished()) {
        say("roce-sim: scenario finished");
        stop_ = true;
      }
    }
  }

  // DIR/inject (inject.hpp): requests renamed (or written) into it are played as they arrive.
  // A previous run's leftovers go first: nobody waits for their answers.
  void watch_injections() {
    inject_dir_ = options_.dir / ROCE_SIM_INJECT_DIR;
    fs::create_directories(inject_dir_);
    for (const auto& entry : fs::directory_iterator(inject_dir_)) fs::remove_all(entry.path());
    inject_fd_ = Fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (inject_fd_.get() < 0) fail("inotify_init1");
    if (::inotify_add_watch(inject_fd_.get(), inject_dir_.c_str(),
                            IN_MOVED_TO | IN_CLOSE_WRITE | IN_ONLYDIR) < 0) {
      fail("inotify_add_watch " + inject_dir_.string());
    }
    watch(inject_fd_.get(), Kind::Inject);
  }

  void on_inject_events() {
    std::vector<std::string> names;
    bool overflow = false;
    alignas(inotify_event) char buffer[16384];
    for (;;) {
      const ssize_t n = ::read(inject_fd_.get(), buffer, sizeof buffer);
      if (n <= 0) break;
      for (ssize_t offset = 0; offset < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + offset);
        offset += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
        if (event->mask & IN_Q_OVERFLOW) overflow = true;
        if (event->len > 0 && !(event->mask & IN_ISDIR)) names.emplace_back(event->name);
      }
    }
    if (overflow) {  // events were lost: whatever requests are there
      names.clear();
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(inject_dir_, ec))
        names.push_back(entry.path().filename().string());
      std::sort(names.begin(), names.end());
    }
    for (const std::string& name : names) {
      if (const auto stem = inject_request_stem(name)) play(name, *stem);
    }
  }

  // One request: claimed, parsed, added to the runner at the current simulated time, answered.
  void play(const std::string& name, const std::string& stem) {
    // The claim: a rename that fails means the client withdrew it (or a repeated event for a
    // request already played).
    const fs::path claimed = inject_dir_ / ("." + name + ".claimed");
    if (::rename((inject_dir_ / name).c_str(), claimed.c_str()) != 0) return;
    std::ostringstream text;
    text << std::ifstream(claimed).rdbuf();
    ::unlink(claimed.c_str());
    const InjectRequest request = parse_inject_request(text.str(), name);

    std::string answer = "ok\n";
    try {
      Scenario scenario =
          parse_scenario_yaml(request.document, request.source, ScenarioUse::Inject);
      advance_to_now();  // `at` counts from this instant
      publish_events();
      const bool fresh = !runner_;
      if (fresh) {  // no scenario at start: an empty one, its clock at the node's
        runner_.emplace(node_, Scenario{});
        runner_->advance(sim_elapsed_);
      }
      try {
        runner_->inject(std::move(scenario));
      } catch (...) {
        if (fresh) runner_.reset();
        throw;
      }
      runner_->advance(std::chrono::microseconds{0});  // what is due at once
      for (const std::string& line : runner_->take_log()) say(line);
      mirror_.apply_file_modes();
    } catch (const std::exception& error) {
      answer = std::string("error: ") + error.what() + "\n";
      say("roce-sim: injection refused: " + std::string(error.what()));
    }
    publish_events();
    const fs::path temp = inject_dir_ / ("." + stem + ".result.tmp");
    std::ofstream(temp) << answer;
    std::error_code ec;
    fs::rename(temp, inject_dir_ / (stem + ".result"), ec);
  }

  // Simulated time is (real time since the epoch) x speed, rounded down to whole microseconds
  // once: steps of any size and number (ticks, requests) add up to it without drift.
  Clock::time_point advance_to_now() {
    const auto now = Clock::now();
    const auto real_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now - epoch_).count();
    const auto target = std::chrono::microseconds(static_cast<int64_t>(
        std::floor(static_cast<long double>(real_ns) * static_cast<long double>(speed_) / 1000)));
    if (target > sim_elapsed_) {
      const auto step = target - sim_elapsed_;
      sim_elapsed_ = target;
      if (runner_) {
        runner_->advance(step);
        for (const std::string& text : runner_->take_log()) say(text);
      } else {
        node_.advance(step);  // no scenario: links still train
      }
    }
    return now;
  }

  void cleanup() {
    clients_.clear();
    rtnl_listener_.reset();
    ethtool_listener_.reset();
    rdma_listener_.reset();
    genl_listener_.reset();
    lldp_listener_.reset();
    ::unlink(lldp_path_.c_str());
    ::unlink(rtnl_path_.c_str());
    ::unlink(ethtool_path_.c_str());
    ::unlink(rdma_path_.c_str());
    ::unlink(genl_path_.c_str());
    ::unlink(pid_path_.c_str());
    ::unlink((options_.dir / ROCE_SIM_CAPSFILE).c_str());
    ::unlink(clock_path_.c_str());
    ::unlink((options_.dir / kHeldFile).c_str());
  }

  static std::vector<std::string> netdevs(Node& node) {
    std::vector<std::string> names;
    for (Port* port : node.ports()) names.push_back(port->netdev());
    return names;
  }

  const RunOptions& options_;
  Node node_;
  WriteCounter writes_;
  RtnlService rtnl_;
  EthtoolService ethtool_;
  RdmaNlService rdma_;
  GenlService genl_;
  FileMirror mirror_;
  std::optional<ScenarioRunner> runner_;
  // Ends the run with --duration when finished; a runner made for injections does not.
  bool scenario_given_ = false;
  double speed_ = 1.0;
  Fd epoll_, signal_fd_, timer_, rtnl_listener_, ethtool_listener_, rdma_listener_, genl_listener_,
      lldp_listener_, inject_fd_;
  fs::path rtnl_path_, ethtool_path_, rdma_path_, genl_path_, lldp_path_, pid_path_, clock_path_,
      inject_dir_;
  std::map<int, Kind> kinds_;
  std::map<int, std::unique_ptr<Client>> clients_;
  std::vector<HeldReply> held_;
  bool pwait2_ = true;  // epoll_pwait2 answered (not ENOSYS)
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(ROCE_SIM_MAX_DATAGRAM);
  Clock::time_point epoch_;  // simulated time 0 (DIR/roce-sim.clock)
  std::chrono::microseconds sim_elapsed_{0};
  bool stop_ = false;
};

}  // namespace

int run(const RunOptions& options) {
  std::vector<PortSpec> specs;
  std::optional<Scenario> scenario;
  try {
    specs = options.node_file ? load_node_file(*options.node_file) : default_node();
    if (options.link_training_ms) {
      for (PortSpec& spec : specs) spec.link_training_ms = options.link_training_ms;
    }
    if (options.scenario_file) scenario = load_scenario_file(*options.scenario_file);
    Server server(options, std::move(specs), std::move(scenario));
    return server.run();
  } catch (const FileError& error) {
    std::cerr << error.what() << std::endl;
    return 1;
  } catch (const std::exception& error) {
    std::cerr << "roce-sim: " << error.what() << std::endl;
    return 2;
  }
}

}  // namespace roce_sim::server
