// SPDX-License-Identifier: Apache-2.0
#include "probe/engine.hpp"

#include <algorithm>
#include <cerrno>

namespace roced::probe {

namespace {

// A work request's kind rides in its top bits: a probe's is its sequence number (below 2^62).
constexpr uint64_t kFirstAnswerWr = 1ULL << 63;
constexpr uint64_t kSecondAnswerWr = 1ULL << 62;
constexpr uint64_t kKindBits = kFirstAnswerWr | kSecondAnswerWr;

int64_t nanoseconds(ProbeEngine::TimePoint at) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
}

ScheduleSettings schedule_settings(const ProbeSettings& settings) {
  ScheduleSettings out;
  out.probes_per_second_per_port = settings.rate;
  out.probes_per_second_total = settings.budget;
  return out;
}

std::vector<size_t> target_counts(const std::vector<ProbePort>& ports) {
  std::vector<size_t> counts;
  counts.reserve(ports.size());
  for (const ProbePort& port : ports) counts.push_back(port.targets.size());
  return counts;
}

}  // namespace

ProbeEngine::ProbeEngine(const ProbeSettings& settings, std::vector<ProbePort> ports,
                         TimePoint start, uint64_t seed)
    : settings_(settings),
      schedule_(schedule_settings(settings), target_counts(ports), start, seed),
      // Sequences start at a random point: an answer cannot be guessed from the last one seen.
      next_sequence_((seed * 0x9e3779b97f4a7c15ULL) >> 3 & ~kKindBits) {
  for (ProbePort& config : ports) {
    Port port;
    for (const ProbePeer& peer : config.targets) {
      port.paths.push_back({peer, PathWindow(settings.window), {}});
    }
    port.config = std::move(config);
    port.tokens_at = start;
    ports_.push_back(std::move(port));
  }
}

ProbeEngine::TimePoint ProbeEngine::turn(TimePoint now, bool send) {
  std::vector<Completion> completions;
  for (size_t port = 0; port < ports_.size(); ++port) {
    completions.clear();
    ports_[port].config.transport->poll(completions);
    for (const Completion& completion : completions) handle(port, completion, now);
  }
  settle_timeouts(now);
  TimePoint next = TimePoint::max();
  if (send) {
    send_due(now);
    next = schedule_.next_due();
  }
  for (const auto& [sequence, flight] : in_flight_) next = std::min(next, flight.deadline);
  return next;
}

void ProbeEngine::handle(size_t port, const Completion& completion, TimePoint now) {
  switch (completion.kind) {
    case Completion::Kind::Received:
      on_received(port, completion, now);
      break;
    case Completion::Kind::Sent:
      on_sent(completion, now);
      break;
    case Completion::Kind::SendFailed:
      on_send_failed(completion, now);
      break;
  }
}

void ProbeEngine::on_received(size_t port, const Completion& completion, TimePoint now) {
  const auto message = decode(completion.bytes);
  if (!message) {
    ++ports_[port].responder.malformed;
    return;
  }
  if (message->kind == MessageKind::Probe) {
    on_probe(port, completion, *message, now);
  } else {
    on_answer(port, *message, completion.at_ns, now);
  }
}

// The first answer goes out at once, stamped with the probe's receive completion (t3); the
// second follows when the first's send completes (t4, on_sent).
void ProbeEngine::on_probe(size_t port, const Completion& completion, const ProbeMessage& probe,
                           TimePoint now) {
  Port& self = ports_[port];
  if (!take_answer_token(self, now)) {
    ++self.responder.over_rate;
    return;
  }
  ProbeMessage first{MessageKind::FirstAnswer, probe.sequence, probe.sent_ns,
                     static_cast<uint64_t>(completion.at_ns), 0};
  const uint64_t wr = kFirstAnswerWr | (next_answer_++ & ~kKindBits);
  if (!self.config.transport->post(completion.from, encode(first), 0, wr)) return;
  ++self.responder.answered;
  answering_[wr] = Answering{port, completion.from, first};
}

bool ProbeEngine::take_answer_token(Port& port, TimePoint now) {
  const double burst = kAnswersPerSecond / 10;
  const std::chrono::duration<double> since = now - port.tokens_at;
  port.tokens_at = now;
  port.answer_tokens = std::min(burst, port.answer_tokens + since.count() * kAnswersPerSecond);
  if (port.answer_tokens < 1) return false;
  port.answer_tokens -= 1;
  return true;
}

void ProbeEngine::on_answer(size_t port, const ProbeMessage& answer, int64_t at_ns, TimePoint now) {
  const auto it = in_flight_.find(answer.sequence);
  // Late (already settled), another port's, or not an answer to anything we sent.
  if (it == in_flight_.end() || it->second.port != port) return;
  InFlight& flight = it->second;
  if (answer.kind == MessageKind::FirstAnswer && !flight.first) {
    flight.first = true;
    flight.times.t5 = at_ns;
  } else if (answer.kind == MessageKind::SecondAnswer && !flight.second) {
    flight.second = true;
    flight.times.t3 = static_cast<int64_t>(answer.received_ns);
    flight.times.t4 = static_cast<int64_t>(answer.answered_ns);
    flight.times.t6 = nanoseconds(now);
  }
  if (flight.sent && flight.first && flight.second) finish(answer.sequence, now);
}

void ProbeEngine::on_sent(const Completion& completion, TimePoint now) {
  if ((completion.wr & kFirstAnswerWr) != 0) {
    const auto it = answering_.find(completion.wr);
    if (it == answering_.end()) return;
    Answering& answering = it->second;
    ProbeMessage second = answering.first;
    second.kind = MessageKind::SecondAnswer;
    second.answered_ns = static_cast<uint64_t>(completion.at_ns);
    const uint64_t wr = kSecondAnswerWr | (completion.wr & ~kKindBits);
    (void)ports_[answering.port].config.transport->post(answering.to, encode(second), 0, wr);
    answering_.erase(it);
    return;
  }
  if ((completion.wr & kSecondAnswerWr) != 0) return;
  const auto it = in_flight_.find(completion.wr);
  if (it == in_flight_.end() || it->second.sent) return;
  InFlight& flight = it->second;
  flight.sent = true;
  flight.times.t2 = completion.at_ns;
  // The answers can be polled before the probe's own send completion.
  if (flight.first && flight.second) finish(completion.wr, now);
}

void ProbeEngine::on_send_failed(const Completion& completion, TimePoint now) {
  if ((completion.wr & kFirstAnswerWr) != 0) {
    answering_.erase(completion.wr);
    return;
  }
  if ((completion.wr & kSecondAnswerWr) != 0) return;
  const auto it = in_flight_.find(completion.wr);
  if (it != in_flight_.end()) lose(it, now, true);
}

void ProbeEngine::send_due(TimePoint now) {
  for (const DueProbe& due : schedule_.take_due(now)) {
    Port& port = ports_[due.port];
    Path& path = port.paths[due.target];
    const uint64_t sequence = next_sequence_;
    next_sequence_ = (next_sequence_ + 1) & ~kKindBits;
    InFlight flight{due.port, due.target, now + settings_.timeout, {}, false, false, false};
    flight.times.t1 = nanoseconds(now);
    const ProbeMessage probe{MessageKind::Probe, sequence, static_cast<uint64_t>(flight.times.t1),
                             0, 0};
    auto posted = port.config.transport->post({path.peer.address, 0}, encode(probe), due.flow_label,
                                              sequence);
    // Its service still being resolved: not sent, so neither lost nor answered.
    if (!posted && posted.error().code == EAGAIN) continue;
    ++path.totals.sent;
    if (!posted) {
      // Not reachable from here (its service could not be resolved, no route): this port's.
      ++path.totals.send_failed;
      ++path.totals.lost;
      path.window.lost(now);
      continue;
    }
    in_flight_.emplace(sequence, flight);
  }
}

void ProbeEngine::settle_timeouts(TimePoint now) {
  for (auto it = in_flight_.begin(); it != in_flight_.end();) {
    if (it->second.deadline > now) {
      ++it;
      continue;
    }
    const auto next = std::next(it);
    if (it->second.first) {
      // Reached the peer and came back, but the rest of the exchange did not: no time to give.
      Path& path = ports_[it->second.port].paths[it->second.path];
      ++path.totals.answered;
      path.window.answered_untimed(now);
      in_flight_.erase(it);
    } else {
      lose(it, now, false);
    }
    it = next;
  }
}

void ProbeEngine::lose(std::map<uint64_t, InFlight>::iterator it, TimePoint now, bool send_failed) {
  Path& path = ports_[it->second.port].paths[it->second.path];
  ++path.totals.lost;
  if (send_failed) ++path.totals.send_failed;
  path.window.lost(now);
  in_flight_.erase(it);
}

void ProbeEngine::finish(uint64_t sequence, TimePoint now) {
  const auto it = in_flight_.find(sequence);
  const InFlight& flight = it->second;
  Port& port = ports_[flight.port];
  Path& path = port.paths[flight.path];
  ++path.totals.answered;
  if (const auto rtt = breakdown(flight.times)) {
    path.window.answered(now, rtt->network);
    rtts_.push_back({port.config.netdev, path.peer.group, *rtt});
  } else {
    path.window.answered_untimed(now);
  }
  in_flight_.erase(it);
}

bool ProbeEngine::bad(const Path& path) const {
  if (path.window.probes() < kMinJudged) return false;
  if (path.window.losses() >= kMinLosses && path.window.loss_ratio() > settings_.loss_ratio) {
    return true;
  }
  const auto p99 = path.window.rtt_quantile(0.99);
  return p99 && *p99 > settings_.rtt_p99;
}

std::vector<PathReport> ProbeEngine::paths(TimePoint now) {
  std::vector<PathReport> reports;
  for (Port& port : ports_) {
    for (Path& path : port.paths) {
      path.window.trim(now);
      PathReport report;
      report.port = port.config.netdev;
      report.peer = path.peer;
      report.totals = path.totals;
      report.judged = path.window.probes();
      report.loss_ratio = path.window.loss_ratio();
      report.rtt_p99 = path.window.rtt_quantile(0.99);
      report.bad = bad(path);
      reports.push_back(std::move(report));
    }
  }
  return reports;
}

std::vector<Blame> ProbeEngine::blame(TimePoint now) {
  std::vector<PathState> states;
  for (const PathReport& report : paths(now)) {
    states.push_back({report.port, report.peer.address, report.peer.group, report.bad});
  }
  return localize(states);
}

std::vector<RttSample> ProbeEngine::take_rtts() {
  std::vector<RttSample> out;
  out.swap(rtts_);
  return out;
}

}  // namespace roced::probe
