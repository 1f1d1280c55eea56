// SPDX-License-Identifier: Apache-2.0
// A port's worker: the check/apply/report loop, retry backoff and the events it announces.
#include "daemon/reconcile/port_worker.hpp"

#include <algorithm>
#include <set>

namespace roced::reconcile {

namespace {

using SteadyClock = std::chrono::steady_clock;
using config::DaemonSettings;

// How often a worker waiting for its predecessor looks up (and shows it is alive).
constexpr std::chrono::seconds kHeartbeatTick{1};

std::vector<std::string> setting_names(const std::vector<plan::Change>& changes) {
  std::vector<std::string> names;
  for (const auto& change : changes)
    names.push_back(plan::setting_name(change.setting, change.key));
  return names;
}

// Each setting group once (every DCQCN knob counts as "ecn.dcqcn").
std::set<std::string> setting_groups(const std::vector<plan::Change>& changes) {
  std::set<std::string> groups;
  for (const auto& change : changes) groups.insert(plan::setting_group_name(change.setting));
  return groups;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// What makes two drifts the same drift: the same settings, from the same values to the same.
std::string drift_signature(const plan::PortPlan& plan) {
  std::string signature;
  for (const auto& change : plan.changes) {
    signature += plan::setting_name(change.setting, change.key) + '=' + change.now + '>' +
                 change.wanted + ';';
  }
  return signature;
}

std::string describe_changes(const std::vector<plan::Change>& changes) {
  std::string text;
  for (const auto& change : changes) {
    text += (text.empty() ? "" : ", ") + plan::setting_name(change.setting, change.key) + " " +
            change.now + " -> " + change.wanted;
  }
  return text;
}

// A drift as it reads: what the port has now, and what the profile wants ("pfc.priorities is
// none, wanted 3"), never an arrow that reads as a change someone made.
std::string describe_drift(const std::vector<plan::Change>& changes) {
  std::string text;
  for (const auto& change : changes) {
    text += (text.empty() ? "" : "; ") + plan::setting_name(change.setting, change.key) + " is " +
            change.now + ", wanted " + change.wanted;
  }
  return text;
}

apply::PortResult not_applied(const std::string& netdev, const std::string& why) {
  apply::PortResult result;
  result.netdev = netdev;
  result.outcome = apply::PortResult::Outcome::Unreadable;
  result.error = why;
  return result;
}

void answer(std::vector<std::promise<apply::PortResult>>& requests,
            const apply::PortResult& result) {
  for (auto& request : requests) request.set_value(result);
  requests.clear();
}

}  // namespace

PortWorker::PortWorker(WorkerHost& host, DiscoveredPort port, std::shared_future<void> predecessor,
                       PortCounters counters)
    : host_(host),
      netdev_(port.netdev),
      predecessor_(std::move(predecessor)),
      heartbeat_(host.options().time->now().time_since_epoch().count()),
      done_future_(done_.get_future().share()) {
  snapshot_.port = std::move(port);
  snapshot_.counters = std::move(counters);
}

PortWorker::~PortWorker() {
  request_stop();
  join();
}

void PortWorker::start() {
  {
    std::lock_guard lock(mutex_);
    started_ = true;
  }
  wake();
}

void PortWorker::wake() {
  wake_.notify_all();  // a thread in run() sees the news
  const std::lock_guard thread_lock(thread_mutex_);
  {
    std::lock_guard lock(mutex_);
    if (!started_ || running_ || finished_) return;
    running_ = true;
    idle_ = false;
  }
  // The one before has left run() (running_ was false): joining it takes no time.
  if (thread_.joinable()) thread_.join();
  thread_ = time().start_thread([this] { run(); });
}

void PortWorker::mark_dirty(bool settle) {
  {
    std::lock_guard lock(mutex_);
    dirty_ = true;
    settle_ = settle_ || settle;
  }
  wake();
}

void PortWorker::recheck(bool reset_backoff) {
  {
    std::lock_guard lock(mutex_);
    dirty_ = true;
    if (reset_backoff) next_retry_.reset();
  }
  wake();
}

std::future<apply::PortResult> PortWorker::enqueue(
    const std::function<void(std::promise<apply::PortResult>)>& add) {
  std::promise<apply::PortResult> request;
  auto result = request.get_future();
  {
    std::lock_guard lock(mutex_);
    if (finished_) {
      request.set_value(not_applied(netdev_, "the port's worker has stopped"));
      return result;
    }
    add(std::move(request));
  }
  wake();
  return result;
}

std::future<apply::PortResult> PortWorker::request_apply() {
  return enqueue([this](std::promise<apply::PortResult> request) {
    apply_requests_.push_back(std::move(request));
  });
}

std::future<apply::PortResult> PortWorker::request_remediation(Remediation remediation) {
  return enqueue([this, &remediation](std::promise<apply::PortResult> request) {
    remediation_requests_.emplace_back(remediation, std::move(request));
  });
}

void PortWorker::request_stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_signal_.raise();
  wake();  // a worker without a thread finishes on one
}

void PortWorker::join() {
  // Joined outside thread_mutex_: the thread may still call wake() on itself (a port that
  // vanished stops its own worker).
  std::thread thread;
  {
    const std::lock_guard thread_lock(thread_mutex_);
    thread.swap(thread_);
  }
  if (thread.joinable()) thread.join();
}

bool PortWorker::stopping() const {
  std::lock_guard lock(mutex_);
  return stop_;
}

void PortWorker::beat() { heartbeat_ = time().now().time_since_epoch().count(); }

bool PortWorker::alive(SteadyClock::time_point now, std::chrono::milliseconds window) const {
  if (finished_ || idle_) return true;  // a stopped or waiting worker is not a hung one
  const SteadyClock::time_point last{SteadyClock::duration(heartbeat_.load())};
  return now - last <= window;
}

PortSnapshot PortWorker::snapshot() const {
  std::lock_guard lock(mutex_);
  return snapshot_;
}

ManagedPort PortWorker::managed_port() const {
  std::lock_guard lock(mutex_);
  return {snapshot_.port, snapshot_.condition};
}

void PortWorker::run() {
  // An earlier worker of this netdev may still be finishing an apply.
  while (predecessor_.valid() &&
         predecessor_.wait_for(kHeartbeatTick) != std::future_status::ready) {
    beat();
    if (stopping()) break;
  }
  std::unique_lock lock(mutex_);
  predecessor_ = {};
  while (!stop_) {
    beat();
    if (!remediation_requests_.empty()) {
      // One hold at a time, in the order asked: each answer is the result of its own apply.
      auto [remediation, request] = std::move(remediation_requests_.front());
      remediation_requests_.erase(remediation_requests_.begin());
      remediation_before_ = remediation_;
      remediation_ = remediation;
      snapshot_.remediation = remediation;
      Requests requests;
      requests.push_back(std::move(request));
      lock.unlock();
      check(CheckKind::Remediation, std::move(requests));
      lock.lock();
      continue;
    }
    if (!apply_requests_.empty()) {
      auto requests = std::move(apply_requests_);
      apply_requests_.clear();
      dirty_ = false;  // this check covers any news so far
      settle_ = false;
      lock.unlock();
      check(CheckKind::Apply, std::move(requests));
      lock.lock();
      continue;
    }
    const auto now = time().now();
    const bool retry_due = !next_retry_ || now >= *next_retry_;
    if (dirty_ && retry_due) {
      if (settle_) {
        // Let the rest of the burst arrive; it is covered by this check, or by a request's
        // check when one comes meanwhile (a request does not wait for the burst).
        time().wait_for(lock, wake_, host_.options().event_settle,
                        [this] { return stop_ || has_requests(); });
        if (stop_) break;
        if (has_requests()) continue;
      }
      dirty_ = false;
      settle_ = false;
      lock.unlock();
      check(CheckKind::Routine, {});
      lock.lock();
      continue;
    }
    // Nothing due: the thread ends until news (an event, a drift check, a request, stop) starts
    // another, so an idle node runs no thread per port. A retry is waited for here.
    idle_ = true;
    if (!dirty_ || !next_retry_) {
      running_ = false;
      return;
    }
    // Until the retry is due, or news that cannot wait for it: a request, a reset, stop.
    time().wait_until(lock, wake_, *next_retry_,
                      [this] { return stop_ || !next_retry_ || has_requests(); });
    idle_ = false;
  }
  auto requests = std::move(apply_requests_);
  apply_requests_.clear();
  for (auto& [remediation, request] : remediation_requests_) requests.push_back(std::move(request));
  remediation_requests_.clear();
  finished_ = true;
  lock.unlock();
  carrier_slot_ = {};
  answer(requests, not_applied(netdev_, "roced is stopping"));
  done_.set_value();
}

void PortWorker::announce(PortEvent::Kind kind, std::vector<std::string> settings,
                          std::string message) {
  if (stopping()) return;  // a forgotten port announces nothing more
  // Debug: whoever takes the event (the service) logs it; twice would say it twice.
  host_.log(LogLevel::Debug, netdev_, message);
  host_.emit(PortEvent{kind, netdev_, std::move(settings), std::move(message)});
}

void PortWorker::count_drift(const std::vector<plan::Change>& changes) {
  std::lock_guard lock(mutex_);
  for (const auto& group : setting_groups(changes)) ++snapshot_.counters.drifts[group];
}

void PortWorker::record_in_sync(const plan::PortPlan& plan) {
  settled_desired_ = plan.desired;
  std::lock_guard lock(mutex_);
  snapshot_.condition = settled_condition();
  snapshot_.last_plan = plan;
  snapshot_.consecutive_failures = 0;
  snapshot_.next_retry.reset();
  next_retry_.reset();
}

PortCondition PortWorker::settled_condition() const {
  return snapshot_.remediation.empty() ? PortCondition::InSync : PortCondition::Held;
}

// first_retry doubling per failure, capped at max_retry (and without overflow).
std::chrono::milliseconds PortWorker::backoff_delay(int failures) const {
  const auto& options = host_.options();
  std::chrono::milliseconds delay = options.first_retry;
  for (int i = 1; i < failures && delay < options.max_retry; ++i) delay *= 2;
  return std::min(delay, options.max_retry);
}

void PortWorker::record_failure(const apply::PortResult& result, const std::string& message) {
  int failures = 0;
  std::chrono::milliseconds delay{};
  {
    std::lock_guard lock(mutex_);
    failures = ++snapshot_.consecutive_failures;
    delay = backoff_delay(failures);
    next_retry_ = time().now() + delay;
    snapshot_.next_retry = time().to_wall(*next_retry_);
    snapshot_.condition = PortCondition::Failed;
    dirty_ = true;  // retried when the delay is over
  }
  std::vector<std::string> settings;
  for (const auto& step : result.steps) {
    if (!step.ok) settings.push_back(plan::setting_name(step.change.setting, step.change.key));
  }
  announce(PortEvent::Kind::ApplyFailed, std::move(settings),
           message + " (failure " + std::to_string(failures) + ", retry in " +
               std::to_string(delay.count()) + " ms)");
}

void PortWorker::check(CheckKind kind, Requests requests) {
  check_once(kind, std::move(requests));
  checked_ = true;
  host_.check_finished();
}

void PortWorker::apply_remediation(plan::PortPlan plan, Requests& requests) {
  // Only what the hold changes: other drift is the routine checks' business (and, under report,
  // not ours to write at all).
  std::erase_if(plan.changes,
                [](const plan::Change& change) { return !remediation_setting(change.setting); });
  if (plan.changes.empty()) {
    apply::PortResult result;
    result.netdev = netdev_;
    result.unsupported = plan.unsupported;
    answer(requests, result);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    snapshot_.condition = PortCondition::Applying;
  }
  const auto settings = setting_names(plan.changes);
  host_.log(LogLevel::Info, netdev_,
            "storm remediation: applying " + describe_changes(plan.changes));
  apply::ApplyOptions options = host_.options().apply;
  options.wait_for_carrier = false;  // the storm's port alone, at once: no rollout to pace
  const auto result = apply::apply_port(host_.system(), plan, options);
  const bool applied = result.outcome == apply::PortResult::Outcome::Applied;
  {
    std::lock_guard lock(mutex_);
    snapshot_.last_apply = std::make_shared<const apply::PortResult>(result);
    snapshot_.last_apply_at = time().now();
    snapshot_.last_apply_time = time().to_wall(*snapshot_.last_apply_at);
    ++(applied ? snapshot_.counters.applies_ok : snapshot_.counters.applies_failed);
    // What the port is now (the hold applied, or rolled back): a routine check tells the rest.
    snapshot_.condition = applied ? settled_condition() : PortCondition::Failed;
    dirty_ = true;
  }
  if (!applied) {
    host_.log(LogLevel::Warn, netdev_,
              "storm remediation " + apply::outcome_name(result.outcome) + ": " + result.error);
    keep_previous_remediation();
  }
  answer(requests, result);
}

void PortWorker::keep_previous_remediation() {
  // The port was put back as it was: so is the hold, or the next check would "correct" the port
  // towards a hold that could not be applied.
  std::lock_guard lock(mutex_);
  remediation_ = remediation_before_;
  snapshot_.remediation = remediation_before_;
}

// A finding (the RoCE v2 GID index moved away from the one jobs use, a small MTU) is logged when
// it appears, not on every check while it stays.
void PortWorker::log_new_findings(const std::vector<finding::Finding>& findings) {
  for (const auto& found : findings) {
    if (std::find(logged_findings_.begin(), logged_findings_.end(), found) ==
        logged_findings_.end()) {
      host_.log_finding(found);
    }
  }
  logged_findings_ = findings;
}

// A setting the port cannot take is said once per port and reason (a locked-down kernel's DCQCN
// knobs stay out of reach on every check), and again only if it comes back after going away.
void PortWorker::log_new_unsupported(const std::vector<plan::Unsupported>& unsupported) {
  std::vector<std::string> lines;
  for (const auto& item : unsupported) {
    std::string line =
        settings::setting_name(item.setting, item.key) +
        (item.kind == settings::Lacking::RoceLag ? " is another netdev's: "
                                                 : " cannot be configured on this port: ") +
        item.reason;
    if (std::find(logged_unsupported_.begin(), logged_unsupported_.end(), line) ==
        logged_unsupported_.end()) {
      // What the hardware lacks is a fact of the port; a kernel that shuts roced out, or a driver
      // that keeps a configured setting to itself, is a choice of the node's set-up that someone
      // may want to revisit.
      const bool choice = item.kind == settings::Lacking::KernelLockdown ||
                          item.kind == settings::Lacking::DriverManaged;
      host_.log(choice ? LogLevel::Warn : LogLevel::Info, netdev_, line);
    }
    lines.push_back(std::move(line));
  }
  logged_unsupported_ = std::move(lines);
}

void PortWorker::check_once(CheckKind kind, Requests requests) {
  System& system = host_.system();
  const auto config = host_.current_config();
  auto described = describe_netdev(*system.files, netdev_);
  if (!described && described.error().code == ENODEV) {
    forget_port(requests);
    return;
  }
  plan::PortPlan plan = read_plan(described, *config);
  release_slot_when_carrier(plan);

  CheckFacts facts;
  facts.kind = kind;
  // Partly read with changes: those are made (or reported); the unread part fails the next check.
  facts.readable = plan.error.empty() || (plan.partly_read && !plan.changes.empty());
  // Unreadable because it went away while being read: forgotten, as for RTM_DELLINK.
  facts.netdev_exists = facts.readable || system.files->exists("/sys/class/net/" + netdev_);
  facts.in_sync = plan.in_sync();
  facts.enforce_policy = config->daemon.drift_policy == DaemonSettings::DriftPolicy::Enforce;
  facts.signature = drift_signature(plan);
  const std::vector<plan::Change> drifted = drifted_changes(plan);
  facts.drifted = !drifted.empty();
  facts.configured_once = configured_once_;
  facts.reported_drift = reported_drift_;
  facts.last_correction = last_correction_;
  facts.last_corrected_drift = last_corrected_drift_;
  facts.now = time().now();
  const CheckDecision decision = decide_check(facts);

  switch (decision.action) {
    case CheckAction::Gone:
      forget_port(requests);
      return;
    case CheckAction::Unreadable: {
      const auto result = not_applied(netdev_, plan.error);
      if (kind == CheckKind::Remediation) keep_previous_remediation();
      record_failure(result, "cannot be read: " + plan.error);
      answer(requests, result);
      return;
    }
    case CheckAction::Remediate:
      apply_remediation(std::move(plan), requests);
      return;
    case CheckAction::InSync:
      if (decision.forget_fights) fights_ = 0;
      settle_in_sync(plan, requests);
      return;
    case CheckAction::BackOff:
    case CheckAction::Report:
    case CheckAction::Apply:
      note_drift(decision, plan, drifted, facts.signature);
      break;
  }
  if (decision.action == CheckAction::BackOff) {
    back_off(setting_names(plan.changes), facts.now);
  } else if (decision.action == CheckAction::Report) {
    std::lock_guard lock(mutex_);
    snapshot_.condition = PortCondition::Drifted;
    snapshot_.consecutive_failures = 0;
    snapshot_.next_retry.reset();
    next_retry_.reset();
  } else {
    correct(plan, drifted, facts.signature, requests);
  }
}

void PortWorker::forget_port(Requests& requests) {
  carrier_slot_ = {};  // a port that is gone keeps no other from its changes
  answer(requests, not_applied(netdev_, "the netdev is gone"));
  host_.port_gone(*this);
}

plan::PortPlan PortWorker::read_plan(const Result<DiscoveredPort>& described,
                                     const config::Config& config) {
  Remediation remediation;
  {
    std::lock_guard lock(mutex_);
    remediation = remediation_;
  }
  plan::PortPlan plan;
  if (described) {
    plan = plan::replan_port(host_.system(), *described,
                             remediated(config.profile_for(netdev_), remediation));
    log_new_findings(plan.findings);  // the planner's (the storm hold has its own log lines)
    log_new_unsupported(plan.unsupported);
    if (!remediation.empty()) plan.findings.push_back(hold_finding(netdev_, remediation));
  } else {
    plan.port = snapshot().port;
    plan.error = described.error().message;
  }
  std::lock_guard lock(mutex_);
  snapshot_.port = plan.port;
  snapshot_.last_plan = plan;
  snapshot_.last_check = time().wall_now();
  return plan;
}

void PortWorker::settle_in_sync(const plan::PortPlan& plan, Requests& requests) {
  record_in_sync(plan);
  reported_drift_.clear();
  configured_once_ = true;
  apply::PortResult result;
  result.netdev = netdev_;
  result.unsupported = plan.unsupported;
  result.findings = plan.findings;
  host_.log(LogLevel::Debug, netdev_, "in sync");
  answer(requests, result);
}

std::vector<plan::Change> PortWorker::drifted_changes(const plan::PortPlan& plan) const {
  if (!settled_desired_ || plan.changes.empty()) return plan.changes;
  // The port as read now, planned against the profile it was last right with: what differs
  // there is what someone changed on the port.
  const plan::PortPlan before = plan::plan_port(plan.port, *settled_desired_, plan.observed);
  std::vector<plan::Change> drifted;
  for (const auto& change : plan.changes) {
    const bool differed =
        std::any_of(before.changes.begin(), before.changes.end(), [&](const plan::Change& old) {
          return old.setting == change.setting && old.key == change.key;
        });
    if (differed) drifted.push_back(change);
  }
  return drifted;
}

void PortWorker::note_drift(const CheckDecision& decision, const plan::PortPlan& plan,
                            const std::vector<plan::Change>& drifted,
                            const std::string& signature) {
  if (decision.count_drift) count_drift(drifted);
  const auto settings = setting_names(drifted);
  if (decision.notice == DriftNotice::Reported) {
    announce(PortEvent::Kind::Drifted, settings,
             "drifted: " + describe_drift(drifted) + " (reported, not corrected)");
  } else if (decision.notice == DriftNotice::Corrected) {
    announce(PortEvent::Kind::Drifted, settings, "drifted: " + describe_drift(drifted));
  } else if (decision.notice == DriftNotice::NewConfiguration) {
    host_.log(LogLevel::Info, netdev_,
              "the configuration changed: " + describe_changes(plan.changes) +
                  (decision.enforce ? "" : " (not applied: daemon.drift_policy is report)"));
  }
  if (decision.remember_drift) reported_drift_ = signature;
}

// The very change just corrected is back: another agent (a willing DCBX peer, mlnx_qos, a second
// daemon) keeps setting it. Back off instead of rewriting it in a loop.
void PortWorker::back_off(const std::vector<std::string>& settings, SteadyClock::time_point now) {
  const auto delay = backoff_delay(++fights_);
  {
    std::lock_guard lock(mutex_);
    snapshot_.condition = PortCondition::Drifted;
    next_retry_ = now + delay;
    snapshot_.next_retry = time().to_wall(*next_retry_);
    dirty_ = true;
  }
  host_.log(LogLevel::Warn, netdev_,
            "changed back within " + std::to_string(kFightWindow.count()) +
                " s of its correction: another agent sets " + joined(settings) + "; retry in " +
                std::to_string(delay.count()) + " ms");
}

void PortWorker::release_slot_when_carrier(const plan::PortPlan& plan) {
  if (!carrier_slot_) return;
  const bool carrier = plan.observed.link.ok() && plan.observed.link.value->carrier;
  if (!carrier) return;
  carrier_slot_ = {};
  host_.log(LogLevel::Info, netdev_, "carrier back: other ports' disruptive changes may go on");
}

DisruptionGate::Slot PortWorker::disruption_slot() {
  return host_.disruption_gate().enter(
      netdev_, [this] { return stopping(); },
      [this](const std::set<std::string>& holders) {
        host_.log(LogLevel::Info, netdev_,
                  "disruptive changes wait until " + joined({holders.begin(), holders.end()}) +
                      " carries traffic again (daemon.disruptive_ports_at_once)");
      });
}

void PortWorker::correct(const plan::PortPlan& planned, const std::vector<plan::Change>& drifted,
                         const std::string& signature, Requests& requests) {
  System& system = host_.system();
  // A disruptive apply waits for a slot; the port is read again if another port went first.
  DisruptionGate::Slot slot;
  plan::PortPlan plan = planned;
  if (planned.disruptive()) {
    {
      // Until its turn comes, the port differs from the config: never "in sync" meanwhile.
      std::lock_guard lock(mutex_);
      snapshot_.condition = PortCondition::Drifted;
    }
    // Its own kept slot, if it still waits for its carrier: it needs no other.
    if (carrier_slot_) {
      slot = std::move(carrier_slot_);
    } else {
      at_gate_ = true;
      host_.check_finished();  // start-up may be waiting only for ports behind a stalled one
      slot = disruption_slot();
      at_gate_ = false;
    }
    if (slot && slot.waited()) plan = plan::replan_port(system, planned.port, planned.desired);
    if (plan.in_sync()) {  // someone put it right meanwhile
      settle_in_sync(plan, requests);
      return;
    }
  }
  const auto settings = setting_names(plan.changes);
  {
    std::lock_guard lock(mutex_);
    // Told to stop before the apply began: leave the port as it is.
    if (stop_) {
      answer(requests, not_applied(netdev_, "roced is stopping"));
      return;
    }
    snapshot_.condition = PortCondition::Applying;
  }
  host_.log(LogLevel::Info, netdev_, "applying " + joined(settings));
  apply::ApplyOptions options = host_.options().apply;
  options.stop = &stop_signal_;
  const auto result = apply::apply_port(system, plan, options);
  if (result.carrier_lost && slot) {
    host_.log(LogLevel::Warn, netdev_,
              "no carrier since its disruptive change: other ports' disruptive changes wait "
              "until it has one again");
    carrier_slot_ = std::move(slot);
    host_.disruption_gate().mark_stalled(netdev_);
  }
  slot = {};  // the applier returned once the port had its carrier again
  {
    std::lock_guard lock(mutex_);
    snapshot_.last_apply = std::make_shared<const apply::PortResult>(result);
    snapshot_.last_apply_at = time().now();
    snapshot_.last_apply_time = time().to_wall(*snapshot_.last_apply_at);
    const bool applied = result.outcome == apply::PortResult::Outcome::Applied;
    ++(applied ? snapshot_.counters.applies_ok : snapshot_.counters.applies_failed);
    if (applied && configured_once_) {
      for (const auto& group : setting_groups(drifted)) ++snapshot_.counters.corrections[group];
    }
  }
  if (result.outcome != apply::PortResult::Outcome::Applied) {
    record_failure(result, apply::outcome_name(result.outcome) + ": " + result.error);
    answer(requests, result);
    return;
  }
  // What the snapshot shows is the port as it reads now, not the plan before the apply.
  plan::PortPlan after = plan::replan_port(system, plan.port, plan.desired);
  if (!after.in_sync()) {
    std::lock_guard lock(mutex_);
    dirty_ = true;  // changed again since the apply verified it: look once more
  }
  if (!after.error.empty()) after = plan;  // unreadable just now: the verified plan
  after.changes.clear();
  record_in_sync(after);
  reported_drift_.clear();
  last_correction_ = time().now();
  last_corrected_drift_ = signature;
  announce(
      PortEvent::Kind::Corrected, settings,
      (configured_once_ && !drifted.empty() ? "corrected: " : "configured: ") + joined(settings));
  configured_once_ = true;
  answer(requests, result);
}

}  // namespace roced::reconcile
