// SPDX-License-Identifier: Apache-2.0
#pragma once
// A file a command keeps up to date for other programs to read (rocectl nccl-env --output FILE
// --every 60s: the NCCL variables that job pods on the node source). The readers must never see
// half a file, and a file that did not change is left alone (its inode, its mtime), so a reader
// that watches it wakes only when there is something new.
#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "os/result.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced::cli {

enum class Written { Unchanged, Changed };

// Replaces `path` with `text` when the file's content differs (or it is missing): a temporary
// file in the same directory (so that rename(2) is atomic), mode 0644 whatever the umask (job
// pods read it as their own users), its data synced, then renamed over `path`. A reader sees the
// old content or the new, never a part. The temporary file is removed when any step fails.
Result<Written> write_if_changed(const std::string& path, const std::string& text);

// What differs between two renderings, variable by variable, for a log line: "NCCL_IB_GID_INDEX
// 3 -> 5, NCCL_IB_TC 106 (new), UCX_IB_GID_INDEX (gone)". Lines of NAME=VALUE, with or without
// `export `, count as variables; when only other lines differ (comments, JSON): "content changed".
std::string describe_change(const std::string& before, const std::string& after);

// One rendering of the file: its text, or why there is none this time.
struct Rendering {
  std::optional<std::string> text;
  std::string error;
};

// Renders and writes `path` at once and then every `every` (a rate: each run timed from the
// previous run's start), until `stop` is raised. A rendering that fails leaves the file as it
// is and the next run tries again (a sidecar that exited would leave the same file, restarting
// in a loop). `log` gets a line when the file is first written or its content changes, and when
// an error differs from the previous one (not the same error every minute).
void keep_written(TimeSource& time, const StopSignal& stop, std::chrono::nanoseconds every,
                  const std::string& path, const std::function<Rendering()>& render,
                  std::ostream& log);

}  // namespace roced::cli
