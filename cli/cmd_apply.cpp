// rocectl apply: written by the issue-3 work.
#include <iostream>

#include "cli/command.hpp"

namespace roced::cli {

int apply_command(const Context& /*context*/, Args /*args*/) {
  std::cerr << "rocectl: apply is not implemented yet\n";
  return kExitError;
}

}  // namespace roced::cli
