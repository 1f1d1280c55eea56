// SPDX-License-Identifier: Apache-2.0
#include "telemetry/runbook.hpp"

namespace roced::telemetry {
namespace detail {
extern const std::string_view kRunbookText;
}  // namespace detail

namespace {

constexpr std::string_view kHeading = "\n## ";

// The offset of each "## " heading line, in order.
std::vector<size_t> heading_offsets() {
  std::vector<size_t> offsets;
  const std::string_view text = detail::kRunbookText;
  for (size_t at = text.find(kHeading); at != std::string_view::npos;
       at = text.find(kHeading, at + 1)) {
    offsets.push_back(at + 1);
  }
  return offsets;
}

std::string_view heading_name(size_t offset) {
  std::string_view line = detail::kRunbookText.substr(offset + kHeading.size() - 1);
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && line.back() == ' ') line.remove_suffix(1);
  return line;
}

}  // namespace

std::string_view runbook() { return detail::kRunbookText; }

std::optional<std::string_view> runbook_section(std::string_view alert) {
  const std::vector<size_t> offsets = heading_offsets();
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (heading_name(offsets[i]) != alert) continue;
    const size_t end = i + 1 < offsets.size() ? offsets[i + 1] : detail::kRunbookText.size();
    return detail::kRunbookText.substr(offsets[i], end - offsets[i]);
  }
  return std::nullopt;
}

std::vector<std::string_view> runbook_alerts() {
  std::vector<std::string_view> names;
  for (const size_t offset : heading_offsets()) names.push_back(heading_name(offset));
  return names;
}

}  // namespace roced::telemetry
