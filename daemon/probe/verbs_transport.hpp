// SPDX-License-Identifier: Apache-2.0
#pragma once
// One local RDMA port's probe queue pair (probe::ProbeTransport) over libibverbs and librdmacm.
// A UD queue pair on the RDMA device that holds the port's address, its own Q_Key; a peer's
// probe queue pair is found through rdma_cm's UD service resolution (SIDR, as librdmacm's
// udaddy does), which this transport also answers for its own, listening on the probe service
// port. Probes leave on the lossless class: the GRH traffic class carries the profile's DSCP
// (RoCE v2 writes it into the IP header: rxe_net.c prepare_ipv4_hdr, mlx5's address vector
// alike) and the address vector's service level its priority.
#include <rdma/rdma_cma.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "probe/transport.hpp"

namespace roced::probe_module {

struct VerbsOptions {
  std::string address;  // this port's IPv4 or IPv6 address
  uint16_t service_port = 0;
  uint32_t q_key = 0;
  uint8_t traffic_class = 0;  // DSCP << 2, ECN-capable
  uint8_t priority = 0;
  // Answers peers' probes and their service resolutions on service_port. A one-shot prober
  // (rocectl probe) does not, and binds no port a running roced may hold.
  bool answers = true;
};

class VerbsTransport final : public probe::ProbeTransport {
 public:
  // Fails naming the step when the address is on no RDMA device, or the device refuses.
  static Result<std::unique_ptr<VerbsTransport>> open(const VerbsOptions& options);
  ~VerbsTransport() override;
  VerbsTransport(const VerbsTransport&) = delete;
  VerbsTransport& operator=(const VerbsTransport&) = delete;

  Result<void> post(const probe::Remote& to, const probe::MessageBytes& message,
                    uint32_t flow_label, uint64_t wr) override;
  void poll(std::vector<probe::Completion>& out) override;

  // What to wait on for completions and rdma_cm events (both non-blocking).
  std::vector<int> fds() const override;
  bool device_timestamps() const override { return clock_khz_ > 0; }
  // The RDMA device the address is on.
  std::string device() const;

  // How long a peer whose service could not be resolved waits before it is tried again.
  static constexpr std::chrono::seconds kResolveRetry{5};
  static constexpr int kSendDepth = 256;
  static constexpr int kReceiveDepth = 512;
  static constexpr size_t kAnswerHandles = 4096;

 private:
  struct Peer {
    enum class State { Resolving, Ready, Failed } state = State::Resolving;
    rdma_cm_id* id = nullptr;  // while resolving
    ibv_ah_attr ah_attr{};
    uint32_t qpn = 0;
    std::map<uint32_t, ibv_ah*> ahs;  // by flow label
    std::chrono::steady_clock::time_point retry_at;
    std::string failure;
  };

  explicit VerbsTransport(VerbsOptions options) : options_(std::move(options)) {}
  Result<void> open_listener();
  Result<void> open_queue_pair();
  Result<void> create_completion_queue(ibv_context* context);
  Result<void> post_receive(size_t slot);
  Result<ibv_ah*> address_handle(const probe::Remote& to, uint32_t flow_label);
  Result<ibv_ah*> peer_handle(const std::string& address, uint32_t flow_label);
  void start_resolving(const std::string& address, Peer& peer);
  void handle_cm_events();
  void on_cm_event(rdma_cm_event& event);
  void resolved(const std::string& address, const rdma_ud_param& ud);
  void finish_resolution(Peer& peer);
  void unresolved(const std::string& address, const std::string& why);
  void forget_answer_handles();
  void take_completions(std::vector<probe::Completion>& out);
  void take_stamped_completions(std::vector<probe::Completion>& out);
  void take_completion(const ibv_wc& wc, int64_t at_ns, std::vector<probe::Completion>& out);
  void on_receive(const ibv_wc& wc, int64_t at_ns, std::vector<probe::Completion>& out);

  VerbsOptions options_;
  rdma_event_channel* events_ = nullptr;
  rdma_cm_id* listener_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_comp_channel* completions_ = nullptr;
  ibv_cq_ex* cq_ex_ = nullptr;
  ibv_cq* cq_ = nullptr;    // cq_ex_ as a plain queue: the QP's, the notify request's
  uint64_t clock_khz_ = 0;  // the device clock's, when completions carry its time
  ibv_qp* qp_ = nullptr;
  ibv_mr* receive_mr_ = nullptr;
  ibv_mr* send_mr_ = nullptr;
  std::vector<uint8_t> receive_buffers_;
  std::vector<uint8_t> send_buffers_;
  uint64_t sends_posted_ = 0;
  std::map<std::string, Peer> peers_;              // by address, probed
  std::map<std::string, ibv_ah*> answer_handles_;  // by address, answered
  std::vector<rdma_cm_id*> finished_ids_;          // destroyed after the events' round
};

}  // namespace roced::probe_module
