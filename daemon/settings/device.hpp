// SPDX-License-Identifier: Apache-2.0
#pragma once
// The port as the settings write it: the reads a write's verification needs and one call that
// takes any write (write/write.hpp describes each kind once, with its kernel call and its undo),
// and the Writer that runs a feature's writes with retries. Moved here from daemon/apply so that
// a setting's write can live beside the rest of the setting, below the planner and the applier;
// apply::PortDevice and apply::ApplyOptions stay as aliases.
//
// PortDevice is the seam to the kernel and, in the applier's tests, to a ScriptedDevice in front
// of it. A new kind of write is a new write::Write alternative; this seam does not change.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "port/status.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"
#include "write/write.hpp"

namespace roced::settings {

class PortDevice : public write::Port {
 public:
  // The status verification re-plans from (the planner's reads; no counters, no GID table).
  virtual PortStatus read() = 0;
  // `before` with only `part` read again: what a step's verification needs. The default reads
  // everything.
  virtual PortStatus read_part(const PortStatus& before, StatusPart part) {
    (void)before;
    (void)part;
    return read();
  }
  // From write::Port: write(const write::Write&), and dscp_apps(), the APP table's DSCP entries
  // now (read between adding and deleting entries).
};

// How hard a write tries (apply::ApplyOptions is this type).
struct WriteOptions {
  int max_attempts = 5;                         // per step, for transient errors
  std::chrono::milliseconds first_backoff{20};  // doubles per retry
  TimeSource* time = &real_time();              // what the backoff sleeps on
  // How long to wait for the carrier after a PFC mask change flapped the link, before the
  // lossless headroom is recomputed at the link's speed (manual buffers only), and after any
  // disruptive change to a port that had one.
  std::chrono::milliseconds carrier_timeout{std::chrono::seconds(15)};
  // After a disruptive change, return only once a port that had its carrier has it again, so
  // that the next port is not flapped meanwhile. A storm action, which flaps one port to save
  // it, does not wait.
  bool wait_for_carrier = true;
  // Raised when roced stops: a carrier wait ends there, leaving the port as written.
  const StopSignal* stop = nullptr;
};

// Runs the write requests of one step, retrying transient errors (EBUSY, EAGAIN) with
// exponential backoff; remembers whether the device may have changed. A write::Port itself, so
// that a write's undo (write::perform) and the APP table's update retry the same way.
class Writer final : public write::Port {
 public:
  Writer(PortDevice& device, const WriteOptions& options) : device_(device), options_(options) {}

  PortDevice& device() { return device_; }
  // One write request. A kind the kernel may apply in part before failing (several APP entries
  // in one message, a PFC mask: write::may_apply_in_part) still leaves something to undo.
  Result<void> write(const write::Write& request) override;
  // The APP table's DSCP entries, retried like a write.
  Result<std::vector<dcb::AppEntry>> dscp_apps() override {
    return read<std::vector<dcb::AppEntry>>([&] { return device_.dscp_apps(); });
  }
  // A read between writes; retried like a write.
  template <class T>
  Result<T> read(const std::function<Result<T>()>& request) {
    for (int attempt = 1;; ++attempt) {
      auto result = request();
      if (result || !retry_after(result.error(), attempt)) return result;
    }
  }

  int attempts() const { return attempts_; }             // most tries one request of the step took
  bool maybe_changed() const { return maybe_changed_; }  // a request reached the device

 private:
  // Sleeps and returns true when `error` is transient and attempts remain.
  bool retry_after(const Error& error, int attempt);

  PortDevice& device_;
  const WriteOptions& options_;
  int attempts_ = 0;
  bool maybe_changed_ = false;
};

bool is_transient(const Error& error);  // EBUSY, EAGAIN

}  // namespace roced::settings
