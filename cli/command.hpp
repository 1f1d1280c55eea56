// SPDX-License-Identifier: Apache-2.0
#pragma once
// One rocectl command per file (cli/cmd_<name>.cpp): the dispatcher in rocectl.cpp takes the global
// options and hands the rest of the arguments to the command.

#include <optional>
#include <string>
#include <vector>

namespace roced::cli {

// Exit codes (docs/ARCHITECTURE.md, "Contracts"): 0 ok, 1 error, 2 changes pending (plan, --check).
constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitPending = 2;
constexpr int kExitDiffers = 3;        // qualify: a check found the NIC not as roced assumes
constexpr int kExitInterrupted = 130;  // qualify --write stopped by a signal, the ports put back

struct Context {
  std::optional<std::string> sim_dir;  // --sim DIR: the simulated node instead of this machine
};

// The arguments after the command name, with --sim already taken out. `--name VALUE` and
// `--name=VALUE` both work.
class Args {
 public:
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& peek() const { return args_[i_]; }
  // True (and consumes) when the next argument is the flag `name`.
  bool flag(const std::string& name);
  // True when the next argument is `name` with a value; the value goes to `out`. Sets `error`
  // when the value is missing.
  bool option(const std::string& name, std::string& out, std::string& error);
  std::string take() { return args_[i_++]; }

 private:
  std::vector<std::string> args_;
  size_t i_ = 0;
};

// "rocectl: <message>\n\n<usage>" on stderr; returns kExitError.
int usage_error(const std::string& message, const char* usage);

int status_command(const Context& context, Args args);
int check_command(const Context& context, Args args);     // rocectl check (Nagios exit codes)
int validate_command(const Context& context, Args args);  // rocectl validate FILE
int plan_command(const Context& context, Args args);      // rocectl plan
int apply_command(const Context& context, Args args);  // rocectl apply [--check] [--diff] [--json]
int nccl_env_command(const Context& context, Args args);  // rocectl nccl-env
int reload_command(const Context& context, Args args);    // rocectl reload
int runbook_command(const Context& context, Args args);   // rocectl runbook [ALERT|FINDING]
int qualify_command(const Context& context, Args args);   // rocectl qualify [--write ...]
int probe_command(const Context& context, Args args);     // rocectl probe PEER

}  // namespace roced::cli
