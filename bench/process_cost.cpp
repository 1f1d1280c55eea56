// SPDX-License-Identifier: Apache-2.0
#include "bench/process_cost.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace roced::bench {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ProcessCost read_cost(pid_t pid) {
  ProcessCost cost;
  const fs::path proc = "/proc/" + std::to_string(pid);
  const std::string stat = read_text(proc / "stat");
  // Fields after the ")" that ends the command name: state is field 3, utime 14, stime 15.
  if (const size_t paren = stat.rfind(')'); paren != std::string::npos) {
    std::istringstream fields(stat.substr(paren + 2));
    std::vector<std::string> values;
    for (std::string value; fields >> value;) values.push_back(value);
    if (values.size() > 12) {
      const double tick_ms = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
      cost.cpu_ticks_ms = (std::stod(values[11]) + std::stod(values[12])) * tick_ms;
    }
  }
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(proc / "task", ec)) {
    std::istringstream sched(read_text(task.path() / "schedstat"));
    double ns = 0;
    if (sched >> ns) cost.cpu_sched_ms += ns / 1e6;
    ++cost.threads;
  }
  std::istringstream status(read_text(proc / "status"));
  for (std::string line; std::getline(status, line);) {
    std::istringstream words(line);
    std::string key;
    double kib = 0;
    words >> key >> kib;
    if (key == "VmRSS:") cost.rss_mib = kib / 1024;
    if (key == "VmHWM:") cost.hwm_mib = kib / 1024;
  }
  return cost;
}

}  // namespace roced::bench
