// SPDX-License-Identifier: Apache-2.0
#pragma once
// Bad input in a node description or scenario file. what() names the place and the field:
// "node.yaml:12:9: nics[0].ports[1].speed: 'fast' is not a speed (e.g. 400G)".

#include <stdexcept>
#include <string>
#include <utility>

namespace roce_sim {

class FileError : public std::runtime_error {
 public:
  // line and column are 1-based (0 when unknown, e.g. the file could not be opened). An empty
  // field leaves it out of what(): "node.yaml:3:1: end of sequence flow not found".
  FileError(std::string file, int line, int column, std::string field, std::string message)
      : std::runtime_error(format(file, line, column, field, message)),
        file_(std::move(file)),
        line_(line),
        column_(column),
        field_(std::move(field)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  static std::string format(const std::string& file, int line, int column, const std::string& field,
                            const std::string& message) {
    std::string text = file;
    if (line > 0) text += ":" + std::to_string(line) + ":" + std::to_string(column);
    text += ": ";
    if (!field.empty()) text += field + ": ";
    return text + message;
  }

  std::string file_;
  int line_;
  int column_;
  std::string field_;
  std::string message_;
};

}  // namespace roce_sim
