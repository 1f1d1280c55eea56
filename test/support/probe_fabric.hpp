// SPDX-License-Identifier: Apache-2.0
#pragma once
// A fabric of probe queue pairs in process, on the test's clock: each endpoint is a
// probe::ProbeTransport; a message posted arrives at its remote one link delay after its send
// completes, unless the link drops it. Every endpoint has a completion clock of its own (an
// offset from the test's), as two NICs' clocks are unrelated.
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "probe/transport.hpp"

namespace roced::test {

class ProbeFabric {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  struct Link {
    std::chrono::nanoseconds one_way{std::chrono::microseconds(5)};
    double loss = 0;  // a share of the messages, dropped evenly (every tenth at 0.1)
  };
  struct Posted {
    std::string from;
    probe::Remote to;
    uint32_t flow_label = 0;
    probe::MessageKind kind = probe::MessageKind::Probe;
  };

  class Endpoint : public probe::ProbeTransport {
   public:
    Endpoint(ProbeFabric& fabric, std::string address, uint32_t qpn,
             std::chrono::nanoseconds clock_offset)
        : fabric_(fabric), address_(std::move(address)), qpn_(qpn), offset_(clock_offset) {}

    Result<void> post(const probe::Remote& to, const probe::MessageBytes& message,
                      uint32_t flow_label, uint64_t wr) override {
      if (!fabric_.reachable(to.address)) {
        return Error{EHOSTUNREACH, to.address + ": no probe service resolved"};
      }
      if (to.qpn == 0 && fabric_.now_ < fabric_.resolved_at(to.address)) {
        return Error{EAGAIN, to.address + ": its probe service is being resolved"};
      }
      const TimePoint sent = fabric_.now_ + fabric_.send_time;
      queue_.push_back({sent, probe::Completion{probe::Completion::Kind::Sent, wr, 0, {}, {}}});
      fabric_.carry(*this, to, message, flow_label, sent);
      return ok();
    }

    void poll(std::vector<probe::Completion>& out) override {
      while (!queue_.empty() && queue_.front().first <= fabric_.now_) {
        probe::Completion completion = std::move(queue_.front().second);
        completion.at_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               queue_.front().first.time_since_epoch() + offset_)
                               .count();
        out.push_back(std::move(completion));
        queue_.pop_front();
      }
    }

    // When its next completion is due, if any is queued.
    std::optional<TimePoint> next_at() const {
      if (queue_.empty()) return std::nullopt;
      return queue_.front().first;
    }
    const std::string& address() const { return address_; }
    uint32_t qpn() const { return qpn_; }

   private:
    friend class ProbeFabric;
    void arrive(TimePoint at, probe::Completion completion) {
      auto it = queue_.end();
      while (it != queue_.begin() && std::prev(it)->first > at) --it;
      queue_.insert(it, {at, std::move(completion)});
    }

    ProbeFabric& fabric_;
    std::string address_;
    uint32_t qpn_;
    std::chrono::nanoseconds offset_;
    std::deque<std::pair<TimePoint, probe::Completion>> queue_;  // in time order
  };

  explicit ProbeFabric(TimePoint start) : now_(start) {}

  Endpoint& add(const std::string& address, uint32_t qpn,
                std::chrono::nanoseconds clock_offset = std::chrono::nanoseconds(0)) {
    auto endpoint = std::make_unique<Endpoint>(*this, address, qpn, clock_offset);
    Endpoint& added = *endpoint;
    endpoints_[address] = std::move(endpoint);
    return added;
  }
  // The link from one address to another (each direction its own); unset links take `link`.
  void set_link(const std::string& from, const std::string& to, Link of_it) {
    links_[{from, to}] = LinkState{of_it, 0};
  }
  // Probes to `address` find its service still being resolved until `at`.
  void resolve_at(const std::string& address, TimePoint at) { resolved_at_[address] = at; }
  void advance_to(TimePoint at) { now_ = at; }
  TimePoint now() const { return now_; }
  const std::vector<Posted>& posted() const { return posted_; }

  Link link;                                                         // the default
  std::chrono::nanoseconds send_time{std::chrono::microseconds(2)};  // post to send completion

 private:
  struct LinkState {
    Link link;
    uint64_t carried = 0;
  };

  bool reachable(const std::string& address) const { return endpoints_.count(address) > 0; }
  TimePoint resolved_at(const std::string& address) const {
    const auto it = resolved_at_.find(address);
    return it == resolved_at_.end() ? TimePoint{} : it->second;
  }

  void carry(const Endpoint& from, const probe::Remote& to, const probe::MessageBytes& message,
             uint32_t flow_label, TimePoint sent) {
    const auto decoded = probe::decode(message);
    posted_.push_back(
        {from.address(), to, flow_label, decoded ? decoded->kind : probe::MessageKind::Probe});
    auto [it, added] = links_.try_emplace({from.address(), to.address}, LinkState{link, 0});
    LinkState& state = it->second;
    const uint64_t n = state.carried++;
    const double loss = state.link.loss;
    if (std::floor(static_cast<double>(n + 1) * loss) > std::floor(static_cast<double>(n) * loss)) {
      return;
    }
    Endpoint& remote = *endpoints_.at(to.address);
    if (to.qpn != 0 && to.qpn != remote.qpn()) return;  // no such queue pair there
    probe::Completion received;
    received.kind = probe::Completion::Kind::Received;
    received.from = {from.address(), from.qpn()};
    received.bytes.assign(message.begin(), message.end());
    remote.arrive(sent + state.link.one_way, std::move(received));
  }

  TimePoint now_;
  std::map<std::string, std::unique_ptr<Endpoint>> endpoints_;
  std::map<std::pair<std::string, std::string>, LinkState> links_;
  std::vector<Posted> posted_;
  std::map<std::string, TimePoint> resolved_at_;
};

}  // namespace roced::test
