// SPDX-License-Identifier: Apache-2.0
#pragma once
// "did you mean 'priorities'?" for a key or value that is close to a known one.

#include <optional>
#include <string>
#include <vector>

namespace roced::yaml {

// The candidate closest to `word` when it is close enough to be a typo (edit distance, ignoring
// case and '-' vs '_'); nullopt otherwise.
std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates);

// " (did you mean 'priorities'?)" or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace roced::yaml
