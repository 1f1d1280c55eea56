// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which roced runs for a node. roced holds an exclusive flock(2) on the node's lock file for its
// whole life, taken before it reads a port, with its pid and whether it answers on D-Bus written
// in it. rocectl asks the lock, not only the bus: roced claims its bus name only once its modules
// run, and a rocectl that took a silent bus for "no roced" would write the ports beside it. A
// second roced for the same node is refused: two would fight over every port.

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "os/result.hpp"
#include "os/unique_fd.hpp"

namespace roced {

// /run/roced/roced.lock on the machine (systemd's RuntimeDirectory=roced); a simulated node maps
// it under its DIR, as it maps every path it does not model (MappedFileTree's fallback root).
std::filesystem::path node_lock_path(const std::optional<std::string>& sim_dir);

struct LockHolder {
  pid_t pid = 0;
  bool on_bus = false;  // it serves io.roced.Daemon1 (no --no-dbus)
};

class NodeLock {
 public:
  // Takes the lock without waiting, creating the file (and its folder) if needed. An error
  // naming the holder when another process holds it (code EWOULDBLOCK).
  static Result<NodeLock> take(const std::filesystem::path& path, bool on_bus);

 private:
  explicit NodeLock(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;  // closing it releases the lock
};

// The process that holds the lock at `path`; empty when none does (or there is no file).
std::optional<LockHolder> lock_holder(const std::filesystem::path& path);

}  // namespace roced
