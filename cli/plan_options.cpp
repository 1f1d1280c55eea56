// SPDX-License-Identifier: Apache-2.0
#include "cli/plan_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string_view>

namespace roced::cli {

bool take_plan_option(Args& args, PlanOptions& options, const char* usage,
                      std::optional<int>& exit_code) {
  std::string value;
  std::string error;
  if (args.flag("--json")) {
    options.json = true;
  } else if (args.flag("--direct")) {
    options.direct = true;
  } else if (args.option("--config", value, error)) {
    if (!error.empty() || value.empty()) {
      exit_code = usage_error("--config needs a file", usage);
    } else {
      options.config = value;
      options.config_given = true;
    }
  } else if (args.option("--port", value, error)) {
    if (!error.empty() || value.empty()) {
      exit_code = usage_error("--port needs an interface name", usage);
    } else {
      options.ports.push_back(value);
    }
  } else {
    return false;
  }
  return true;
}

bool keep_named_ports(plan::Plan& plan, const PlanOptions& options, const std::string& source) {
  if (options.ports.empty()) return true;
  const auto named = [&](const std::string& netdev) {
    return std::find(options.ports.begin(), options.ports.end(), netdev) != options.ports.end();
  };
  std::erase_if(plan.ports, [&](const plan::PortPlan& port) { return !named(port.port.netdev); });
  bool all_known = true;
  for (const auto& name : options.ports) {
    const bool planned = std::any_of(plan.ports.begin(), plan.ports.end(),
                                     [&](const auto& p) { return p.port.netdev == name; });
    if (!planned) {
      std::cerr << "rocectl: " << name << " is not a port " << options.config << " selects on "
                << source << "\n";
      all_known = false;
    }
  }
  return all_known;
}

void report_plan_errors(const plan::Plan& plan) {
  for (const auto& port : plan.ports) {
    if (!port.error.empty()) {
      std::cerr << "rocectl: " << port.port.netdev << ": " << port.error << "\n";
    }
  }
  if (!plan.error.empty()) std::cerr << "rocectl: " << plan.error << "\n";
}

plan::TextStyle stdout_style() {
  // https://no-color.org: NO_COLOR set (to anything) means none; nor on a dumb terminal or a pipe.
  const char* term = std::getenv("TERM");
  return {::isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr &&
          (term == nullptr || std::string_view(term) != "dumb")};
}

void print_plan(const plan::Plan& plan, bool json) {
  if (json) {
    std::cout << plan::plan_to_json(plan).dump(2) << "\n";
  } else {
    std::cout << plan::format_plan_text(plan, stdout_style());
  }
}

}  // namespace roced::cli
