// SPDX-License-Identifier: Apache-2.0
// The file rocectl nccl-env --output keeps up to date: written whole and only when it changes,
// readable by job pods whatever the umask, and --every's loop on a simulated clock.
#include "cli/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

#include "sim/inprocess/simulated_time.hpp"

namespace roced::cli {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-output-file-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    path_ = (dir_ / "nccl.env").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string content() const {
    std::ifstream in(path_);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  ino_t inode() const {
    struct stat st {};
    EXPECT_EQ(::stat(path_.c_str(), &st), 0);
    return st.st_ino;
  }
  // Every entry of the directory: a temporary file left behind would show here.
  size_t entries() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(OutputFile, WritesWholeWithMode0644WhateverTheUmask) {
  const mode_t old_umask = ::umask(077);
  const auto written = write_if_changed(path_, "export NCCL_IB_GID_INDEX=3\n");
  ::umask(old_umask);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(*written, Written::Changed);
  EXPECT_EQ(content(), "export NCCL_IB_GID_INDEX=3\n");
  struct stat st {};
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, LeavesAnUnchangedFileAloneAndReplacesAChangedOne) {
  ASSERT_TRUE(write_if_changed(path_, "A=1\n").ok());
  const ino_t first = inode();
  const auto same = write_if_changed(path_, "A=1\n");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, Written::Unchanged);
  EXPECT_EQ(inode(), first);  // not even rewritten in place
  const auto other = write_if_changed(path_, "A=2\n");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, Written::Changed);
  // Renamed over the old one: a reader that opened the old file keeps reading it whole.
  EXPECT_NE(inode(), first);
  EXPECT_EQ(content(), "A=2\n");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, AMissingDirectoryIsAnErrorThatLeavesNothing) {
  const std::string path = (dir_ / "no-such-dir" / "nccl.env").string();
  const auto written = write_if_changed(path, "A=1\n");
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("no-such-dir"), std::string::npos)
      << written.error().message;
  EXPECT_EQ(entries(), 0u);
}

TEST(DescribeChange, NamesEachVariableThatChanged) {
  EXPECT_EQ(describe_change("export NCCL_IB_HCA==mlx5_0:1\nexport NCCL_IB_GID_INDEX=3\n",
                            "export NCCL_IB_HCA==mlx5_0:1\nexport NCCL_IB_GID_INDEX=5\n"),
            "NCCL_IB_GID_INDEX 3 -> 5");
  EXPECT_EQ(describe_change("A=1\nB=2\n# a note\n", "A=1\nC=3\n"), "C 3 (new), B (gone)");
  EXPECT_EQ(describe_change("", "NCCL_IB_TC=106\n"), "NCCL_IB_TC 106 (new)");
  EXPECT_EQ(describe_change("A=1\n# one note\n", "A=1\n# another\n"), "content changed");
}

// --every's loop, on a clock only the test moves.
class KeepWritten : public OutputFile {
 protected:
  void SetUp() override {
    OutputFile::SetUp();
    set_text("export NCCL_IB_GID_INDEX=3\n");
  }
  void TearDown() override {
    stop_.raise();
    if (loop_.joinable()) loop_.join();
    OutputFile::TearDown();
  }
  void set_text(const std::string& text) {
    const std::lock_guard lock(mutex_);
    next_ = {text, ""};
  }
  void set_error(const std::string& error) {
    const std::lock_guard lock(mutex_);
    next_ = {std::nullopt, error};
  }
  void start() {
    loop_ = time_.start_thread([this] {
      keep_written(
          time_, stop_, seconds(60), path_,
          [this] {
            ++renders_;
            const std::lock_guard lock(mutex_);
            return next_;
          },
          log_);
    });
    ASSERT_TRUE(time_.until_waiting(1));  // the first run is done
  }
  // Read between the clock's moves: advance() returns once the loop waits again.
  std::string log() const { return log_.str(); }
  static size_t count(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
  }

  roce_sim::SimulatedTime time_;
  StopSignal stop_;
  std::mutex mutex_;
  Rendering next_;
  std::atomic<int> renders_{0};
  std::ostringstream log_;
  std::thread loop_;
};

TEST_F(KeepWritten, RendersAtOnceThenEveryIntervalAndWritesOnlyChanges) {
  start();
  EXPECT_EQ(renders_, 1);
  EXPECT_EQ(content(), "export NCCL_IB_GID_INDEX=3\n");
  EXPECT_EQ(log(), "rocectl: " + path_ + " written: NCCL_IB_GID_INDEX 3 (new)\n");
  const ino_t first = inode();

  time_.advance(seconds(59));
  EXPECT_EQ(renders_, 1);  // not before the interval
  time_.advance(seconds(1));
  EXPECT_EQ(renders_, 2);  // the node read again
  EXPECT_EQ(inode(), first);
  EXPECT_EQ(count(log(), "\n"), 1u);  // nothing changed, nothing said

  // The RoCE v2 GID index moved (an address added before the host's).
  set_text("export NCCL_IB_GID_INDEX=5\n");
  time_.advance(seconds(60));
  EXPECT_EQ(renders_, 3);
  EXPECT_EQ(content(), "export NCCL_IB_GID_INDEX=5\n");
  EXPECT_NE(inode(), first);
  EXPECT_EQ(count(log(), " changed: NCCL_IB_GID_INDEX 3 -> 5\n"), 1u) << log();
  EXPECT_EQ(entries(), 1u);

  stop_.raise();
  loop_.join();  // at once: the stop ends the wait, not the clock
  EXPECT_EQ(renders_, 3);
}

TEST_F(KeepWritten, AFailedReadingKeepsTheFileAndIsToldOnce) {
  start();
  set_error("the configuration is not valid");
  time_.advance(seconds(60));
  time_.advance(seconds(60));
  EXPECT_EQ(renders_, 3);
  EXPECT_EQ(content(), "export NCCL_IB_GID_INDEX=3\n");  // the last good one stays for the jobs
  EXPECT_EQ(count(log(), "left as it is: the configuration is not valid\n"), 1u) << log();

  set_text("export NCCL_IB_GID_INDEX=3\n");
  time_.advance(seconds(60));
  EXPECT_EQ(count(log(), " is up to date\n"), 1u) << log();  // back, said once
  time_.advance(seconds(60));
  EXPECT_EQ(count(log(), " is up to date\n"), 1u) << log();
}

TEST_F(KeepWritten, AFileAlreadyUpToDateIsLeftAloneFromTheFirstRun) {
  ASSERT_TRUE(write_if_changed(path_, "export NCCL_IB_GID_INDEX=3\n").ok());
  const ino_t before = inode();
  start();
  EXPECT_EQ(inode(), before);  // a restarted sidecar rewrites nothing
  EXPECT_EQ(log(), "rocectl: " + path_ + " is up to date\n");
}

}  // namespace
}  // namespace roced::cli
