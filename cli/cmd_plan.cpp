// rocectl plan: written by the issue-3 work.
#include <iostream>

#include "cli/command.hpp"

namespace roced::cli {

int plan_command(const Context& /*context*/, Args /*args*/) {
  std::cerr << "rocectl: plan is not implemented yet\n";
  return kExitError;
}

}  // namespace roced::cli
