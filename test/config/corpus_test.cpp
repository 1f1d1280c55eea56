// SPDX-License-Identifier: Apache-2.0
// Every file under test/config/bad/ is a case: its first line says the first diagnostic the
// loader must give, "# expect: LINE:COLUMN: FIELD: SUBSTRING", and the load must fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

#include "daemon/config/config.hpp"
#include "test/support/build_paths.hpp"

namespace roced::config {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> bad_configs() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(ROCED_BAD_CONFIGS)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Expectation {
  int line = 0;
  int column = 0;
  std::string field;
  std::string text;
};

std::optional<Expectation> expectation_of(const std::string& path) {
  std::ifstream file(path);
  std::string first;
  std::getline(file, first);
  static const std::regex pattern(R"(^# expect: (\d+):(\d+): ([^ ]*): (.+)$)");
  std::smatch match;
  if (!std::regex_match(first, match, pattern)) return std::nullopt;
  return Expectation{std::stoi(match[1]), std::stoi(match[2]), match[3], match[4]};
}

class BadConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(BadConfig, FailsWithTheExpectedFirstDiagnostic) {
  const std::string path = std::string(ROCED_BAD_CONFIGS) + "/" + GetParam();
  const auto expected = expectation_of(path);
  ASSERT_TRUE(expected) << path << ": the first line must be '# expect: L:C: field: text'";
  const LoadResult result = load_file(path);
  std::string all;
  for (const auto& d : result.diagnostics) all += d.to_string() + "\n";
  EXPECT_FALSE(result.ok()) << all;
  ASSERT_FALSE(result.diagnostics.empty());
  const Diagnostic& first = result.diagnostics.front();
  EXPECT_EQ(first.severity, Diagnostic::Severity::Error) << all;
  EXPECT_EQ(first.line, expected->line) << all;
  EXPECT_EQ(first.column, expected->column) << all;
  EXPECT_EQ(first.field, expected->field) << all;
  EXPECT_NE(first.message.find(expected->text), std::string::npos) << all;
  EXPECT_EQ(first.file, path);
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadConfig, ::testing::ValuesIn(bad_configs()), case_name);

TEST(BadConfigCorpus, IsNotEmpty) { EXPECT_GE(bad_configs().size(), 10u); }

}  // namespace
}  // namespace roced::config
