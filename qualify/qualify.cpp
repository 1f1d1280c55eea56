// SPDX-License-Identifier: Apache-2.0
#include "qualify/qualify.hpp"

#include <string>

#include "qualify/listen.hpp"
#include "qualify/observe.hpp"
#include "qualify/read_checks.hpp"

namespace roced::qualify {

Report qualify(System& system, TimeSource& time, const StopSignal& stop,
               const std::vector<DiscoveredPort>& ports, const Options& options) {
  Report report;
  report.roced_version = options.roced_version;
  report.hostname = options.hostname;
  report.wrote = options.write;
  std::vector<Observation> seen;
  seen.reserve(ports.size());
  for (const auto& port : ports) seen.push_back(observe(system, time, port));
  std::map<std::string, Check> switches;
  if (options.listen.count() > 0) {
    options.write_options.progress("listening for the switches' LLDP for up to " +
                                   std::to_string(options.listen.count()) + " s");
    switches = listen_for_switches(system, time, stop, seen, options.listen);
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    if (report.kernel.empty()) report.kernel = seen[i].kernel_release;
    PortReport out;
    out.facts = facts_of(seen[i]);
    out.checks = read_checks(seen[i]);
    if (const auto heard = switches.find(ports[i].netdev); heard != switches.end()) {
      out.checks.push_back(heard->second);
    }
    if (options.write && !stop.raised()) {
      WriteOutcome wrote = run_write_checks(system, time, stop, ports[i], options.write_options);
      out.checks.insert(out.checks.end(), wrote.checks.begin(), wrote.checks.end());
      out.touched = std::move(wrote.touched);
      out.facts.link_training_ms = wrote.link_training_ms;
      out.facts.cable_length_in_firmware = wrote.cable_length_in_firmware;
      out.facts.statistics_pfc_on = std::move(wrote.statistics_pfc_on);
      out.facts.statistics_pfc_off = std::move(wrote.statistics_pfc_off);
      report.interrupted = report.interrupted || wrote.interrupted;
    }
    report.ports.push_back(std::move(out));
  }
  report.interrupted = report.interrupted || stop.raised();
  return report;
}

}  // namespace roced::qualify
