// SPDX-License-Identifier: Apache-2.0
#pragma once
// The port as the settings write it: one PortDevice call per kind of write request, and the
// Writer that runs a feature's requests with retries. Moved here from daemon/apply so that a
// setting's write can live beside the rest of the setting, below the planner and the applier;
// apply::PortDevice and apply::ApplyOptions stay as aliases.
//
// PortDevice is the seam to the kernel (DCB netlink, rtnetlink, ethtool, configfs/debugfs files)
// and, in the applier's tests, to a ScriptedDevice in front of it. A setting that rides an existing
// write (a new PFC field, a new DCQCN knob) does not touch it; one that needs a new kind of request
// adds one call here.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dcb/types.hpp"
#include "port/status.hpp"
#include "rdma/ecn.hpp"
#include "util/stop_signal.hpp"
#include "util/time_source.hpp"

namespace roced::settings {

class PortDevice {
 public:
  virtual ~PortDevice() = default;
  // The status verification re-plans from (the planner's reads; no counters, no GID table).
  virtual PortStatus read() = 0;
  // `before` with only `part` read again: what a step's verification needs. The default reads
  // everything.
  virtual PortStatus read_part(const PortStatus& before, StatusPart part) {
    (void)before;
    (void)part;
    return read();
  }
  // The APP table's DSCP entries now (read between adding and deleting entries).
  virtual Result<std::vector<dcb::AppEntry>> dscp_apps() = 0;

  virtual Result<void> set_dcbx(uint8_t mode) = 0;
  virtual Result<void> add_apps(const std::vector<dcb::AppEntry>& apps) = 0;
  virtual Result<void> delete_apps(const std::vector<dcb::AppEntry>& apps) = 0;
  virtual Result<void> set_ets(const dcb::Ets& ets) = 0;
  virtual Result<void> set_maxrate(const dcb::Maxrate& maxrate) = 0;
  virtual Result<void> set_pfc(const dcb::Pfc& pfc) = 0;
  virtual Result<void> set_buffer(const dcb::Buffer& buffer) = 0;
  virtual Result<void> set_mtu(uint32_t mtu) = 0;
  virtual Result<void> set_stall_prevention(uint16_t raw) = 0;
  virtual Result<void> set_global_pause(const PauseParams& pause) = 0;
  virtual Result<void> set_ecn_enable(const std::string& point, int priority, bool enabled) = 0;
  virtual Result<void> set_ecn_knob(rdma::EcnFlavour flavour, const std::string& upstream_name,
                                    uint64_t value) = 0;
  virtual Result<void> make_rdma_cm_group() = 0;  // no-op when it exists
  virtual Result<void> set_rdma_cm_mode(const std::string& mode) = 0;
  virtual Result<void> set_rdma_cm_tos(int tos) = 0;
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
// exponential backoff; remembers whether the device may have changed.
class Writer {
 public:
  Writer(PortDevice& device, const WriteOptions& options) : device_(device), options_(options) {}

  PortDevice& device() { return device_; }
  // One write request. `partial` marks a request the kernel may apply in part before failing
  // (several APP entries in one message): its failure still leaves something to undo.
  Result<void> write(const std::function<Result<void>()>& request, bool partial = false);
  // A read between writes (the APP table before deleting); retried like a write.
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
