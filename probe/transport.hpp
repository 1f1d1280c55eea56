// SPDX-License-Identifier: Apache-2.0
#pragma once
// The seam between the probe engine and one local RDMA port's probe queue pair: post a message
// to a remote, and collect what completed. roced's is rdma/probe_qp (a UD queue pair, the peer's
// found through rdma_cm's UD service resolution); the tests' is a simulated fabric in process.
#include <cstdint>
#include <string>
#include <vector>

#include "os/result.hpp"
#include "probe/wire.hpp"

namespace roced::probe {

// Where a message goes: the peer port's address and its probe queue pair. A probe names the
// address alone (qpn 0: the transport resolves the peer's probe service); an answer goes back
// to the queue pair its probe came from.
struct Remote {
  std::string address;
  uint32_t qpn = 0;
  bool operator==(const Remote&) const = default;
};

struct Completion {
  enum class Kind { Sent, SendFailed, Received };
  Kind kind = Kind::Sent;
  uint64_t wr = 0;             // Sent, SendFailed: the post's
  int64_t at_ns = 0;           // on the transport's completion clock (probe/rtt.hpp)
  Remote from;                 // Received
  std::vector<uint8_t> bytes;  // Received: the payload, after the GRH
};

class ProbeTransport {
 public:
  virtual ~ProbeTransport() = default;
  // Posts `message` to `to` on the lossless class, with `flow_label` in its GRH; `wr` comes
  // back in its completion. Fails at once when the remote cannot be reached yet (its service
  // is still being resolved, or its address has no route): no completion follows.
  virtual Result<void> post(const Remote& to, const MessageBytes& message, uint32_t flow_label,
                            uint64_t wr) = 0;
  // What completed since the last call, without waiting.
  virtual void poll(std::vector<Completion>& out) = 0;
  // What to wait on for completions (none: the caller's timer alone).
  virtual std::vector<int> fds() const { return {}; }
  // Whether completion times are the device's (its clock stamps each completion) rather than
  // the time this host polled them.
  virtual bool device_timestamps() const { return false; }
};

}  // namespace roced::probe
