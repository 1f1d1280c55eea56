// SPDX-License-Identifier: Apache-2.0
#include "daemon/probe/verbs_transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>

#include <cerrno>
#include <cstring>

namespace roced::probe_module {

namespace {

// A UD receive buffer starts with the 40 bytes the GRH (or, for RoCE v2 over IPv4, the IPv4
// header in its last 20) takes (IBTA 11.4.1.2, "Work Request Processing for UD QPs").
constexpr size_t kGrhBytes = 40;
constexpr size_t kSlotBytes = 128;
// As an int: verbs.h's ibv_reg_mr macro masks the flags with an enum of another type, which
// clang reports for an enum argument.
constexpr int kLocalWrite = IBV_ACCESS_LOCAL_WRITE;
// A peer's service is resolved within this (rdma_resolve_addr and rdma_resolve_route each).
constexpr int kResolveTimeoutMs = 2000;

// What a receive's answer handle and a completion need: ibv_init_ah_from_wc reads the source
// LID, SL, path bits and GRH flag (libibverbs verbs.c); rxe offers these and no more
// (providers/rxe/rxe.c RXE_SUP_WC_FLAGS).
constexpr uint64_t kCompletionFields = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
                                       IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID |
                                       IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS;

// Device clock ticks as nanoseconds at `khz` (ibv_device_attr_ex hca_core_clock), without the
// overflow ticks * 1e6 would reach after hours of a free-running counter.
int64_t ticks_to_ns(uint64_t ticks, uint64_t khz) {
  constexpr uint64_t kNsPerMs = 1000000;
  return static_cast<int64_t>(ticks / khz * kNsPerMs + ticks % khz * kNsPerMs / khz);
}

int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result<sockaddr_storage> socket_address(const std::string& address, uint16_t port) {
  sockaddr_storage storage{};
  auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
  } else {
    return Error{EINVAL, address + " is not an IPv4 or IPv6 address"};
  }
  return storage;
}

// A RoCE v2 GID as the address it holds: IPv4-mapped GIDs (::ffff:a.b.c.d) as IPv4.
std::string gid_address(const ibv_gid& gid) {
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char text[INET6_ADDRSTRLEN] = {};
  if (std::memcmp(gid.raw, kMapped, sizeof kMapped) == 0) {
    ::inet_ntop(AF_INET, gid.raw + 12, text, sizeof text);
  } else {
    ::inet_ntop(AF_INET6, gid.raw, text, sizeof text);
  }
  return text;
}

Result<void> non_blocking(int fd, const char* what) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    return Error::from_errno(errno, std::string("probe: ") + what + " non-blocking");
  }
  return ok();
}

Error verbs_error(int err, const std::string& what) {
  return Error::from_errno(err != 0 ? err : EIO, "probe: " + what);
}

}  // namespace

Result<std::unique_ptr<VerbsTransport>> VerbsTransport::open(const VerbsOptions& options) {
  std::unique_ptr<VerbsTransport> transport(new VerbsTransport(options));
  if (auto listening = transport->open_listener(); !listening) return listening.error();
  if (auto queue_pair = transport->open_queue_pair(); !queue_pair) return queue_pair.error();
  return transport;
}

VerbsTransport::~VerbsTransport() {
  for (auto& [address, peer] : peers_) {
    for (auto& [label, ah] : peer.ahs) ibv_destroy_ah(ah);
    finish_resolution(peer);
  }
  // Events still queued for them are acknowledged first, as rdma_destroy_id needs.
  rdma_cm_event* event = nullptr;
  while (events_ != nullptr && rdma_get_cm_event(events_, &event) == 0) {
    const bool request = event->event == RDMA_CM_EVENT_CONNECT_REQUEST;
    rdma_cm_id* id = event->id;
    rdma_ack_cm_event(event);
    if (request) rdma_destroy_id(id);
  }
  for (rdma_cm_id* id : finished_ids_) rdma_destroy_id(id);
  forget_answer_handles();
  if (qp_ != nullptr) ibv_destroy_qp(qp_);
  if (cq_ != nullptr) ibv_destroy_cq(cq_);  // an extended one too
  if (completions_ != nullptr) ibv_destroy_comp_channel(completions_);
  if (receive_mr_ != nullptr) ibv_dereg_mr(receive_mr_);
  if (send_mr_ != nullptr) ibv_dereg_mr(send_mr_);
  if (pd_ != nullptr) ibv_dealloc_pd(pd_);
  if (listener_ != nullptr) rdma_destroy_id(listener_);
  if (events_ != nullptr) rdma_destroy_event_channel(events_);
}

// The listener answers peers' service resolutions, and binding it finds the RDMA device that
// holds the address (rdma_bind_addr sets its verbs context).
Result<void> VerbsTransport::open_listener() {
  events_ = rdma_create_event_channel();
  if (events_ == nullptr) return verbs_error(errno, "rdma_create_event_channel");
  if (auto set = non_blocking(events_->fd, "the rdma_cm channel"); !set) return set.error();
  if (rdma_create_id(events_, &listener_, nullptr, RDMA_PS_UDP) != 0) {
    return verbs_error(errno, "rdma_create_id");
  }
  auto address = socket_address(options_.address, options_.answers ? options_.service_port : 0);
  if (!address) return address.error();
  if (rdma_bind_addr(listener_, reinterpret_cast<sockaddr*>(&*address)) != 0) {
    return verbs_error(errno, "bind the probe service to " + options_.address);
  }
  if (listener_->verbs == nullptr) {
    return Error{ENODEV, "probe: " + options_.address + " is on no RDMA device"};
  }
  if (options_.answers && rdma_listen(listener_, 64) != 0) {
    return verbs_error(errno, "rdma_listen");
  }
  return ok();
}

// The device's completion timestamps where it has a clock to give them (mlx5: the free-running
// counter at hca_core_clock kHz), on an extended completion queue: the probe's RTT then leaves out
// this host's scheduling. A device without a clock (rxe reports none) gets a plain queue and the
// time of the poll stands for them; not an extended one without timestamps either, since
// bookworm's rxe provider (rdma-core 44, providers/rxe/rxe.c cq_next_poll) releases the queue
// itself when it runs dry and ibv_end_poll then skips an entry not yet written (fixed upstream).
Result<void> VerbsTransport::create_completion_queue(ibv_context* context) {
  const int depth = kSendDepth + kReceiveDepth;
  ibv_device_attr_ex device{};
  if (ibv_query_device_ex(context, nullptr, &device) == 0 && device.hca_core_clock > 0) {
    ibv_cq_init_attr_ex attr{};
    attr.cqe = depth;
    attr.channel = completions_;
    attr.wc_flags = kCompletionFields | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
    cq_ex_ = ibv_create_cq_ex(context, &attr);
    if (cq_ex_ != nullptr) {
      clock_khz_ = device.hca_core_clock;
      cq_ = ibv_cq_ex_to_cq(cq_ex_);
      return ok();
    }
  }
  cq_ = ibv_create_cq(context, depth, nullptr, completions_, 0);
  if (cq_ == nullptr) return verbs_error(errno, "ibv_create_cq");
  return ok();
}

Result<void> VerbsTransport::open_queue_pair() {
  ibv_context* context = listener_->verbs;
  pd_ = ibv_alloc_pd(context);
  if (pd_ == nullptr) return verbs_error(errno, "ibv_alloc_pd");
  completions_ = ibv_create_comp_channel(context);
  if (completions_ == nullptr) return verbs_error(errno, "ibv_create_comp_channel");
  if (auto set = non_blocking(completions_->fd, "the completion channel"); !set) {
    return set.error();
  }
  if (auto created = create_completion_queue(context); !created) return created.error();
  if (const int err = ibv_req_notify_cq(cq_, 0); err != 0) {
    return verbs_error(err, "ibv_req_notify_cq");
  }
  ibv_qp_init_attr init{};
  init.send_cq = cq_;
  init.recv_cq = cq_;
  init.qp_type = IBV_QPT_UD;
  init.cap.max_send_wr = kSendDepth;
  init.cap.max_recv_wr = kReceiveDepth;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  qp_ = ibv_create_qp(pd_, &init);
  if (qp_ == nullptr) return verbs_error(errno, "ibv_create_qp (UD)");
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = listener_->port_num;
  attr.qkey = options_.q_key;
  if (const int err =
          ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
      err != 0) {
    return verbs_error(err, "the UD queue pair to INIT");
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  if (const int err = ibv_modify_qp(qp_, &attr, IBV_QP_STATE); err != 0) {
    return verbs_error(err, "the UD queue pair to RTR");
  }
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = 0;
  if (const int err = ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN); err != 0) {
    return verbs_error(err, "the UD queue pair to RTS");
  }
  receive_buffers_.assign(kReceiveDepth * kSlotBytes, 0);
  send_buffers_.assign(kSendDepth * kSlotBytes, 0);
  receive_mr_ = ibv_reg_mr(pd_, receive_buffers_.data(), receive_buffers_.size(), kLocalWrite);
  send_mr_ = ibv_reg_mr(pd_, send_buffers_.data(), send_buffers_.size(), 0);
  if (receive_mr_ == nullptr || send_mr_ == nullptr) return verbs_error(errno, "ibv_reg_mr");
  for (size_t slot = 0; slot < kReceiveDepth; ++slot) {
    if (auto posted = post_receive(slot); !posted) return posted.error();
  }
  return ok();
}

Result<void> VerbsTransport::post_receive(size_t slot) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(receive_buffers_.data() + slot * kSlotBytes),
              static_cast<uint32_t>(kSlotBytes), receive_mr_->lkey};
  ibv_recv_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (const int err = ibv_post_recv(qp_, &wr, &bad); err != 0) {
    return verbs_error(err, "ibv_post_recv");
  }
  return ok();
}

std::vector<int> VerbsTransport::fds() const { return {events_->fd, completions_->fd}; }

std::string VerbsTransport::device() const { return ibv_get_device_name(listener_->verbs->device); }

Result<void> VerbsTransport::post(const probe::Remote& to, const probe::MessageBytes& message,
                                  uint32_t flow_label, uint64_t wr) {
  auto ah = address_handle(to, flow_label);
  if (!ah) return ah.error();
  const uint32_t qpn = to.qpn != 0 ? to.qpn : peers_.at(to.address).qpn;
  uint8_t* slot = send_buffers_.data() + (sends_posted_ % kSendDepth) * kSlotBytes;
  std::memcpy(slot, message.data(), message.size());
  ibv_sge sge{reinterpret_cast<uintptr_t>(slot), static_cast<uint32_t>(message.size()),
              send_mr_->lkey};
  ibv_send_wr send{};
  send.wr_id = wr;
  send.sg_list = &sge;
  send.num_sge = 1;
  send.opcode = IBV_WR_SEND;
  send.send_flags = IBV_SEND_SIGNALED;
  send.wr.ud.ah = *ah;
  send.wr.ud.remote_qpn = qpn;
  send.wr.ud.remote_qkey = options_.q_key;
  ibv_send_wr* bad = nullptr;
  if (const int err = ibv_post_send(qp_, &send, &bad); err != 0) {
    return verbs_error(err, "ibv_post_send to " + to.address);
  }
  ++sends_posted_;
  return ok();
}

// An answer goes back by the handle its probe's receive made; a probe by its peer's resolved
// service, one handle per flow label.
Result<ibv_ah*> VerbsTransport::address_handle(const probe::Remote& to, uint32_t flow_label) {
  if (to.qpn != 0) {
    const auto it = answer_handles_.find(to.address);
    if (it == answer_handles_.end()) {
      return Error{EHOSTUNREACH, "probe: no path back to " + to.address};
    }
    return it->second;
  }
  return peer_handle(to.address, flow_label);
}

Result<ibv_ah*> VerbsTransport::peer_handle(const std::string& address, uint32_t flow_label) {
  Peer& peer = peers_[address];
  const bool retry =
      peer.state == Peer::State::Failed && std::chrono::steady_clock::now() >= peer.retry_at;
  const bool fresh = peer.state == Peer::State::Resolving && peer.id == nullptr;
  if (retry || fresh) start_resolving(address, peer);
  if (peer.state == Peer::State::Resolving) {
    return Error{EAGAIN, "probe: " + address + "'s probe service is being resolved"};
  }
  if (peer.state == Peer::State::Failed) return Error{EHOSTUNREACH, peer.failure};
  if (const auto it = peer.ahs.find(flow_label); it != peer.ahs.end()) return it->second;
  ibv_ah_attr attr = peer.ah_attr;
  attr.is_global = 1;
  attr.grh.flow_label = flow_label;
  attr.grh.traffic_class = options_.traffic_class;
  attr.sl = options_.priority;
  ibv_ah* ah = ibv_create_ah(pd_, &attr);
  if (ah == nullptr) return verbs_error(errno, "ibv_create_ah for " + address);
  peer.ahs[flow_label] = ah;
  return ah;
}

void VerbsTransport::start_resolving(const std::string& address, Peer& peer) {
  peer.state = Peer::State::Resolving;
  auto source = socket_address(options_.address, 0);
  auto destination = socket_address(address, options_.service_port);
  if (!destination || !source) {
    unresolved(address, destination ? source.error().message : destination.error().message);
    return;
  }
  // The address travels as the id's context: an event names its peer by it.
  auto* context = const_cast<std::string*>(&peers_.find(address)->first);
  if (rdma_create_id(events_, &peer.id, context, RDMA_PS_UDP) != 0) {
    peer.id = nullptr;
    unresolved(address, verbs_error(errno, "rdma_create_id").message);
    return;
  }
  if (rdma_resolve_addr(peer.id, reinterpret_cast<sockaddr*>(&*source),
                        reinterpret_cast<sockaddr*>(&*destination), kResolveTimeoutMs) != 0) {
    unresolved(address, verbs_error(errno, "rdma_resolve_addr " + address).message);
  }
}

// A resolution's id is destroyed once its events are acknowledged (rdma_destroy_id waits for
// that): after the event loop's round, never inside it.
void VerbsTransport::finish_resolution(Peer& peer) {
  if (peer.id != nullptr) finished_ids_.push_back(peer.id);
  peer.id = nullptr;
}

void VerbsTransport::unresolved(const std::string& address, const std::string& why) {
  Peer& peer = peers_[address];
  finish_resolution(peer);
  peer.state = Peer::State::Failed;
  peer.failure = why;
  peer.retry_at = std::chrono::steady_clock::now() + kResolveRetry;
}

void VerbsTransport::resolved(const std::string& address, const rdma_ud_param& ud) {
  Peer& peer = peers_[address];
  // The Q_Key the reply names is rdma_cm's RDMA_UDP_QKEY: ucma only passes a user's own for AF_IB
  // (ucma.c ucma_copy_conn_param). Probes carry the configured one, which every peer shares.
  peer.ah_attr = ud.ah_attr;
  peer.qpn = ud.qp_num;
  peer.state = Peer::State::Ready;
  finish_resolution(peer);
  for (auto& [label, ah] : peer.ahs) ibv_destroy_ah(ah);
  peer.ahs.clear();
}

void VerbsTransport::forget_answer_handles() {
  for (auto& [address, ah] : answer_handles_) ibv_destroy_ah(ah);
  answer_handles_.clear();
}

void VerbsTransport::poll(std::vector<probe::Completion>& out) {
  handle_cm_events();
  take_completions(out);
}

void VerbsTransport::handle_cm_events() {
  rdma_cm_event* event = nullptr;
  while (rdma_get_cm_event(events_, &event) == 0) {
    rdma_cm_event copy = *event;
    on_cm_event(copy);
    rdma_ack_cm_event(event);
    // A resolution's id is done with once it answered, either way; a peer's request's once
    // accepted (the reply is sent by then: ib_send_cm_sidr_rep).
    if (copy.event == RDMA_CM_EVENT_CONNECT_REQUEST) rdma_destroy_id(copy.id);
  }
  for (rdma_cm_id* id : finished_ids_) rdma_destroy_id(id);
  finished_ids_.clear();
}

void VerbsTransport::on_cm_event(rdma_cm_event& event) {
  if (event.event == RDMA_CM_EVENT_CONNECT_REQUEST) {
    rdma_conn_param accept{};
    accept.qp_num = qp_->qp_num;
    (void)rdma_accept(event.id, &accept);
    return;
  }
  if (event.id == nullptr || event.id->context == nullptr) return;
  const std::string address = *static_cast<const std::string*>(event.id->context);
  switch (event.event) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
      if (rdma_resolve_route(event.id, kResolveTimeoutMs) != 0) {
        unresolved(address, verbs_error(errno, "rdma_resolve_route " + address).message);
      }
      break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
      rdma_conn_param connect{};
      if (rdma_connect(event.id, &connect) != 0) {
        unresolved(address, verbs_error(errno, "rdma_connect " + address).message);
      }
      break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
      resolved(address, event.param.ud);
      break;
    default:
      unresolved(address, std::string("probe: ") + address +
                              "'s probe service: " + rdma_event_str(event.event));
      break;
  }
}

void VerbsTransport::take_completions(std::vector<probe::Completion>& out) {
  ibv_cq* cq = nullptr;
  void* context = nullptr;
  while (ibv_get_cq_event(completions_, &cq, &context) == 0) ibv_ack_cq_events(cq, 1);
  (void)ibv_req_notify_cq(cq_, 0);
  if (cq_ex_ != nullptr) {
    take_stamped_completions(out);
    return;
  }
  ibv_wc wcs[32];
  for (;;) {
    const int n = ibv_poll_cq(cq_, 32, wcs);
    if (n <= 0) break;
    // Without the device's timestamps, the time of the poll stands for them.
    const int64_t at_ns = monotonic_ns();
    for (int i = 0; i < n; ++i) take_completion(wcs[i], at_ns, out);
  }
}

void VerbsTransport::take_stamped_completions(std::vector<probe::Completion>& out) {
  ibv_poll_cq_attr attr{};
  if (ibv_start_poll(cq_ex_, &attr) != 0) return;  // ENOENT: nothing, and no end_poll
  do {
    ibv_wc wc{};  // what ibv_init_ah_from_wc reads, from the extended completion's fields
    wc.wr_id = cq_ex_->wr_id;
    wc.status = cq_ex_->status;
    wc.opcode = ibv_wc_read_opcode(cq_ex_);
    if (wc.status == IBV_WC_SUCCESS) {  // else only the work request and status are valid
      wc.byte_len = ibv_wc_read_byte_len(cq_ex_);
      wc.qp_num = ibv_wc_read_qp_num(cq_ex_);
      wc.src_qp = ibv_wc_read_src_qp(cq_ex_);
      wc.wc_flags = ibv_wc_read_wc_flags(cq_ex_);
      wc.slid = static_cast<uint16_t>(ibv_wc_read_slid(cq_ex_));
      wc.sl = ibv_wc_read_sl(cq_ex_);
      wc.dlid_path_bits = ibv_wc_read_dlid_path_bits(cq_ex_);
    }
    take_completion(wc, ticks_to_ns(ibv_wc_read_completion_ts(cq_ex_), clock_khz_), out);
  } while (ibv_next_poll(cq_ex_) == 0);
  ibv_end_poll(cq_ex_);
}

void VerbsTransport::take_completion(const ibv_wc& wc, int64_t at_ns,
                                     std::vector<probe::Completion>& out) {
  if (wc.opcode & IBV_WC_RECV) {
    on_receive(wc, at_ns, out);
    return;
  }
  out.push_back({wc.status == IBV_WC_SUCCESS ? probe::Completion::Kind::Sent
                                             : probe::Completion::Kind::SendFailed,
                 wc.wr_id,
                 at_ns,
                 {},
                 {}});
}

void VerbsTransport::on_receive(const ibv_wc& wc, int64_t at_ns,
                                std::vector<probe::Completion>& out) {
  const size_t slot = wc.wr_id;
  if (slot >= kReceiveDepth) return;
  uint8_t* buffer = receive_buffers_.data() + slot * kSlotBytes;
  if (wc.status == IBV_WC_SUCCESS && wc.byte_len > kGrhBytes) {
    ibv_ah_attr attr{};
    if (ibv_init_ah_from_wc(listener_->verbs, listener_->port_num, const_cast<ibv_wc*>(&wc),
                            reinterpret_cast<ibv_grh*>(buffer), &attr) == 0) {
      probe::Completion completion;
      completion.kind = probe::Completion::Kind::Received;
      completion.at_ns = at_ns;
      completion.from = {gid_address(attr.grh.dgid), wc.src_qp};
      completion.bytes.assign(buffer + kGrhBytes,
                              buffer + std::min<size_t>(wc.byte_len, kSlotBytes));
      if (!answer_handles_.count(completion.from.address)) {
        // Bounded: addresses that probe this port are a fleet's, not an attacker's to grow.
        if (answer_handles_.size() >= kAnswerHandles) forget_answer_handles();
        attr.grh.traffic_class = options_.traffic_class;
        attr.sl = options_.priority;
        if (ibv_ah* ah = ibv_create_ah(pd_, &attr)) answer_handles_[completion.from.address] = ah;
      }
      out.push_back(std::move(completion));
    }
  }
  (void)post_receive(slot);
}

}  // namespace roced::probe_module
