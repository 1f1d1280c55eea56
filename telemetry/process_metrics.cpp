// SPDX-License-Identifier: Apache-2.0
#include "telemetry/process_metrics.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace roced::telemetry {
namespace {

constexpr FamilySpec kCpu{"process_cpu_seconds_total", MetricType::counter,
                          "Total user and system CPU time spent in seconds."};
constexpr FamilySpec kStart{"process_start_time_seconds", MetricType::gauge,
                            "Start time of the process since unix epoch in seconds."};
constexpr FamilySpec kVirtual{"process_virtual_memory_bytes", MetricType::gauge,
                              "Virtual memory size in bytes."};
constexpr FamilySpec kResident{"process_resident_memory_bytes", MetricType::gauge,
                               "Resident memory size in bytes."};
constexpr FamilySpec kOpenFds{"process_open_fds", MetricType::gauge,
                              "Number of open file descriptors."};
constexpr FamilySpec kMaxFds{"process_max_fds", MetricType::gauge,
                             "Maximum number of open file descriptors."};

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The fields of /proc/<pid>/stat after the command, which is in parentheses and may hold spaces
// or parentheses itself (proc(5)): field 3 (state) is the first after the last ')'.
std::vector<std::string> stat_fields_after_comm(const std::string& stat) {
  std::vector<std::string> fields;
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(stat.substr(close + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

std::optional<uint64_t> boot_time(const std::string& proc_stat) {
  const auto text = read_text(proc_stat);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("btime ", 0) == 0) return std::stoull(line.substr(6));
  }
  return std::nullopt;
}

// "Max open files            1024                 524288               files"
std::optional<uint64_t> max_open_files(const std::string& limits) {
  const auto text = read_text(limits);
  if (!text) return std::nullopt;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream values(line.substr(std::string("Max open files").size()));
    std::string soft;
    values >> soft;
    if (soft == "unlimited" || soft.empty()) return std::nullopt;
    return std::stoull(soft);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ProcessStats> read_process_stats(const std::string& self,
                                               const std::string& proc_stat, long ticks_per_second,
                                               long page_size) {
  const auto stat = read_text(self + "/stat");
  if (!stat || ticks_per_second <= 0) return std::nullopt;
  // proc(5) numbers fields from 1: (14) utime, (15) stime, (22) starttime, (23) vsize, (24) rss.
  // After the command, field N is at index N - 3.
  const auto fields = stat_fields_after_comm(*stat);
  if (fields.size() < 22) return std::nullopt;
  const auto field = [&](size_t number) { return std::stoull(fields[number - 3]); };
  ProcessStats stats;
  try {
    const double ticks = static_cast<double>(ticks_per_second);
    stats.cpu_seconds = static_cast<double>(field(14) + field(15)) / ticks;
    const auto btime = boot_time(proc_stat);
    stats.start_time_seconds =
        static_cast<double>(btime.value_or(0)) + static_cast<double>(field(22)) / ticks;
    stats.virtual_bytes = field(23);
    stats.resident_bytes = field(24) * static_cast<uint64_t>(page_size);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::error_code ec;
  uint64_t fds = 0;
  for (std::filesystem::directory_iterator it(self + "/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++fds;
  }
  if (!ec) stats.open_fds = fds;
  try {
    stats.max_fds = max_open_files(self + "/limits");
  } catch (const std::exception&) {
    stats.max_fds.reset();
  }
  return stats;
}

void write_process_families(ExpositionWriter& out, const ProcessStats& stats) {
  out.add(kCpu, {}, stats.cpu_seconds);
  out.add(kStart, {}, stats.start_time_seconds);
  out.add(kVirtual, {}, static_cast<double>(stats.virtual_bytes));
  out.add(kResident, {}, static_cast<double>(stats.resident_bytes));
  if (stats.open_fds) out.add(kOpenFds, {}, static_cast<double>(*stats.open_fds));
  if (stats.max_fds) out.add(kMaxFds, {}, static_cast<double>(*stats.max_fds));
}

void ProcessCollector::collect(ExpositionWriter& out) {
  if (const auto stats = read_process_stats("/proc/self", "/proc/stat", ::sysconf(_SC_CLK_TCK),
                                            ::sysconf(_SC_PAGESIZE))) {
    write_process_families(out, *stats);
  }
}

}  // namespace roced::telemetry
