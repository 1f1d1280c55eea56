// SPDX-License-Identifier: Apache-2.0
#include "health/history.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace roced::health {

namespace {

constexpr int kVersion = 1;

using std::chrono::duration_cast;
using std::chrono::milliseconds;

}  // namespace

std::string history_document(const std::map<std::string, const CounterWindow*>& windows,
                             SteadyTime now, WallTime wall_now) {
  nlohmann::json ports = nlohmann::json::object();
  for (const auto& [netdev, window] : windows) {
    nlohmann::json steps = nlohmann::json::array();
    for (const CounterWindow::Step& step : window->steps()) {
      if (step.own) continue;
      const WallTime at = wall_now - duration_cast<WallTime::duration>(now - step.at);
      steps.push_back(
          {duration_cast<milliseconds>(at.time_since_epoch()).count(), step.counted, step.seconds});
    }
    if (!steps.empty()) ports[netdev] = std::move(steps);
  }
  return nlohmann::json{{"version", kVersion}, {"symbol_errors", std::move(ports)}}.dump() + "\n";
}

std::map<std::string, std::deque<CounterWindow::Step>> read_history(const std::string& text,
                                                                    SteadyTime now,
                                                                    WallTime wall_now) {
  std::map<std::string, std::deque<CounterWindow::Step>> out;
  const auto document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object() || document.value("version", 0) != kVersion) return out;
  const auto ports = document.find("symbol_errors");
  if (ports == document.end() || !ports->is_object()) return out;
  const auto oldest = wall_now - std::chrono::hours(1);
  for (const auto& [netdev, steps] : ports->items()) {
    if (!steps.is_array()) continue;
    std::deque<CounterWindow::Step> kept;
    for (const auto& step : steps) {
      if (!step.is_array() || step.size() != 3 || !step[0].is_number_integer() ||
          !step[1].is_number_unsigned() || !step[2].is_number() || step[2].get<double>() < 0) {
        continue;
      }
      const WallTime at{milliseconds(step[0].get<int64_t>())};
      if (at <= oldest || at > wall_now) continue;
      kept.push_back({now - duration_cast<SteadyTime::duration>(wall_now - at),
                      step[1].get<uint64_t>(), step[2].get<double>(), false});
    }
    // In time order, whatever the file's: the window drops its oldest from the front.
    std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    if (!kept.empty()) out[netdev] = std::move(kept);
  }
  return out;
}

}  // namespace roced::health
