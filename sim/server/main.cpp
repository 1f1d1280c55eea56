// SPDX-License-Identifier: Apache-2.0
// roce-sim: a simulated node of mlx5 ports behind the kernel's interfaces (see uapi/roce_sim.h).
//   roce-sim run [--node FILE] [--scenario FILE] [--speed X] [--duration S] --dir DIR [--quiet]
//   [--verbose]
//   roce-sim exec DIR -- CMD [ARGS...]
//   roce-sim inject DIR FILE|-
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "roce_sim.h"
#include "sim/server/inject.hpp"
#include "sim/server/server.hpp"

namespace fs = std::filesystem;

namespace {

constexpr const char* kUsage =
    "usage: roce-sim run [--node FILE] [--scenario FILE] [--speed X] [--duration S] --dir DIR\n"
    "                    [--link-training MS] [--enforce-capabilities] [--quiet] [--verbose]\n"
    "       roce-sim exec DIR -- CMD [ARGS...]\n"
    "       roce-sim inject DIR FILE    play FILE's events (and traffic) into the node running\n"
    "                                   in DIR, their times from now; FILE - reads stdin\n";

int usage(const std::string& problem) {
  if (!problem.empty()) std::cerr << "roce-sim: " << problem << "\n";
  std::cerr << kUsage;
  return 2;
}

bool parse_double(const std::string& text, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && end && *end == '\0' && !text.empty() && out > 0;
}

int run_command(const std::vector<std::string>& args) {
  roce_sim::server::RunOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string text;
    if (arg == "--enforce-capabilities") {
      options.enforce_capabilities = true;
    } else if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--verbose") {
      options.verbose = true;
    } else if (arg == "--dir") {
      if (!value(text)) return usage("--dir needs a directory");
      options.dir = text;
    } else if (arg == "--node") {
      if (!value(text)) return usage("--node needs a file");
      options.node_file = text;
    } else if (arg == "--scenario") {
      if (!value(text)) return usage("--scenario needs a file");
      options.scenario_file = text;
    } else if (arg == "--speed") {
      double speed = 0;
      if (!value(text) || !parse_double(text, speed))
        return usage("--speed needs a positive number");
      options.speed = speed;
    } else if (arg == "--link-training") {
      double ms = 0;
      if (!value(text) || !(text == "0" || parse_double(text, ms)) || ms > 60000)
        return usage("--link-training needs milliseconds (0 to 60000)");
      options.link_training_ms = static_cast<uint32_t>(ms);
    } else if (arg == "--duration") {
      double duration = 0;
      if (!value(text) || !parse_double(text, duration))
        return usage("--duration needs positive seconds");
      options.duration = duration;
    } else {
      return usage("unknown option '" + arg + "'");
    }
  }
  if (options.dir.empty()) return usage("--dir is required");
  return roce_sim::server::run(options);
}

// The shim: $ROCE_SIM_SHIM, else next to this binary, else the build tree, else ../lib/roced/.
std::string find_shim() {
  if (const char* env = std::getenv("ROCE_SIM_SHIM"); env && *env) return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) {
    candidates.push_back(self.parent_path() / "libroce_sim_shim.so");
    candidates.push_back(self.parent_path() / "../lib/roced/libroce_sim_shim.so");
  }
#ifdef ROCE_SIM_SHIM_BUILD_PATH
  candidates.push_back(ROCE_SIM_SHIM_BUILD_PATH);
#endif
  for (const fs::path& candidate : candidates) {
    if (fs::exists(candidate, ec)) return fs::absolute(candidate, ec).lexically_normal().string();
  }
  return {};
}

int exec_command(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[1] != "--") return usage("exec needs DIR -- CMD");
  const fs::path dir = fs::absolute(args[0]);
  if (!fs::exists(dir / ROCE_SIM_PIDFILE)) {
    std::cerr << "roce-sim: no running node in " << dir.string() << " (no " << ROCE_SIM_PIDFILE
              << ")\n";
    return 1;
  }
  const std::string shim = find_shim();
  if (shim.empty()) {
    std::cerr << "roce-sim: cannot find libroce_sim_shim.so (set ROCE_SIM_SHIM)\n";
    return 1;
  }
  std::string preload = shim;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
    preload += std::string(":") + existing;
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  ::setenv(ROCE_SIM_DIR_ENV, dir.c_str(), 1);
  std::vector<char*> argv;
  for (size_t i = 2; i < args.size(); ++i) argv.push_back(const_cast<char*>(args[i].c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::cerr << "roce-sim: cannot run " << args[2] << ": " << std::strerror(errno) << "\n";
  return 127;
}

// Exit 0: the node took the document; 1: it refused it (the error on stderr), or no node answered.
int inject_command(const std::vector<std::string>& args) {
  if (args.size() != 2) return usage("inject needs DIR and FILE (- for stdin)");
  std::ostringstream document;
  std::string source = args[1];
  if (source == "-") {
    source = "<stdin>";
    document << std::cin.rdbuf();
  } else {
    std::ifstream in(source);
    if (!in) {
      std::cerr << "roce-sim: cannot read " << source << ": " << std::strerror(errno) << "\n";
      return 1;
    }
    document << in.rdbuf();
  }
  return roce_sim::server::inject(args[0], source, document.str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("");
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  const auto asks_help = [](const std::string& arg) {
    return arg == "--help" || arg == "-h" || arg == "help";
  };
  // `roce-sim run --help` is a question, not a mistake (exec's arguments are the command's own).
  if (asks_help(command) || (command != "exec" && !args.empty() && asks_help(args.front()))) {
    std::cout << kUsage;
    return 0;
  }
  if (command == "run") return run_command(args);
  if (command == "exec") return exec_command(args);
  if (command == "inject") return inject_command(args);
  return usage("unknown command '" + command + "'");
}
