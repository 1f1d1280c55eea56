// SPDX-License-Identifier: Apache-2.0
#pragma once
// What `rocectl plan` and `rocectl apply` share: the options that choose the configuration, the
// ports and the output, and the handling of a plan before it is shown or applied.
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "daemon/plan/plan.hpp"

namespace roced::cli {

struct PlanOptions {
  std::string config = "/etc/roced/roced.yaml";
  bool config_given = false;
  bool direct = false;  // --direct: read (and write) the ports even when roced runs
  bool json = false;
  std::vector<std::string> ports;  // --port: only these selected netdevs
  std::optional<std::string> config_if_given() const {
    return config_given ? std::optional(config) : std::nullopt;
  }
};

// Takes --config, --direct, --json or --port off the front of `args`: true when it took one.
// A missing value sets `exit_code` to the usage error.
bool take_plan_option(Args& args, PlanOptions& options, const char* usage,
                      std::optional<int>& exit_code);

// Keeps the ports --port names; false (each said on stderr) when one of them is not a port the
// configuration selects on `source`.
bool keep_named_ports(plan::Plan& plan, const PlanOptions& options, const std::string& source);

// The plan's read and port errors, on stderr.
void report_plan_errors(const plan::Plan& plan);

// The plan on stdout, as text or as the JSON of docs/plan-json.md.
// Colour for what takes links down when stdout is a terminal and NO_COLOR is not set.
plan::TextStyle stdout_style();
void print_plan(const plan::Plan& plan, bool json);

}  // namespace roced::cli
