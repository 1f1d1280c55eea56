// SPDX-License-Identifier: Apache-2.0
// --watch-config's file watch, on this machine's inotify: every way a configuration file is
// replaced in practice is a change, the same bytes again are not. inotify queues an event before
// the call that caused it returns, so each check polls without waiting.
#include "daemon/service/config_watch.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "test/service/configmap_dir.hpp"

namespace roced::service {
namespace {

namespace fs = std::filesystem;

class ConfigWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/roced-config-watch.XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What the service loop does: ask only once poll(2) said the watch is readable.
  static bool changed(ConfigWatch& watch) {
    pollfd fd{watch.fd(), POLLIN, 0};
    if (::poll(&fd, 1, 0) != 1) return false;
    return watch.changed();
  }
  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  fs::path dir_;
};

TEST_F(ConfigWatchTest, AConfigMapUpdateIsAChangeAndAResyncIsNot) {
  test::ConfigMapDir configmap(dir_, "roced.yaml");
  configmap.publish("ports: {netdevs: [lan2]}\n");
  auto watch = ConfigWatch::open(configmap.file());
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  EXPECT_FALSE(changed(*watch));

  configmap.publish("ports: {netdevs: [lan2, lan3]}\n");
  EXPECT_TRUE(changed(*watch));
  // The kubelet publishes the same data again: events, but no change.
  configmap.publish("ports: {netdevs: [lan2, lan3]}\n");
  EXPECT_FALSE(changed(*watch));
  // The next update is seen too: the watch followed "..data" to its new directory.
  configmap.publish("ports: {netdevs: [lan4]}\n");
  EXPECT_TRUE(changed(*watch));
}

TEST_F(ConfigWatchTest, AWriteInPlaceAndARenameOverTheFileAreChanges) {
  const fs::path file = dir_ / "roced.yaml";
  write(file, "a: 1\n");
  auto watch = ConfigWatch::open(file);
  ASSERT_TRUE(watch.ok()) << watch.error().message;

  write(file, "a: 2\n");  // an echo >, a cp onto the file
  EXPECT_TRUE(changed(*watch));
  write(dir_ / ".roced.yaml.swp", "a: 3\n");  // an editor's new copy, renamed over the old
  EXPECT_FALSE(changed(*watch));
  fs::rename(dir_ / ".roced.yaml.swp", file);
  EXPECT_TRUE(changed(*watch));
}

TEST_F(ConfigWatchTest, AFileGoneForAMomentIsNoChangeUntilItIsBack) {
  const fs::path file = dir_ / "roced.yaml";
  write(file, "a: 1\n");
  auto watch = ConfigWatch::open(file);
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  fs::remove(file);
  EXPECT_FALSE(changed(*watch));
  write(file, "a: 1\n");
  EXPECT_FALSE(changed(*watch));  // back as it was
  write(file, "a: 2\n");
  EXPECT_TRUE(changed(*watch));
}

TEST_F(ConfigWatchTest, ADirectoryThatIsNotThereIsAnErrorNamingIt) {
  auto watch = ConfigWatch::open(dir_ / "absent" / "roced.yaml");
  ASSERT_FALSE(watch.ok());
  EXPECT_NE(watch.error().message.find((dir_ / "absent").string()), std::string::npos)
      << watch.error().message;
}

}  // namespace
}  // namespace roced::service
