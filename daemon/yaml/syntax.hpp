// SPDX-License-Identifier: Apache-2.0
#pragma once
// What is wrong with a file YAML cannot read, in words a person acts on: a tab that indents, a
// '[' or '{' never closed, bytes that are not text. yaml-cpp's own message ("illegal map value",
// "end of sequence flow not found") comes after it, for whoever knows YAML.
#include <optional>
#include <string>

namespace roced::yaml {

struct SyntaxProblem {
  int line = 0;  // 1-based
  int column = 0;
  std::string message;
};

// Before parsing: a control character (a NUL, say) that no text file holds, unless the file starts
// with a UTF-16 or UTF-32 byte order mark, which YAML reads. (A name that is not UTF-8 is the
// field's error, where it is.)
std::optional<SyntaxProblem> not_text(const std::string& text);
// After yaml-cpp refused `text`: the first tab in a line's indentation, a ']' or '}' that closes
// the other kind, or the first '[' or '{' left open. Nothing when none explains it.
std::optional<SyntaxProblem> explain_syntax_error(const std::string& text);

}  // namespace roced::yaml
