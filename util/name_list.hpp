// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace roced {

// "lan0-lan15" for a run of three or more names that count up by one, else "lan2, lan7". The
// names are taken in the order given.
inline std::string name_list(const std::vector<std::string>& names) {
  const auto split = [](const std::string& name) -> std::pair<std::string, long> {
    size_t digits = name.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(name[digits - 1]))) --digits;
    if (digits == name.size() || name.size() - digits > 9) return {name, -1};
    return {name.substr(0, digits), std::stol(name.substr(digits))};
  };
  std::string out;
  for (size_t i = 0; i < names.size();) {
    const auto [prefix, number] = split(names[i]);
    size_t run = 1;
    while (number >= 0 && i + run < names.size() &&
           split(names[i + run]) ==
               std::pair<std::string, long>{prefix, number + static_cast<long>(run)}) {
      ++run;
    }
    if (!out.empty()) out += ", ";
    if (run >= 3) {
      out += names[i] + "-" + names[i + run - 1];
    } else {
      run = 1;
      out += names[i];
    }
    i += run;
  }
  return out;
}

// Names that share a stem in numeric order ("lan2v2" before "lan2v10"), so that runs compress.
inline void sort_numerically(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
}

}  // namespace roced
