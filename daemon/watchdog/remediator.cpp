// SPDX-License-Identifier: Apache-2.0
#include "daemon/watchdog/remediator.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>

#include "daemon/watchdog/storm_log.hpp"

namespace roced::watchdog {

namespace {

using watchdog::WatchdogAction;

bool has_unsupported(const apply::PortResult& result, plan::Setting setting) {
  return std::any_of(result.unsupported.begin(), result.unsupported.end(),
                     [&](const plan::Unsupported& item) { return item.setting == setting; });
}

// Whether the hold (stall prevention, else PFC off on `priority`) is part of `remediation`.
bool holds(const reconcile::Remediation& remediation, int priority, bool stall) {
  return stall ? remediation.stall_prevention_timeout.has_value()
               : ((remediation.pfc_off >> priority) & 1u) != 0;
}

std::string seconds_text(Clock::duration duration) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(duration).count()) + " s";
}

}  // namespace

std::string_view notice_kind_name(StormNotice::Kind kind) {
  return kNoticeKindNames.name(kind, "escalated");
}

Remediator::Remediator(watchdog::WatchdogSettings settings, Remediate remediate)
    : settings_(settings),
      remediate_(std::move(remediate)),
      budget_(static_cast<size_t>(settings.max_actions_per_hour)) {}

void Remediator::on_settings(const watchdog::WatchdogSettings& settings) {
  settings_ = settings;
  budget_.set_max_actions(static_cast<size_t>(settings.max_actions_per_hour));
}

void Remediator::on_notice(Listener listener) {
  std::lock_guard lock(listeners_mutex_);
  listeners_.push_back(std::move(listener));
}

std::vector<StormStats> Remediator::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<StormStats> out;
  out.reserve(storms_.size());
  for (const auto& [key, storm] : storms_) out.push_back(storm.stats);
  return out;
}

StormNotice Remediator::notice(StormNotice::Kind kind, const Key& key, const Storm& storm) const {
  StormNotice n;
  n.kind = kind;
  n.netdev = std::get<0>(key);
  n.priority = std::get<1>(key);
  n.direction = std::get<2>(key);
  n.action = storm.action;
  return n;
}

void Remediator::escalate(const Key& key, Storm& storm, std::string reason, bool critical,
                          std::string message, std::vector<StormNotice>& out) {
  ++storm.stats.escalations[reason];
  StormNotice n = notice(StormNotice::Kind::Escalated, key, storm);
  n.reason = std::move(reason);
  n.critical = critical;
  n.message = std::move(message);
  out.push_back(std::move(n));
}

void Remediator::on_round(const std::vector<watchdog::PortStormEvent>& events,
                          watchdog::StormWatch& watch, Clock::time_point now) {
  std::vector<StormNotice> out;
  {
    std::lock_guard lock(mutex_);
    collect_applies(watch, now, out);
    for (const auto& event : events) handle(event, now, out);
    review_holds(watch, now, out);
    start_applies(now);
  }
  if (out.empty()) return;
  std::vector<Listener> listeners;
  {
    std::lock_guard lock(listeners_mutex_);
    listeners = listeners_;
  }
  for (const auto& n : out) {
    for (const auto& listener : listeners) listener(n);
  }
}

bool Remediator::PutBack::ok() const {
  return result.outcome == apply::PortResult::Outcome::Applied ||
         result.outcome == apply::PortResult::Outcome::InSync;
}

std::vector<Remediator::PutBack> Remediator::put_back_all() {
  std::map<std::string, Port> ports;
  {
    std::lock_guard lock(mutex_);
    ports = std::move(ports_);
    ports_.clear();
  }
  std::vector<PutBack> out;
  for (auto& [netdev, port] : ports) {
    if (port.pending) {
      const apply::PortResult result = port.pending->result.get();
      const PutBack answered{netdev, {}, result};
      if (answered.ok()) port.applied = port.pending->target;
    }
    if (port.applied.empty()) continue;
    PutBack back{netdev, port.applied, remediate_(netdev, reconcile::Remediation{}).get()};
    out.push_back(std::move(back));
  }
  std::lock_guard lock(mutex_);
  for (auto& [key, storm] : storms_) {
    storm.hold = storm.acting = storm.in_effect = Hold::none;
    storm.stats.remediated = storm.stats.held = false;
  }
  return out;
}

void Remediator::on_port_forgotten(const std::string& netdev) {
  std::lock_guard lock(mutex_);
  // Its detectors are gone (a driver reload, the port deselected): so are its storms. A hold
  // that was applied is released (start_applies: the port's worker, or its next incarnation,
  // plans without it); the counters stay, as Prometheus counters must.
  for (auto& [key, storm] : storms_) {
    if (std::get<0>(key) != netdev) continue;
    storm.hold = Hold::none;
    storm.acting = Hold::none;
    storm.stats.active = false;
    storm.stats.held = false;
  }
}

bool Remediator::holding() const {
  std::lock_guard lock(mutex_);
  const bool wanted = std::any_of(storms_.begin(), storms_.end(), [](const auto& storm) {
    return storm.second.hold != Hold::none;
  });
  return wanted || std::any_of(ports_.begin(), ports_.end(), [](const auto& port) {
           return port.second.pending.has_value() || !port.second.applied.empty();
         });
}

Remediator::Storm& Remediator::storm_of(const Key& key) {
  auto [it, added] = storms_.try_emplace(key);
  Storm& storm = it->second;
  if (!added) return storm;
  const auto& [netdev, priority, direction] = key;
  storm.stats.netdev = netdev;
  storm.stats.priority = priority;
  storm.stats.direction = direction;
  for (const char* reason : {"remediation-failed", "action-failed", "budget-spent"}) {
    storm.stats.escalations[reason] = 0;
  }
  const WatchdogAction action = settings_.action_for(direction == Direction::rx);
  if (action != WatchdogAction::alert) {
    for (const char* result : {"ok", "failed"}) {
      storm.stats.actions[{std::string(watchdog::action_name(action)), result}] = 0;
    }
  }
  return storm;
}

void Remediator::on_targets(const std::vector<WatchedPort>& ports) {
  std::lock_guard lock(mutex_);
  for (const auto& port : ports) {
    for (int priority = 0; priority < 8; ++priority) {
      if (((port.lossless >> priority) & 1u) == 0) continue;
      for (const Direction direction : {Direction::rx, Direction::tx}) {
        storm_of({port.port.netdev, priority, direction});
      }
    }
  }
}

void Remediator::handle(const watchdog::PortStormEvent& event, Clock::time_point now,
                        std::vector<StormNotice>& out) {
  const Key key{event.netdev, event.priority, event.direction};
  Storm& storm = storm_of(key);
  const std::string place = storm_place(event.priority, event.direction);
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, watchdog::StormDetected>) {
          detected(key, storm, e, now, out);
        } else if constexpr (std::is_same_v<E, watchdog::RemediationVerified>) {
          StormNotice n = notice(StormNotice::Kind::Remediated, key, storm);
          n.at = e.at;
          n.message = "PFC storm on " + place + ": " + storm.action + " stopped it (checked over " +
                      std::to_string(e.polls) + " polls)";
          out.push_back(std::move(n));
        } else if constexpr (std::is_same_v<E, watchdog::RemediationUnverified>) {
          StormNotice n = notice(StormNotice::Kind::Unverified, key, storm);
          n.at = e.at;
          n.message = "PFC storm on " + place + ": " + storm.action +
                      " is in effect, but whether it freed the port's transmit cannot be told: "
                      "the switch still sends pause frames and the port sent nothing on the "
                      "priority in " +
                      std::to_string(e.polls) +
                      " polls, as a port with nothing to send does; last poll: " +
                      evidence_text(e.evidence);
          out.push_back(std::move(n));
        } else if constexpr (std::is_same_v<E, watchdog::RemediationFailed>) {
          escalate(key, storm, "remediation-failed", true,
                   "PFC storm on " + place + ": " + storm.action + " did not stop it (" +
                       std::to_string(e.stormed_polls) + " of " + std::to_string(e.polls) +
                       " polls since still stormed); last poll: " + evidence_text(e.evidence),
                   out);
        } else {
          restored(key, storm, e, now, out);
        }
      },
      event.event);
}

void Remediator::detected(const Key& key, Storm& storm, const watchdog::StormDetected& event,
                          Clock::time_point now, std::vector<StormNotice>& out) {
  const std::string& netdev = std::get<0>(key);
  const Direction direction = std::get<2>(key);
  const std::string place = storm_place(std::get<1>(key), direction);
  ++storm.stats.detections;
  storm.stats.active = true;
  storm.stats.detection_latency.observe(event.latency);

  const WatchdogAction action = settings_.action_for(direction == Direction::rx);
  storm.action = event.by_nic ? "none" : std::string(watchdog::action_name(action));
  StormNotice n = notice(StormNotice::Kind::Detected, key, storm);
  n.at = event.at;
  n.interval = event.evidence.interval;
  n.latency = event.latency;
  n.message = "PFC storm on " + place + ", detected " + ms_text(event.latency) + " after it began" +
              (event.by_nic ? " by the NIC's stall prevention, which stopped pausing"
                            : " (" + std::to_string(event.stormed_polls) + " stormed polls)") +
              (event.recurrence ? "; it recurred soon after the last one, restoration now needs " +
                                      ms_text(event.restoration_time)
                                : "") +
              "; last poll: " + evidence_text(event.evidence);
  out.push_back(std::move(n));

  if (event.by_nic || action == WatchdogAction::alert) return;
  if (storm.hold != Hold::none) return;  // still in its safe state from before (held)
  if (!budget_.allow(netdev, now)) {
    const auto until = budget_.held_until(netdev, now);
    escalate(key, storm, "budget-spent", true,
             "PFC storm on " + place +
                 " left as it is: " + std::to_string(settings_.max_actions_per_hour) +
                 " actions on the port in the last hour (max_actions_per_hour)" +
                 (until ? "; the next is allowed in " + seconds_text(*until - now) : ""),
             out);
    return;
  }
  budget_.record(netdev, now);
  storm.hold = action == WatchdogAction::disable_pfc ? Hold::disable_pfc : Hold::stall_prevention;
  storm.acting = storm.hold;
}

void Remediator::restored(const Key& key, Storm& storm, const watchdog::StormRestored& event,
                          Clock::time_point now, std::vector<StormNotice>& out) {
  const std::string& netdev = std::get<0>(key);
  const std::string place = storm_place(std::get<1>(key), std::get<2>(key));
  ++storm.stats.restorations;
  storm.stats.active = false;
  StormNotice n = notice(StormNotice::Kind::Restored, key, storm);
  n.at = event.at;
  n.interval = event.interval;
  n.duration = event.storm_duration;
  n.message = "PFC storm on " + place + " ended: it lasted " + ms_text(event.storm_duration) +
              ", then " + ms_text(event.restoration_time) + " without a pause frame";
  const bool budget_spent = !budget_.allow(netdev, now);
  if (storm.hold != Hold::none && !budget_spent) {
    storm.hold = Hold::none;  // released by start_applies
    n.message += "; putting the configuration back";
  }
  out.push_back(std::move(n));
  if (storm.hold != Hold::none && budget_spent && !storm.stats.held) {
    storm.stats.held = true;
    const auto until = budget_.held_until(netdev, now);
    escalate(key, storm, "budget-spent", true,
             netdev + " stays in its safe state (" + storm.action + " on " + place +
                 "): " + std::to_string(settings_.max_actions_per_hour) +
                 " actions on the port in the last hour (max_actions_per_hour); released in " +
                 (until ? seconds_text(*until - now) : std::string("an hour")) +
                 " at the earliest, once no storm is seen",
             out);
  }
}

void Remediator::review_holds(watchdog::StormWatch& watch, Clock::time_point now,
                              std::vector<StormNotice>& out) {
  for (auto& [key, storm] : storms_) {
    if (storm.hold == Hold::none) continue;
    const auto& [netdev, priority, direction] = key;
    const watchdog::StormDetector* detector = watch.detector(netdev, priority, direction);
    if (detector == nullptr) {
      // The priority is no longer lossless (a reload changed the profile): nothing to hold.
      storm.hold = Hold::none;
      storm.acting = Hold::none;
      storm.stats.active = storm.stats.held = false;
      continue;
    }
    if (!storm.stats.held || !budget_.allow(netdev, now) ||
        detector->state() != watchdog::StormState::watching) {
      continue;
    }
    const auto last_pause = detector->last_pause();
    if (last_pause && now - *last_pause < settings_.restoration_time) continue;
    storm.hold = Hold::none;
    storm.stats.held = false;
    StormNotice n = notice(StormNotice::Kind::Released, key, storm);
    n.message = netdev + ": the action budget allows again and no storm was seen for " +
                ms_text(settings_.restoration_time) + ": putting the configuration back";
    out.push_back(std::move(n));
  }
}

void Remediator::collect_applies(watchdog::StormWatch& watch, Clock::time_point now,
                                 std::vector<StormNotice>& out) {
  for (auto& [netdev, port] : ports_) {
    if (!port.pending ||
        port.pending->result.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      continue;
    }
    const apply::PortResult result = port.pending->result.get();
    const reconcile::Remediation target = port.pending->target;
    port.pending.reset();
    const bool ok = result.outcome == apply::PortResult::Outcome::Applied ||
                    result.outcome == apply::PortResult::Outcome::InSync;
    if (ok) port.applied = target;

    for (auto& [key, storm] : storms_) {
      if (std::get<0>(key) != netdev) continue;
      const int priority = std::get<1>(key);
      const std::string place = storm_place(priority, std::get<2>(key));
      if (storm.acting != Hold::none &&
          holds(target, priority, storm.acting == Hold::stall_prevention)) {
        acted(key, storm, result, ok, watch, now, out);
      } else if (storm.in_effect != Hold::none && storm.hold != storm.in_effect &&
                 !holds(target, priority, storm.in_effect == Hold::stall_prevention)) {
        // This apply released the storm's hold.
        if (ok) {
          storm.in_effect = Hold::none;
        } else {
          port.retry_at = now + kReleaseRetry;
          // Unreadable: the port is going (a driver reload); its next incarnation plans without
          // the hold, and the retry finds no worker holding it. Anything else needs a human.
          if (result.outcome != apply::PortResult::Outcome::Unreadable) {
            escalate(key, storm, "action-failed", true,
                     netdev + ": could not put the configuration back after the storm on " + place +
                         " (" + apply::outcome_name(result.outcome) + ": " + result.error +
                         "); trying again",
                     out);
          }
        }
      }
      storm.stats.remediated = storm.in_effect != Hold::none;
    }
  }
}

void Remediator::acted(const Key& key, Storm& storm, const apply::PortResult& result, bool ok,
                       watchdog::StormWatch& watch, Clock::time_point now,
                       std::vector<StormNotice>& out) {
  const auto& [netdev, priority, direction] = key;
  const std::string place = storm_place(priority, direction);
  const Hold hold = std::exchange(storm.acting, Hold::none);
  const bool stall = hold == Hold::stall_prevention;
  const bool unsupported = ok && stall && has_unsupported(result, plan::Setting::StallPrevention);
  if (ok && !unsupported) {
    ++storm.stats.actions[{storm.action, "ok"}];
    storm.stats.last_action = {storm.action, "ok"};
    storm.in_effect = hold;
    // Restored while the apply ran: the hold is no longer wanted, and goes with the next apply.
    if (storm.hold != hold) return;
    watch.on_action(netdev, priority, direction, now);
    StormNotice n = notice(StormNotice::Kind::Acted, key, storm);
    n.message = "PFC storm on " + place + ": " +
                (stall ? "stall prevention tightened to " +
                             std::to_string(settings_.stall_prevention_timeout.count()) + " ms"
                       : std::string("PFC off on the priority (mlx5 flaps the link)")) +
                "; verifying over " + std::to_string(settings_.verify_polls) + " polls";
    out.push_back(std::move(n));
    return;
  }
  ++storm.stats.actions[{storm.action, "failed"}];
  storm.stats.last_action = {storm.action, "failed"};
  storm.hold = Hold::none;
  escalate(
      key, storm, "action-failed", true,
      "PFC storm on " + place + " not remediated: " + storm.action + " on " + netdev +
          (unsupported ? " is not supported here (no stall prevention in firmware)"
                       : " failed (" + apply::outcome_name(result.outcome) + "): " + result.error),
      out);
}

reconcile::Remediation Remediator::wanted(const std::string& netdev) const {
  reconcile::Remediation remediation;
  for (const auto& [key, storm] : storms_) {
    if (std::get<0>(key) != netdev) continue;
    if (storm.hold == Hold::disable_pfc) {
      remediation.pfc_off = static_cast<uint8_t>(remediation.pfc_off | (1u << std::get<1>(key)));
    } else if (storm.hold == Hold::stall_prevention) {
      remediation.stall_prevention_timeout = settings_.stall_prevention_timeout;
    }
  }
  return remediation;
}

void Remediator::start_applies(Clock::time_point now) {
  for (const auto& [key, storm] : storms_) {
    if (storm.hold != Hold::none) ports_.try_emplace(std::get<0>(key));
  }
  for (auto& [netdev, port] : ports_) {
    if (port.pending || now < port.retry_at) continue;
    const reconcile::Remediation want = wanted(netdev);
    if (want == port.applied) continue;
    port.pending = Pending{remediate_(netdev, want), want};
  }
}

}  // namespace roced::watchdog
