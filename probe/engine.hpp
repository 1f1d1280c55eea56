// SPDX-License-Identifier: Apache-2.0
#pragma once
// Path probing on one node: each local port probes its targets on the schedule (probe/schedule)
// and answers its peers' probes, over its transport (probe/transport). A probe's fate goes into
// its path's window (probe/window): answered with the network's share of its round trip
// (probe/rtt), answered without a time to trust, or lost once the timeout passed without a first
// answer. No threads and no clock of its own: the caller turns it, with the time, whenever a
// transport has completions or the time it asked for has come.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probe/localize.hpp"
#include "probe/rtt.hpp"
#include "probe/schedule.hpp"
#include "probe/settings.hpp"
#include "probe/transport.hpp"
#include "probe/window.hpp"

namespace roced::probe {

struct ProbePort {
  std::string netdev;
  ProbeTransport* transport = nullptr;  // outlives the engine
  std::vector<ProbePeer> targets;       // the peers this port probes
};

// Since the engine started, per path.
struct PathCounters {
  uint64_t sent = 0;
  uint64_t answered = 0;  // timed or not
  uint64_t lost = 0;      // no first answer within the timeout, or the send failed
  uint64_t send_failed = 0;
  bool operator==(const PathCounters&) const = default;
};

struct PathReport {
  std::string port;
  ProbePeer peer;
  PathCounters totals;
  size_t judged = 0;  // probes of the window whose fate is known
  double loss_ratio = 0;
  std::optional<std::chrono::nanoseconds> rtt_p99;
  bool bad = false;  // judged, and past a threshold
};

struct RttSample {
  std::string port;
  std::string group;
  RttBreakdown rtt;
};

// A port's answering: what it answered, and what it refused (not a probe of ours, or over its
// answer rate).
struct ResponderCounters {
  uint64_t answered = 0;
  uint64_t malformed = 0;
  uint64_t over_rate = 0;
  bool operator==(const ResponderCounters&) const = default;
};

class ProbeEngine {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  // A path's window is judged once this many of its probes' fates are known: fewer say little
  // (one loss in five reads as 20 %).
  static constexpr size_t kMinJudged = 10;
  // And one loss is never enough: a path probed a few times a second over a window sees too few
  // probes for one loss to say 2 %.
  static constexpr size_t kMinLosses = 2;
  // A port answers at most this many probes a second (a burst of a tenth of it): a peer, or
  // many, probing too fast cannot make it a traffic source.
  static constexpr double kAnswersPerSecond = 1000;

  ProbeEngine(const ProbeSettings& settings, std::vector<ProbePort> ports, TimePoint start,
              uint64_t seed);

  // Handles each transport's completions, sends the probes due and settles those timed out.
  // Returns when it next has something to do by the clock (a transport's completions may come
  // sooner: the caller also waits on them).
  // `send` false: completions and timeouts only (a one-shot prober that sent its count).
  TimePoint turn(TimePoint now, bool send = true);

  // Every path, its window as of `now`.
  std::vector<PathReport> paths(TimePoint now);
  // Where the bad paths point (probe/localize), as of `now`.
  std::vector<Blame> blame(TimePoint now);
  // The timed answers since the last call.
  std::vector<RttSample> take_rtts();
  const ResponderCounters& responder(size_t port) const { return ports_.at(port).responder; }
  size_t in_flight() const { return in_flight_.size(); }

 private:
  struct Path {
    ProbePeer peer;
    PathWindow window;
    PathCounters totals;
  };
  struct Port {
    ProbePort config;
    std::vector<Path> paths;  // one per target, in targets' order
    ResponderCounters responder;
    double answer_tokens = kAnswersPerSecond / 10;
    TimePoint tokens_at;
  };
  struct InFlight {
    size_t port = 0;
    size_t path = 0;
    TimePoint deadline;
    ExchangeTimes times;
    bool sent = false, first = false, second = false;  // t2, t5, t3/t4 known
  };
  struct Answering {  // a first answer posted, its completion awaited for the second
    size_t port = 0;
    Remote to;
    ProbeMessage first;
  };

  void handle(size_t port, const Completion& completion, TimePoint now);
  void on_received(size_t port, const Completion& completion, TimePoint now);
  void on_probe(size_t port, const Completion& completion, const ProbeMessage& probe,
                TimePoint now);
  void on_answer(size_t port, const ProbeMessage& answer, int64_t at_ns, TimePoint now);
  void on_sent(const Completion& completion, TimePoint now);
  void on_send_failed(const Completion& completion, TimePoint now);
  bool take_answer_token(Port& port, TimePoint now);
  void send_due(TimePoint now);
  void settle_timeouts(TimePoint now);
  void finish(uint64_t sequence, TimePoint now);
  void lose(std::map<uint64_t, InFlight>::iterator it, TimePoint now, bool send_failed);
  bool bad(const Path& path) const;

  ProbeSettings settings_;
  std::vector<Port> ports_;
  ProbeSchedule schedule_;
  uint64_t next_sequence_;
  uint64_t next_answer_ = 0;
  std::map<uint64_t, InFlight> in_flight_;   // by sequence
  std::map<uint64_t, Answering> answering_;  // by the first answer's work request
  std::vector<RttSample> rtts_;
};

}  // namespace roced::probe
