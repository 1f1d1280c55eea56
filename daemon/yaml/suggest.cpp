// SPDX-License-Identifier: Apache-2.0
// Typo suggestions by optimal-string-alignment distance (Levenshtein plus one transposition), so
// "priorites", "proirities" and "cable-length" all find their key.
#include "daemon/yaml/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace roced::yaml {

namespace {

std::string normalised(const std::string& word) {
  std::string out;
  for (char c : word) {
    out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates) {
  const std::string typed = normalised(word);
  // Short names tolerate one slip, longer ones a third of their length (at most 3).
  const size_t allowed = std::clamp<size_t>(typed.size() / 3, 1, 3);
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(typed, normalised(candidate));
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const auto match = closest_match(word, candidates);
  return match ? " (did you mean '" + *match + "'?)" : "";
}

}  // namespace roced::yaml
