// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <charconv>
#include <optional>
#include <string_view>

namespace roced {

// The value of `text` if it is nothing but decimal digits and fits in T; no sign, no spaces.
// File names and values from sysfs are text from outside: std::stoi would throw on one too long.
template <typename T>
std::optional<T> parse_decimal(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace roced
