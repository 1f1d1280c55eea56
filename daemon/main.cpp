// roced: the node daemon. For now it checks configuration files; the service itself (reconcile,
// watchdog, metrics) arrives with issue 4.
#include <iostream>
#include <string>
#include <vector>

#include "daemon/config/config.hpp"
#include "daemon/config/summary.hpp"

namespace {

constexpr const char* kUsage =
    "usage: roced --check-config FILE\n"
    "       roced --help | --version\n"
    "\n"
    "  --check-config FILE  check FILE (docs/config.md) and exit: 0 valid (warnings allowed),\n"
    "                       1 invalid; every problem is printed as file:line:column: field: ...\n"
    "  -h, --help           show this help\n"
    "  --version            print the version\n"
    "\n"
    "Service mode (roced [--config PATH] [--sim DIR]) is not implemented yet.\n";

int usage_error(const std::string& message) {
  std::cerr << "roced: " << message << "\n\n" << kUsage;
  return 1;
}

int check_config(const std::string& path) {
  const roced::config::LoadResult loaded = roced::config::load_file(path);
  for (const auto& diagnostic : loaded.diagnostics) std::cerr << diagnostic.to_string() << "\n";
  if (!loaded.ok()) {
    std::cerr << path << ": invalid\n";
    return 1;
  }
  std::cout << path << ": valid (" << roced::config::describe_selection(*loaded.config) << ")\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.size() == 1 && args[0] == "--version") {
    std::cout << "roced " << ROCED_VERSION << "\n";
    return 0;
  }
  if (args.size() == 2 && args[0] == "--check-config") return check_config(args[1]);
  if (args.size() == 1 && args[0].rfind("--check-config=", 0) == 0) {
    return check_config(args[0].substr(15));
  }
  if (args.size() == 1 && args[0] == "--check-config") {
    return usage_error("--check-config needs a file");
  }
  return usage_error(args.empty()
                         ? "service mode is not implemented yet; only --check-config FILE is"
                         : "unknown arguments (service mode is not implemented yet; only "
                           "--check-config FILE is)");
}
