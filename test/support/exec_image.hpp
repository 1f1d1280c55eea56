// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a forked child needs to exec a program, built before the fork. The child of a process with
// threads may only call async-signal-safe functions until it execs: an allocation there can wait
// forever on a lock another thread held at the fork (ASan's allocator did, hanging a test).
#include <unistd.h>

#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace roced::test {

class ExecImage {
 public:
  // `set` overrides or adds NAME=VALUE; `unset` removes names; the rest of the environment stays.
  explicit ExecImage(std::vector<std::string> args, const std::vector<std::string>& set = {},
                     const std::vector<std::string>& unset = {})
      : args_(std::move(args)) {
    const auto name_of = [](const std::string& pair) { return pair.substr(0, pair.find('=')); };
    std::vector<std::string> dropped = unset;
    for (const auto& pair : set) dropped.push_back(name_of(pair));
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string pair = *entry;
      bool keep = true;
      for (const auto& name : dropped) keep = keep && name_of(pair) != name;
      if (keep) env_.push_back(pair);
    }
    env_.insert(env_.end(), set.begin(), set.end());
    for (auto& arg : args_) argv_.push_back(arg.data());
    argv_.push_back(nullptr);
    for (auto& pair : env_) envp_.push_back(pair.data());
    envp_.push_back(nullptr);
  }
  ExecImage(const ExecImage&) = delete;
  ExecImage& operator=(const ExecImage&) = delete;

  // In the child: replaces the process (the program is looked up in PATH when it has no '/');
  // returns only on failure.
  void exec() const { ::execvpe(argv_[0], argv_.data(), envp_.data()); }

 private:
  std::vector<std::string> args_;
  std::vector<std::string> env_;
  std::vector<char*> argv_;
  std::vector<char*> envp_;
};

}  // namespace roced::test
