// SPDX-License-Identifier: Apache-2.0
// roce-sim's scenario loader (sim/model/scenario_file.cpp), for a node's scenario and for
// `roce-sim inject` documents, then a scenario that loads played against the default node by the
// runner (sim/model/scenario.cpp): checked against its ports and run to its end. Promise: bad
// input is a FileError naming the place, nothing else.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/support/check.hpp"
#include "sim/model/node_file.hpp"
#include "sim/model/scenario.hpp"

using roced::fuzz::require;
using namespace std::chrono_literals;

namespace {

void play(const roce_sim::Scenario& scenario) {
  static const std::vector<roce_sim::PortSpec> specs = roce_sim::default_node();
  roce_sim::Node node(specs);
  try {
    roce_sim::ScenarioRunner runner(node, scenario);
    // To the end (a day at most) and a second past it, in a few steps (the runner fires events
    // between them).
    const auto end = std::min<std::chrono::microseconds>(scenario.end(), 24h) + 1s;
    for (int step = 1; step <= 4; ++step) runner.advance(end / 4);
    (void)runner.take_log();
  } catch (const roce_sim::FileError& error) {
    require(std::string(error.what()).size() > 0, "a FileError says what is wrong");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto use : {roce_sim::ScenarioUse::Run, roce_sim::ScenarioUse::Inject}) {
    try {
      const roce_sim::Scenario scenario = roce_sim::parse_scenario_yaml(text, "fuzz.yaml", use);
      if (use == roce_sim::ScenarioUse::Run) play(scenario);
    } catch (const roce_sim::FileError& error) {
      require(!error.message().empty(), "a FileError says what is wrong");
    }
  }
  return 0;
}
