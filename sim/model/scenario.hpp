// SPDX-License-Identifier: Apache-2.0
#pragma once
// The runner that plays a scenario (scenario_file.hpp: the document and its parser, included here
// for the users of both) against a Node.

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "sim/model/file_error.hpp"
#include "sim/model/node.hpp"
#include "sim/model/scenario_file.hpp"
#include "sim/model/traffic.hpp"

namespace roce_sim {

class ScenarioRunner {
 public:
  // Checks every port the scenario names exists in the node (FileError at the naming line).
  ScenarioRunner(Node& node, Scenario scenario);

  // Fires the events due within the interval at their own times, advancing the traffic between
  // them, so counters see each change at the simulated instant it happens.
  void advance(std::chrono::microseconds simulated_dt);
  // Plays another document's events and flows into the running timeline, its `at` times counted
  // from now(). Checked as the constructor checks (ports; each port's rate, counting the flows
  // already running): on a FileError nothing is added. Events due now fire at the next advance
  // (advance(0) for at once). The document's clock and duration do not apply.
  void inject(Scenario extra);
  std::chrono::microseconds now() const { return now_; }
  bool finished() const;
  double clock_speed() const { return scenario_.clock_speed; }
  // With injected documents' events and flows appended, their times shifted to the runner's.
  const Scenario& scenario() const { return scenario_; }
  TrafficEngine& traffic() { return traffic_; }
  std::vector<std::string> take_log();

 private:
  struct Action {
    std::chrono::microseconds at;
    size_t sequence;  // order among actions at the same time
    size_t event;     // index into scenario_.events
    bool is_end;      // the end of a lasting event
  };
  // Ports named and flows' rates, against the node and the flows already running (FileError).
  void check(const Scenario& scenario) const;
  // Adds the actions of scenario_.events[first_event...] to those still due.
  void schedule(size_t first_event);
  void sort_pending();
  // Vanishes fired by set requests since the last advance: their rebinds go on the timeline.
  void schedule_fired_vanishes();
  void fire(const Action& action);
  void begin(const ScenarioEvent& event);
  struct EventStart;  // begin()'s visitor, one operator() per event kind
  void finish(const ScenarioEvent& event);
  void log(const std::string& netdev, const std::string& text);
  std::vector<std::string> targets(const ScenarioEvent& event);  // ports an event applies to

  Node& node_;
  Scenario scenario_;
  TrafficEngine traffic_;
  std::vector<Action> actions_;  // sorted
  size_t next_action_ = 0;
  std::chrono::microseconds now_{0};
  std::map<size_t, bool> fatal_aborted_;  // per firmware_fatal event: its recovery was aborted
  std::vector<std::string> log_;
};

}  // namespace roce_sim
