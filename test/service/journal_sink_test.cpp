// SPDX-License-Identifier: Apache-2.0
// The journal sink (daemon/log/journal_sink.cpp) without a journal: the fields it builds for a
// line, and that log::port() attaches PORT= and SETTING= through spdlog to exactly its own line.
// Also the level names and the JOURNAL_STREAM check that picks the sink.
#include "daemon/log/journal_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "daemon/log/log.hpp"

namespace roced::log {
namespace {

using Fields = std::vector<std::string>;

bool has(const Fields& fields, const std::string& field) {
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

size_t count_prefix(const Fields& fields, const std::string& prefix) {
  return static_cast<size_t>(std::count_if(fields.begin(), fields.end(),
                                           [&](const auto& f) { return f.rfind(prefix, 0) == 0; }));
}

TEST(JournalFields, PlainLineHasMessagePriorityAndIdentifierOnly) {
  const spdlog::details::log_msg message("roced", spdlog::level::warn, "4 ports: 1 drifted");
  const Fields fields = journal_fields(message, nullptr, "roced");
  EXPECT_EQ(fields,
            (Fields{"MESSAGE=4 ports: 1 drifted", "PRIORITY=4", "SYSLOG_IDENTIFIER=roced"}));
}

TEST(JournalFields, AFindingLineCarriesItsId) {
  const spdlog::details::log_msg message("roced", spdlog::level::err,
                                         "lan3: rocev2_gid_index_moved: RoCE v2 GID index is 5");
  const PortFields port{"lan3", {}, "rocev2_gid_index_moved"};
  const Fields fields = journal_fields(message, &port, "roced");
  EXPECT_TRUE(has(fields, "PORT=lan3"));
  EXPECT_TRUE(has(fields, "FINDING=rocev2_gid_index_moved"));
  EXPECT_EQ(count_prefix(fields, "SETTING="), 0u);
}

TEST(JournalFields, PortLineAddsPortAndOneSettingFieldPerSetting) {
  const spdlog::details::log_msg message("roced", spdlog::level::info, "lan3: corrected");
  const PortFields port{"lan3", {"pfc.priorities", "mtu"}, {}};
  const Fields fields = journal_fields(message, &port, "roced");
  EXPECT_TRUE(has(fields, "MESSAGE=lan3: corrected"));
  EXPECT_TRUE(has(fields, "PRIORITY=6"));
  EXPECT_TRUE(has(fields, "PORT=lan3"));
  EXPECT_TRUE(has(fields, "SETTING=pfc.priorities"));
  EXPECT_TRUE(has(fields, "SETTING=mtu"));
  EXPECT_EQ(count_prefix(fields, "SETTING="), 2u);
}

TEST(JournalFields, SourceLocationWhenGiven) {
  const spdlog::source_loc where{"service.cpp", 42, "run"};
  const spdlog::details::log_msg message(where, "roced", spdlog::level::err, "failed");
  const Fields fields = journal_fields(message, nullptr, "roced");
  EXPECT_TRUE(has(fields, "CODE_FILE=service.cpp"));
  EXPECT_TRUE(has(fields, "CODE_LINE=42"));
  EXPECT_TRUE(has(fields, "CODE_FUNC=run"));
  EXPECT_TRUE(has(fields, "PRIORITY=3"));
}

TEST(JournalFields, PriorityFollowsSyslog) {
  EXPECT_EQ(syslog_priority(spdlog::level::trace), LOG_DEBUG);
  EXPECT_EQ(syslog_priority(spdlog::level::debug), LOG_DEBUG);
  EXPECT_EQ(syslog_priority(spdlog::level::info), LOG_INFO);
  EXPECT_EQ(syslog_priority(spdlog::level::warn), LOG_WARNING);
  EXPECT_EQ(syslog_priority(spdlog::level::err), LOG_ERR);
  EXPECT_EQ(syslog_priority(spdlog::level::critical), LOG_CRIT);
}

// Through spdlog, as roced logs: the sink sees the fields of log::port()'s line and of no other.
class JournalSinkThroughSpdlog : public ::testing::Test {
 protected:
  void SetUp() override {
    previous_ = spdlog::default_logger();
    auto sink = std::make_shared<JournalSink>("roced", [this](const Fields& fields) {
      sent_.push_back(fields);
      return 0;
    });
    auto logger = std::make_shared<spdlog::logger>("test", sink);
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  void TearDown() override { spdlog::set_default_logger(previous_); }

  std::shared_ptr<spdlog::logger> previous_;
  std::vector<Fields> sent_;
};

TEST_F(JournalSinkThroughSpdlog, PortFieldsBelongToTheirLineOnly) {
  port(spdlog::level::warn, "lan3", "pfc.priorities", "drifted: {} -> {}", "3", "3,4");
  spdlog::info("4 ports: 4 in sync");
  port(spdlog::level::info, "lan5", std::vector<std::string>{"mtu", "dcbx"}, "corrected");
  port(spdlog::level::info, "lan2", "", "appeared");
  ASSERT_EQ(sent_.size(), 4u);

  EXPECT_TRUE(has(sent_[0], "MESSAGE=lan3: drifted: 3 -> 3,4"));
  EXPECT_TRUE(has(sent_[0], "PORT=lan3"));
  EXPECT_TRUE(has(sent_[0], "SETTING=pfc.priorities"));
  EXPECT_TRUE(has(sent_[0], "PRIORITY=4"));
  EXPECT_TRUE(has(sent_[0], "SYSLOG_IDENTIFIER=roced"));

  EXPECT_TRUE(has(sent_[1], "MESSAGE=4 ports: 4 in sync"));
  EXPECT_EQ(count_prefix(sent_[1], "PORT="), 0u);
  EXPECT_EQ(count_prefix(sent_[1], "SETTING="), 0u);

  EXPECT_TRUE(has(sent_[2], "PORT=lan5"));
  EXPECT_TRUE(has(sent_[2], "SETTING=mtu"));
  EXPECT_TRUE(has(sent_[2], "SETTING=dcbx"));

  EXPECT_TRUE(has(sent_[3], "PORT=lan2"));
  EXPECT_EQ(count_prefix(sent_[3], "SETTING="), 0u);
  EXPECT_EQ(current_fields(), nullptr);
}

TEST_F(JournalSinkThroughSpdlog, BelowTheLevelNothingIsSent) {
  port(spdlog::level::debug, "lan3", "pfc", "checked");
  spdlog::debug("drift check");
  EXPECT_TRUE(sent_.empty());
}

TEST(LogLevels, SpdlogNamesOnly) {
  EXPECT_EQ(parse_level("trace"), spdlog::level::trace);
  EXPECT_EQ(parse_level("warn"), spdlog::level::warn);
  EXPECT_EQ(parse_level("error"), spdlog::level::err);
  EXPECT_EQ(parse_level("off"), spdlog::level::off);
  EXPECT_EQ(parse_level("warning"), std::nullopt);
  EXPECT_EQ(parse_level("INFO"), std::nullopt);
  EXPECT_EQ(level_name(spdlog::level::err), "error");
}

// JOURNAL_STREAM names stderr's device:inode when systemd connected stderr to the journal.
TEST(LogTarget, JournalOnlyWhenJournalStreamIsStderr) {
  const char* saved = std::getenv("JOURNAL_STREAM");
  const std::string saved_value = saved ? saved : "";
  struct stat err {};
  ASSERT_EQ(::fstat(STDERR_FILENO, &err), 0);

  ::unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(stderr_is_journal());
  const std::string mine = std::to_string(err.st_dev) + ":" + std::to_string(err.st_ino);
  ::setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(stderr_is_journal());
  const std::string other = std::to_string(err.st_dev) + ":" + std::to_string(err.st_ino + 1);
  ::setenv("JOURNAL_STREAM", other.c_str(), 1);
  EXPECT_FALSE(stderr_is_journal());
  ::setenv("JOURNAL_STREAM", "garbage", 1);
  EXPECT_FALSE(stderr_is_journal());

  if (saved) {
    ::setenv("JOURNAL_STREAM", saved_value.c_str(), 1);
  } else {
    ::unsetenv("JOURNAL_STREAM");
  }
}

}  // namespace
}  // namespace roced::log
