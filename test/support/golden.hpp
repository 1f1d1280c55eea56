// SPDX-License-Identifier: Apache-2.0
#pragma once
// A golden file: `actual` must equal the file byte for byte. ROCED_UPDATE_GOLDEN=1 rewrites it
// instead (the test then reports itself skipped, so a run that only rewrote is not a pass).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace roced::test {

// The first differing line and the case ("== case ..." line) it belongs to, not the whole file.
inline void expect_golden(const std::string& path, const std::string& actual) {
  if (std::getenv("ROCED_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream file(path, std::ios::binary);
  ASSERT_TRUE(file) << "no " << path << ": run with ROCED_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << file.rdbuf();
  if (expected.str() == actual) return;
  std::istringstream want(expected.str());
  std::istringstream got(actual);
  std::string want_line;
  std::string got_line;
  std::string last_case;
  for (int line = 1;; ++line) {
    const bool more_want = static_cast<bool>(std::getline(want, want_line));
    const bool more_got = static_cast<bool>(std::getline(got, got_line));
    if (!more_want && !more_got) break;
    if (got_line.rfind("== case", 0) == 0) last_case = got_line;
    if (more_want != more_got || want_line != got_line) {
      FAIL() << path << " differs at line " << line << " (" << last_case << ")\nwant: " << want_line
             << "\ngot:  " << got_line;
    }
  }
  FAIL() << path << " differs";
}

}  // namespace roced::test
