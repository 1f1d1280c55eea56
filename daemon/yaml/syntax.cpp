// SPDX-License-Identifier: Apache-2.0
#include "daemon/yaml/syntax.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

namespace roced::yaml {

namespace {

bool has_wide_bom(const std::string& text) {
  const auto starts = [&](std::initializer_list<uint8_t> bytes) {
    if (text.size() < bytes.size()) return false;
    size_t i = 0;
    for (const uint8_t byte : bytes) {
      if (static_cast<uint8_t>(text[i++]) != byte) return false;
    }
    return true;
  };
  return starts({0xFF, 0xFE}) || starts({0xFE, 0xFF}) || starts({0, 0, 0xFE, 0xFF});
}

std::string hex(uint8_t byte) {
  char out[8];
  std::snprintf(out, sizeof out, "0x%02X", byte);
  return out;
}

}  // namespace

std::optional<SyntaxProblem> not_text(const std::string& text) {
  if (has_wide_bom(text)) return std::nullopt;
  int line = 1;
  int column = 1;
  for (const char c : text) {
    const auto byte = static_cast<uint8_t>(c);
    if (byte < 0x20 && c != '\n' && c != '\t' && c != '\r') {
      return SyntaxProblem{line, column,
                           "byte " + hex(byte) +
                               " is a control character, not text: roced.yaml is a UTF-8 text "
                               "file (is this a binary file, or text in another encoding?)"};
    }
    // Columns count characters: a UTF-8 continuation byte adds none.
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((byte & 0xC0) != 0x80) {
      ++column;
    }
  }
  return std::nullopt;
}

std::optional<SyntaxProblem> explain_syntax_error(const std::string& text) {
  struct Open {
    char bracket;
    int line;
    int column;
  };
  std::vector<Open> open;
  int line = 1;
  int column = 0;
  bool line_start = true;  // still in the line's indentation
  char quote = 0;
  bool comment = false;
  for (size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      line_start = true;
      comment = false;
      quote = 0;  // roced.yaml's quoted strings are one line long; an apostrophe ends here
      continue;
    }
    if (comment) continue;
    if (line_start && c == '\t') {
      return SyntaxProblem{line, column, "a tab in the indentation: YAML indents with spaces only"};
    }
    if (c != ' ') line_start = false;
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '#' &&
        (at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '\n')) {
      comment = true;
    } else if ((c == '"' || c == '\'') &&
               (at == 0 ||
                std::string_view(" \t\n[{,:").find(text[at - 1]) != std::string_view::npos)) {
      quote = c;  // a quote opens a string only where a value begins: "don't" is a plain word
    } else if (c == '[' || c == '{') {
      open.push_back({c, line, column});
    } else if ((c == ']' || c == '}') && !open.empty()) {
      const Open& last = open.back();
      const char wanted = last.bracket == '[' ? ']' : '}';
      if (c != wanted) {
        return SyntaxProblem{line, column,
                             std::string("this '") + c + "' closes the '" + last.bracket +
                                 "' at line " + std::to_string(last.line) + ", column " +
                                 std::to_string(last.column) + ", which wants a '" + wanted + "'"};
      }
      open.pop_back();
    }
  }
  if (open.empty()) return std::nullopt;
  const Open& first = open.front();
  return SyntaxProblem{first.line, first.column,
                       std::string("this '") + first.bracket + "' is never closed by a '" +
                           (first.bracket == '[' ? ']' : '}') + "'"};
}

}  // namespace roced::yaml
