// SPDX-License-Identifier: Apache-2.0
// FileTree: the simulated node's path mapping and errno-carrying errors, on a node's directory
// without its server (MappedFileTree: what simulated_system's tree reads and writes through).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "os/open_system.hpp"
#include "os/system.hpp"
#include "sim/transport/mapped_file_tree.hpp"
#include "sim/transport/simulated_system.hpp"

namespace roced {
namespace {

namespace fs = std::filesystem;

class SimFileTree : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/roced-filetree-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    system_.files = std::make_unique<roce_sim::MappedFileTree>(
        std::vector<roce_sim::MappedFileTree::Mapping>{
            {"/sys/kernel/config", dir_ / "config"},
            {"/sys/kernel/debug", dir_ / "debug"},
            {"/sys", dir_ / "sys"},
        },
        dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write_file(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }

  fs::path dir_;
  System system_;
};

TEST_F(SimFileTree, MapsTheThreeRootsLongestPrefixFirst) {
  FileTree& files = *system_.files;
  EXPECT_EQ(files.resolve("/sys/kernel/config/rdma_cm"), dir_ / "config/rdma_cm");
  EXPECT_EQ(files.resolve("/sys/kernel/config"), dir_ / "config");
  EXPECT_EQ(files.resolve("/sys/kernel/debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate"),
            dir_ / "debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate");
  EXPECT_EQ(files.resolve("/sys/class/net/lan2/mtu"), dir_ / "sys/class/net/lan2/mtu");
  EXPECT_EQ(files.resolve("/sys/kernel/mm"), dir_ / "sys/kernel/mm");
  EXPECT_EQ(files.resolve("/sys"), dir_ / "sys");
  EXPECT_EQ(files.resolve("/sysfoo"), dir_ / "sysfoo") << "prefixes match whole components";
  EXPECT_EQ(files.resolve("/sys/class/../kernel/config/x"), dir_ / "config/x");
}

TEST_F(SimFileTree, RealSystemIsRootedAtSlash) {
  System real = roced::real_system();
  EXPECT_EQ(real.files->resolve("/sys/kernel/config/rdma_cm"),
            fs::path("/sys/kernel/config/rdma_cm"));
  EXPECT_EQ(real.description, "this machine");
}

TEST_F(SimFileTree, ReadWriteListAndErrors) {
  FileTree& files = *system_.files;
  write_file(dir_ / "sys/class/net/lan2/mtu", "1500\n");
  write_file(dir_ / "sys/class/net/lan3/mtu", "9000\n");
  auto mtu = files.read("/sys/class/net/lan2/mtu");
  ASSERT_TRUE(mtu.ok()) << mtu.error().message;
  EXPECT_EQ(*mtu, "1500\n");
  auto names = files.list("/sys/class/net");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"lan2", "lan3"}));
  EXPECT_TRUE(files.exists("/sys/class/net/lan2"));
  EXPECT_FALSE(files.exists("/sys/class/net/lan9"));

  ASSERT_TRUE(files.write("/sys/class/net/lan2/mtu", "4200\n").ok());
  EXPECT_EQ(files.read("/sys/class/net/lan2/mtu").value(), "4200\n");

  auto missing = files.read("/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/7");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ENOENT);
  EXPECT_NE(missing.error().message.find("/sys/class/infiniband/mlx5_0"), std::string::npos)
      << "errors name the real path: " << missing.error().message;
  auto no_create = files.write("/sys/class/net/lan2/nonexistent", "1");
  ASSERT_FALSE(no_create.ok());
  EXPECT_EQ(no_create.error().code, ENOENT) << "like sysfs, a write never creates an attribute";
  EXPECT_EQ(files.list("/sys/class/nothing").error().code, ENOENT);
}

// read_each: what read() would give for each name, in order, errors included; a file longer than
// one read comes whole; debugfs keeps its lockdown rule file by file.
TEST_F(SimFileTree, ReadEachIsReadForEveryName) {
  FileTree& files = *system_.files;
  const fs::path counters = dir_ / "sys/class/infiniband/mlx5_0/ports/1/hw_counters";
  write_file(counters / "np_cnp_sent", "12\n");
  write_file(counters / "rp_cnp_handled", "7\n");
  write_file(counters / "long", std::string(10000, 'x'));
  fs::create_directories(counters / "subdir");
  const fs::path real = "/sys/class/infiniband/mlx5_0/ports/1/hw_counters";
  const std::vector<std::string> names = {"rp_cnp_handled", "gone", "np_cnp_sent", "long",
                                          "subdir"};
  const auto texts = files.read_each(real, names);
  ASSERT_EQ(texts.size(), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const auto one = files.read(real / names[i]);
    ASSERT_EQ(texts[i].ok(), one.ok()) << names[i];
    if (one.ok()) {
      EXPECT_EQ(*texts[i], *one) << names[i];
    } else {
      EXPECT_EQ(texts[i].error().code, one.error().code) << names[i];
      EXPECT_EQ(texts[i].error().message, one.error().message) << names[i];
    }
  }
  EXPECT_EQ(*texts[0], "7\n");
  EXPECT_EQ(texts[1].error().code, ENOENT);
  EXPECT_EQ(texts[3]->size(), 10000u);
  EXPECT_EQ(texts[4].error().code, EISDIR);
  // A directory that is not there: every name fails as its own read would.
  const auto none = files.read_each("/sys/class/infiniband/mlx5_9/ports/1/hw_counters", names);
  ASSERT_EQ(none.size(), names.size());
  for (const auto& text : none) EXPECT_EQ(text.error().code, ENOENT);

  // Under lockdown a writable debugfs file cannot be opened, read_each or not.
  write_file(dir_ / "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  write_file(dir_ / "debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate", "5\n");
  fs::permissions(dir_ / "debug/mlx5/0000:17:00.0/cc_params/rp_ai_rate",
                  fs::perms::owner_read | fs::perms::owner_write);
  const auto locked =
      files.read_each("/sys/kernel/debug/mlx5/0000:17:00.0/cc_params", {"rp_ai_rate"});
  ASSERT_EQ(locked.size(), 1u);
  ASSERT_FALSE(locked[0].ok());
  EXPECT_EQ(locked[0].error().code, EPERM);
}

TEST_F(SimFileTree, MakeDirInConfigfsAndReadLink) {
  FileTree& files = *system_.files;
  fs::create_directories(dir_ / "config/rdma_cm");
  ASSERT_TRUE(files.make_dir("/sys/kernel/config/rdma_cm/mlx5_0").ok());
  EXPECT_TRUE(fs::is_directory(dir_ / "config/rdma_cm/mlx5_0"));
  auto again = files.make_dir("/sys/kernel/config/rdma_cm/mlx5_0");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, EEXIST);

  fs::create_directories(dir_ / "sys/bus/pci/devices/0000:17:00.0");
  fs::create_directories(dir_ / "sys/class/net/lan2");
  fs::create_symlink("../../../bus/pci/devices/0000:17:00.0", dir_ / "sys/class/net/lan2/device");
  auto link = files.read_link("/sys/class/net/lan2/device");
  ASSERT_TRUE(link.ok()) << link.error().message;
  EXPECT_EQ(*link, fs::path("../../../bus/pci/devices/0000:17:00.0"));
  EXPECT_EQ(link->filename(), "0000:17:00.0");
  EXPECT_EQ(files.read_link("/sys/class/net/lan2").error().code, EINVAL) << "not a symlink";
}

TEST_F(SimFileTree, SimulatedTransportsPointIntoDir) {
  const System sim = roce_sim::simulated_system(dir_);
  EXPECT_NE(sim.description.find(dir_.string()), std::string::npos);
  // No server is listening: opening the transport fails with the socket's errno, not a hang.
  auto socket = sim.open_rtnl();
  ASSERT_FALSE(socket.ok());
  EXPECT_EQ(socket.error().code, ENOENT);
  EXPECT_NE(socket.error().message.find("rtnl.sock"), std::string::npos);
}

}  // namespace
}  // namespace roced
