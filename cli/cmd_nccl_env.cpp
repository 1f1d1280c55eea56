// rocectl nccl-env: written by the issue-3 work.
#include <iostream>

#include "cli/command.hpp"

namespace roced::cli {

int nccl_env_command(const Context& /*context*/, Args /*args*/) {
  std::cerr << "rocectl: nccl-env is not implemented yet\n";
  return kExitError;
}

}  // namespace roced::cli
