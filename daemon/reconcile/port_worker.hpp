// SPDX-License-Identifier: Apache-2.0
#pragma once
// One port's worker: when the port is marked dirty (a netlink event, the drift check, a reload), a
// retry is due, an Apply is requested or it is told to stop, it re-reads and re-plans the port and
// applies (under enforce) or reports (under report). It has a thread only while it has something
// to do or a retry to wait for: a node at rest runs no thread per port.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/reconcile/check_decision.hpp"
#include "daemon/reconcile/disruption_gate.hpp"
#include "daemon/reconcile/reconciler.hpp"

namespace roced::reconcile {

class PortWorker;

// What a worker needs from the reconciler; every call is thread-safe.
class WorkerHost {
 public:
  virtual ~WorkerHost() = default;
  virtual System& system() = 0;
  virtual const ReconcilerOptions& options() const = 0;
  virtual std::shared_ptr<const config::Config> current_config() const = 0;
  virtual void emit(const PortEvent& event) = 0;
  virtual void log(LogLevel level, const std::string& netdev, const std::string& message) = 0;
  virtual void log_finding(const finding::Finding& found) = 0;
  // The worker found its netdev gone: the host forgets it (and stops the worker).
  virtual void port_gone(PortWorker& worker) = 0;
  // A check finished (start() waits for every port's first one).
  virtual void check_finished() = 0;
  // The slots for disruptive applies, shared by every port's worker.
  virtual DisruptionGate& disruption_gate() = 0;
};

class PortWorker {
 public:
  // `predecessor`: the stopping worker of an earlier incarnation of this netdev; this one waits
  // for it so that two workers never write one port at once.
  // `counters`: those of the netdev's earlier incarnation, carried on.
  PortWorker(WorkerHost& host, DiscoveredPort port, std::shared_future<void> predecessor = {},
             PortCounters counters = {});
  ~PortWorker();  // request_stop() + join()
  PortWorker(const PortWorker&) = delete;
  PortWorker& operator=(const PortWorker&) = delete;

  void start();
  // Something about the port changed: re-check it, after options().event_settle when `settle`.
  // A retry backoff in progress is kept (our own writes' echoes must not shorten it).
  void mark_dirty(bool settle);
  // The drift check or a reload: re-check now; `reset_backoff` drops a pending retry delay.
  void recheck(bool reset_backoff);
  // Check and apply now whatever the drift policy or backoff; the result when done.
  std::future<apply::PortResult> request_apply();
  // The storm watchdog's hold on the port from now on (Remediation{} releases it): every plan
  // of the port is made with it applied. Applied at once, whatever the drift policy or backoff,
  // writing only what the hold changes (PFC priorities, stall prevention); the result when done.
  std::future<apply::PortResult> request_remediation(Remediation remediation);
  // Stops after the check in progress (an apply in progress completes; none starts after this).
  void request_stop();
  void join();

  const std::string& netdev() const { return netdev_; }
  bool finished() const { return finished_; }
  bool checked() const { return checked_; }  // the first check is done
  bool at_gate() const { return at_gate_; }  // waiting for a disruption slot
  bool alive(std::chrono::steady_clock::time_point now, std::chrono::milliseconds window) const;
  PortSnapshot snapshot() const;
  ManagedPort managed_port() const;
  std::shared_future<void> done() const { return done_future_; }

 private:
  using Requests = std::vector<std::promise<apply::PortResult>>;

  void run();
  // Starts the thread when the worker has none and has something to do (mutex_ not held).
  void wake();
  // A request the worker answers when it has run: `add` queues it (mutex_ held); answered at
  // once when the worker has stopped.
  std::future<apply::PortResult> enqueue(
      const std::function<void(std::promise<apply::PortResult>)>& add);
  // One check: re-read, re-plan, decide (check_decision.hpp), then do what was decided.
  void check(CheckKind kind, Requests requests);
  void check_once(CheckKind kind, Requests requests);
  plan::PortPlan read_plan(const Result<DiscoveredPort>& described, const config::Config& config);
  void forget_port(Requests& requests);
  void settle_in_sync(const plan::PortPlan& plan, Requests& requests);
  // The changes that undo what the port was last brought in sync with (drift), as against
  // those only a new configuration asks for.
  std::vector<plan::Change> drifted_changes(const plan::PortPlan& plan) const;
  void note_drift(const CheckDecision& decision, const plan::PortPlan& plan,
                  const std::vector<plan::Change>& drifted, const std::string& signature);
  void back_off(const std::vector<std::string>& settings,
                std::chrono::steady_clock::time_point now);
  void correct(const plan::PortPlan& planned, const std::vector<plan::Change>& drifted,
               const std::string& signature, Requests& requests);
  // Gives back carrier_slot_ once `plan` reads the port with its carrier again.
  void release_slot_when_carrier(const plan::PortPlan& plan);
  // A slot for a disruptive apply (empty when roced stops meanwhile); logs why it waits.
  DisruptionGate::Slot disruption_slot();
  void log_new_findings(const std::vector<finding::Finding>& findings);
  void log_new_unsupported(const std::vector<plan::Unsupported>& unsupported);
  void apply_remediation(plan::PortPlan plan, Requests& requests);
  void keep_previous_remediation();
  // Nothing left to change: in sync, or held when a storm remediation is on (under mutex_).
  PortCondition settled_condition() const;
  void record_in_sync(const plan::PortPlan& plan);
  void record_failure(const apply::PortResult& result, const std::string& message);
  void count_drift(const std::vector<plan::Change>& changes);
  void announce(PortEvent::Kind kind, std::vector<std::string> settings, std::string message);
  bool stopping() const;
  // An Apply or a storm hold is waiting (mutex_ held).
  bool has_requests() const { return !apply_requests_.empty() || !remediation_requests_.empty(); }
  std::chrono::milliseconds backoff_delay(int failures) const;
  void beat();
  TimeSource& time() const { return *host_.options().time; }

  WorkerHost& host_;
  const std::string netdev_;
  std::shared_future<void> predecessor_;

  StopSignal stop_signal_;  // raised with stop_: ends the applier's wait for a carrier

  mutable std::mutex mutex_;  // guards everything below up to the thread
  std::condition_variable wake_;
  bool started_ = false;
  bool running_ = false;  // a thread is in run(), or about to be
  bool stop_ = false;
  bool dirty_ = true;  // the first check
  bool settle_ = false;
  std::optional<std::chrono::steady_clock::time_point> next_retry_;
  Requests apply_requests_;
  std::vector<std::pair<Remediation, std::promise<apply::PortResult>>> remediation_requests_;
  Remediation remediation_;         // in effect for every plan of the port
  Remediation remediation_before_;  // the one it replaced, back if it cannot be applied
  PortSnapshot snapshot_;

  // Worker-thread only.
  std::vector<finding::Finding> logged_findings_;  // the last check's, logged as they came
  std::vector<std::string> logged_unsupported_;    // likewise, what the port cannot take
  std::string reported_drift_;    // the drift last announced under report: announced once
  bool configured_once_ = false;  // a check has found or made the port right
  // The profile the port was last found or made right with: a change against it is drift, one
  // only against a newer profile is the new configuration.
  std::optional<config::Profile> settled_desired_;
  std::optional<std::chrono::steady_clock::time_point> last_correction_;
  std::string last_corrected_drift_;
  int fights_ = 0;  // the corrected drift came straight back this many times in a row
  // Kept after a disruptive apply that left the port without the carrier it had: no other port
  // is flapped until a check reads its carrier again (or the port goes).
  DisruptionGate::Slot carrier_slot_;

  std::atomic<bool> checked_{false};
  std::atomic<bool> at_gate_{false};
  std::atomic<bool> finished_{false};
  std::atomic<std::chrono::steady_clock::rep> heartbeat_;
  // Waiting for news: an idle worker is not a hung one, and sleeps without a timeout.
  std::atomic<bool> idle_{false};
  std::promise<void> done_;
  std::shared_future<void> done_future_;
  std::mutex thread_mutex_;  // thread_: wake(), join()
  std::thread thread_;
};

}  // namespace roced::reconcile
