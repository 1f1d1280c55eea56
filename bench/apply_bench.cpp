// SPDX-License-Identifier: Apache-2.0
// bench/apply_bench: the default profile applied cold by roced (make_plan + apply_plan, in
// process) and by a shell script of dcb/ip/ethtool/echo (what an Ansible role runs), on fresh
// roce-sim nodes, in the same run; then the no-op check per port on a node in sync.
//   apply_bench [--runs N] [--smoke] [--node FILE]...
// --smoke: one run on the 4-port default node; exits 1 unless both sides reach the same in-sync
// state and a re-apply writes nothing. Speed is printed, never asserted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "bench/shell_recipe.hpp"
#include "bench/sim_process.hpp"
#include "daemon/apply/applier.hpp"
#include "daemon/config/config.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"
#include "sim/transport/simulated_system.hpp"
#include "test/support/build_paths.hpp"

namespace {

using namespace roced;
using Clock = std::chrono::steady_clock;
using bench::SimProcess;

constexpr double kAimSpeedUp = 20;          // >= 20x faster than the script
constexpr double kAimNoopUsPerPort = 1000;  // no-op check < 1 ms per port

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct Samples {
  std::vector<double> ms;
  double median() const {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.empty()) return 0;
    const size_t mid = sorted.size() / 2;
    return sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
  double min() const { return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end()); }
};

struct NodeResult {
  std::string name;
  size_t ports = 0;
  Samples roced, roced_plan, script, roced_check, script_check;
  uint64_t roced_writes = 0, script_writes = 0, reapply_writes = 0;
  std::vector<std::string> problems;  // correctness: empty = both sides reached the profile
  std::vector<std::string> notes;     // settings the script cannot reach, etc.
};

config::Config default_config() {
  config::Config config;
  config.ports.netdevs = {"*"};  // every mlx5_core port (an empty list manages none)
  config.path = "(built-in default profile)";
  config.profile = config::default_profile();
  return config;
}

// Ports not in sync, as "lan2: mtu, pfc.priorities" lines.
std::vector<std::string> out_of_sync(const plan::Plan& plan) {
  std::vector<std::string> lines;
  if (!plan.error.empty()) lines.push_back("plan: " + plan.error);
  for (const plan::PortPlan& port : plan.ports) {
    if (port.in_sync()) continue;
    std::string line = port.port.netdev + ":";
    if (!port.error.empty()) line += " " + port.error;
    for (const plan::Change& change : port.changes) {
      line += " " + plan::setting_name(change.setting, change.key) + " (" + change.now + " -> " +
              change.wanted + ")";
    }
    lines.push_back(line);
  }
  return lines;
}

int run_in_sim(const std::string& roce_sim, const SimProcess& sim, const std::string& script) {
  return bench::run_program({roce_sim, "exec", sim.dir().string(), "--", "sh", "-c", script});
}

void run_node(const std::string& roce_sim, const std::string& node_file, const std::string& name,
              int runs, NodeResult& result) {
  result.name = name;
  const config::Config config = default_config();
  for (int run = 0; run < runs; ++run) {
    // ---- roced, cold
    {
      SimProcess sim(roce_sim, node_file);
      System system = roce_sim::simulated_system(sim.dir());
      const auto start = Clock::now();
      const plan::Plan plan = plan::make_plan(system, config);
      result.roced_plan.ms.push_back(ms_since(start));
      const apply::ApplyResult applied = apply::apply_plan(system, plan);
      result.roced.ms.push_back(ms_since(start));
      result.ports = plan.ports.size();
      const plan::Plan after = plan::make_plan(system, config);
      if (run == 0 && plan.ports.empty()) {
        result.problems.push_back("the profile selects no port: nothing was measured");
      }
      if (run == 0) {
        result.roced_writes = sim.writes_total();
        if (!applied.ok()) {
          result.problems.push_back("roced apply failed:\n" + apply::format_apply_text(applied));
        }
        for (const std::string& line : out_of_sync(after)) {
          result.problems.push_back("after roced apply, not in sync: " + line);
        }
        // An idempotent re-apply: plan again and apply; the node must see no write at all.
        const uint64_t before = sim.writes_total();
        apply::apply_plan(system, plan::make_plan(system, config));
        plan::make_plan(system, config);  // a netlink round trip: the counter is settled
        result.reapply_writes = sim.writes_total() - before;
        if (result.reapply_writes != 0) {
          result.problems.push_back("roced re-apply on a node in sync wrote " +
                                    std::to_string(result.reapply_writes) + " times");
        }
        // No-op check: make_plan on the node in sync.
        constexpr int kRounds = 20;
        for (int round = 0; round < kRounds; ++round) {
          const auto check_start = Clock::now();
          const plan::Plan check = plan::make_plan(system, config);
          result.roced_check.ms.push_back(ms_since(check_start));
          if (round == 0 && check.has_changes()) {
            result.problems.push_back("roced no-op check found changes on a node in sync");
          }
        }
      }
    }
    // ---- the shell script, cold
    {
      SimProcess sim(roce_sim, node_file);
      System system = roce_sim::simulated_system(sim.dir());
      const plan::Plan before = plan::make_plan(system, config);  // the ports, for the script
      std::vector<DiscoveredPort> ports;
      for (const plan::PortPlan& port : before.ports) ports.push_back(port.port);
      const bench::ShellRecipe recipe = bench::shell_recipe(ports, config.profile, sim.dir());
      const auto start = Clock::now();
      const int status = run_in_sim(roce_sim, sim, recipe.apply);
      result.script.ms.push_back(ms_since(start));
      if (run == 0) {
        if (status != 0) {
          result.problems.push_back("the script exited with status " + std::to_string(status));
        }
        result.script_writes = sim.writes_total();
        for (const std::string& line : recipe.not_covered) {
          result.notes.push_back("script cannot set " + line);
        }
        for (const std::string& line : out_of_sync(plan::make_plan(system, config))) {
          result.problems.push_back("after the script, not in sync: " + line);
        }
        // The role's check on the node in sync: show and cat everything it manages.
        for (int round = 0; round < 3; ++round) {
          const auto check_start = Clock::now();
          run_in_sim(roce_sim, sim, recipe.check);
          result.script_check.ms.push_back(ms_since(check_start));
        }
      }
    }
  }
}

void print_results(const std::vector<NodeResult>& results, int runs) {
  std::printf(
      "\nCold apply of the default profile (fresh roce-sim node per run, start-up excluded; "
      "%d run%s)\n",
      runs, runs == 1 ? "" : "s");
  std::printf("%-14s %-28s %11s %11s %12s %9s %7s\n", "node", "method", "median ms", "min ms",
              "per port ms", "speed-up", "writes");
  for (const NodeResult& r : results) {
    const double ports = static_cast<double>(std::max<size_t>(r.ports, 1));
    const double speed_up = r.roced.median() > 0 ? r.script.median() / r.roced.median() : 0;
    std::printf("%-14s %-28s %11.2f %11.2f %12.3f %9s %7llu\n", r.name.c_str(),
                "roced make_plan+apply_plan", r.roced.median(), r.roced.min(),
                r.roced.median() / ports, "", static_cast<unsigned long long>(r.roced_writes));
    std::printf("%-14s %-28s %11.2f %11.2f %12.3f\n", r.name.c_str(), "  of which make_plan",
                r.roced_plan.median(), r.roced_plan.min(), r.roced_plan.median() / ports);
    char speed[32];
    std::snprintf(speed, sizeof speed, "%.1fx", speed_up);
    std::printf("%-14s %-28s %11.2f %11.2f %12.3f %9s %7llu\n", r.name.c_str(),
                "script dcb/ip/ethtool/echo", r.script.median(), r.script.min(),
                r.script.median() / ports, speed, static_cast<unsigned long long>(r.script_writes));
  }
  std::printf("\nNo-op check on a node in sync, per port\n");
  std::printf("%-14s %-34s %13s %13s\n", "node", "method", "median us", "min us");
  for (const NodeResult& r : results) {
    const double ports = static_cast<double>(std::max<size_t>(r.ports, 1));
    std::printf("%-14s %-34s %13.1f %13.1f\n", r.name.c_str(), "roced make_plan",
                r.roced_check.median() * 1000 / ports, r.roced_check.min() * 1000 / ports);
    std::printf("%-14s %-34s %13.1f %13.1f\n", r.name.c_str(), "script dcb/ip/ethtool show, cat",
                r.script_check.median() * 1000 / ports, r.script_check.min() * 1000 / ports);
  }
  std::printf("\nAims (reported, never enforced)\n");
  for (const NodeResult& r : results) {
    const double ports = static_cast<double>(std::max<size_t>(r.ports, 1));
    const double speed_up = r.roced.median() > 0 ? r.script.median() / r.roced.median() : 0;
    const double noop_us = r.roced_check.median() * 1000 / ports;
    std::printf("  %-14s apply >= %.0fx faster than the script: %s (%.1fx)\n", r.name.c_str(),
                kAimSpeedUp, speed_up >= kAimSpeedUp ? "met" : "NOT met", speed_up);
    std::printf("  %-14s no-op check < %.0f us per port: %s (%.1f us)\n", r.name.c_str(),
                kAimNoopUsPerPort, noop_us < kAimNoopUsPerPort ? "met" : "NOT met", noop_us);
    std::printf("  %-14s re-apply on a node in sync: %llu writes\n", r.name.c_str(),
                static_cast<unsigned long long>(r.reapply_writes));
  }
}

int usage() {
  std::cerr << "usage: apply_bench [--runs N] [--smoke] [--node FILE]...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  bool smoke = false;
  std::vector<std::pair<std::string, std::string>> nodes;  // (file, label)
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--smoke") {
      smoke = true;
    } else if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
      if (runs < 1) return usage();
    } else if (arg == "--node" && i + 1 < argc) {
      const std::string file = argv[++i];
      nodes.emplace_back(file, std::filesystem::path(file).stem().string());
    } else {
      return usage();
    }
  }
  if (smoke) runs = 1;
  if (nodes.empty()) {
    nodes.emplace_back("", "default (4)");
    if (!smoke)
      nodes.emplace_back(std::string(ROCED_SIM_NODES) + "/sixteen-port.yaml", "sixteen (16)");
  }

  std::vector<NodeResult> results;
  bool correct = true;
  try {
    for (const auto& [file, label] : nodes) {
      std::cerr << "apply_bench: " << label << ", " << runs << " run(s)...\n";
      NodeResult result;
      run_node(ROCE_SIM_BINARY, file, label, runs, result);
      results.push_back(std::move(result));
    }
  } catch (const std::exception& error) {
    std::cerr << "apply_bench: " << error.what() << "\n";
    return 1;
  }
  print_results(results, runs);
  std::printf("\nCorrectness (same state reached by both sides)\n");
  for (const NodeResult& r : results) {
    for (const std::string& note : r.notes)
      std::printf("  %s: note: %s\n", r.name.c_str(), note.c_str());
    if (r.problems.empty()) {
      std::printf("  %s: ok: roced and the script both leave every port in sync\n", r.name.c_str());
    }
    for (const std::string& problem : r.problems) {
      std::printf("  %s: PROBLEM: %s\n", r.name.c_str(), problem.c_str());
      correct = false;
    }
  }
  return correct ? 0 : 1;
}
