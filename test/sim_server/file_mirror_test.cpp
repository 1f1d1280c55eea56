// SPDX-License-Identifier: Apache-2.0
// roce-sim's file tree driven by hand (no server loop, no threads): the test chooses the order of
// a client's O_TRUNC, the tree's reading of its own rename events and its refreshes.
#include "sim/server/file_mirror.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/model/node.hpp"
#include "sim/model/node_file.hpp"

namespace roce_sim::server {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `echo 20 > knob` by a client that is descheduled between its O_TRUNC and its write, while the
// tree reads the event of its own earlier rename of the file and refreshes: the write stays.
TEST(FileMirror, AWriteInProgressOverOurOwnRenameIsKept) {
  char pattern[] = "/tmp/roce-sim-file-tree-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  const fs::path dir = pattern;
  {
    Node node(default_node());
    FileMirror tree(node, dir);
    tree.build();
    tree.on_inotify();
    Port& port = *node.find("lan3");
    const fs::path knob = dir / "debug/mlx5" / port.spec().pci_address / "cc_params/np_cnp_dscp";
    // The model changes: refresh() renames the file; the rename's IN_MOVED_TO waits unread.
    ASSERT_EQ(port.set_cc_param("np_cnp_dscp", 10), 0);
    tree.refresh();
    ASSERT_EQ(read_all(knob), "10\n");

    const int fd = ::open(knob.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    tree.on_inotify();  // our rename's event, read while the file is empty
    tree.refresh();     // what a request or the next tick does
    ASSERT_EQ(::write(fd, "20\n", 3), 3);
    ::close(fd);
    tree.on_inotify();

    EXPECT_EQ(read_all(knob), "20\n");
    EXPECT_EQ(port.ecn().params.at("np_cnp_dscp"), 20u);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace roce_sim::server
