// SPDX-License-Identifier: Apache-2.0
#include "os/genl_family.hpp"

#include <linux/genetlink.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "os/rtnl_request.hpp"

namespace roced {

namespace {

constexpr auto kFamilyLookupTimeout = std::chrono::milliseconds(1000);

// Well below a netlink socket's default send buffer (net.core.wmem_default), which bounds what
// one sendmsg may carry (af_netlink.c netlink_sendmsg: -EMSGSIZE beyond sk_sndbuf - 32).
constexpr size_t kBatchBytes = size_t{16} * 1024;

NlMsgPtr new_genl_request(uint16_t family, uint8_t cmd, uint8_t version) {
  genlmsghdr header{};
  header.cmd = cmd;
  header.version = version;
  return new_request(family, 0, &header, sizeof header);
}

// ctrl_getfamily's answer: the family's id.
Result<uint16_t> family_id(const std::vector<NlMessage>& messages) {
  for (const NlMessage& message : messages) {
    if (message.type() != GENL_ID_CTRL) continue;
    nlattr* table[CTRL_ATTR_MAX + 1];
    NlMessage copy = message;
    if (nlmsg_parse(copy.header(), GENL_HDRLEN, table, CTRL_ATTR_MAX, nullptr) != 0 ||
        table[CTRL_ATTR_FAMILY_ID] == nullptr ||
        nla_len(table[CTRL_ATTR_FAMILY_ID]) < static_cast<int>(sizeof(uint16_t))) {
      continue;
    }
    return nla_get_u16(table[CTRL_ATTR_FAMILY_ID]);
  }
  return Error{EBADMSG, "generic netlink: no family id in the controller's answer"};
}

// ctrl_getfamily's answer: the id of the multicast group named `group` (ctrl_fill_info puts a
// nest per group, each with its name and id).
Result<uint32_t> group_id(const std::vector<NlMessage>& messages, const std::string& group) {
  for (const NlMessage& message : messages) {
    if (message.type() != GENL_ID_CTRL) continue;
    nlattr* table[CTRL_ATTR_MAX + 1];
    NlMessage copy = message;
    if (nlmsg_parse(copy.header(), GENL_HDRLEN, table, CTRL_ATTR_MAX, nullptr) != 0 ||
        table[CTRL_ATTR_MCAST_GROUPS] == nullptr) {
      continue;
    }
    nlattr* entry = nullptr;
    int left = 0;
    nla_for_each_nested(entry, table[CTRL_ATTR_MCAST_GROUPS], left) {
      nlattr* fields[CTRL_ATTR_MCAST_GRP_MAX + 1];
      if (nla_parse_nested(fields, CTRL_ATTR_MCAST_GRP_MAX, entry, nullptr) != 0) continue;
      uint32_t id = 0;
      const nlattr* name = fields[CTRL_ATTR_MCAST_GRP_NAME];
      if (name == nullptr || !attr_u32(fields[CTRL_ATTR_MCAST_GRP_ID], id)) continue;
      if (attr_string(name) == group) return id;
    }
  }
  return Error{ENOENT, "generic netlink: no multicast group " + group};
}

Result<std::vector<NlMessage>> lookup_family(NetlinkSocket& socket, const std::string& name) {
  NlMsgPtr lookup = new_genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 2);
  nla_put_string(lookup.get(), CTRL_ATTR_FAMILY_NAME, name.c_str());
  return rtnl_request(socket, lookup.get(), "generic netlink: find family " + name,
                      kFamilyLookupTimeout);
}

}  // namespace

Result<GenlGroupSocket> open_genl_group(const System& system, const std::string& family,
                                        const std::string& group) {
  if (!system.open_genl) return Error{EOPNOTSUPP, "no generic netlink socket"};
  auto socket = system.open_genl();
  if (!socket) return socket.error();
  auto answer = lookup_family(**socket, family);
  if (!answer) return answer.error();
  auto id = family_id(*answer);
  if (!id) return id.error();
  auto joined = group_id(*answer, group);
  if (!joined) return Error{ENOENT, family + " netlink: " + joined.error().message};
  if (auto done = (*socket)->join_group(*joined); !done) return done.error();
  return GenlGroupSocket{std::move(*socket), *id};
}

Result<void> GenlFamily::connect() {
  if (socket_) return ok();
  if (!system_.open_genl) return Error{EOPNOTSUPP, "no generic netlink socket"};
  auto socket = system_.open_genl();
  if (!socket) return socket.error();
  auto answer = lookup_family(**socket, name_);
  if (!answer) {
    if (answer.error().code == ENOENT) unavailable_ = true;  // not in this kernel
    return answer.error();
  }
  auto id = family_id(*answer);
  if (!id) return id.error();
  family_ = *id;
  socket_ = std::move(*socket);
  ++connections_;
  return ok();
}

Result<NlMsgPtr> GenlFamily::request(uint8_t cmd) {
  if (auto connected = connect(); !connected) return connected.error();
  return new_genl_request(family_, cmd, version_);
}

std::vector<Result<NlMessage>> GenlFamily::exchange(std::span<const NlMsgPtr> requests,
                                                    const std::vector<std::string>& contexts,
                                                    std::chrono::milliseconds timeout) {
  std::vector<nl_msg*> messages;
  messages.reserve(requests.size());
  for (const NlMsgPtr& request : requests) messages.push_back(request.get());
  return exchange(std::span<nl_msg* const>(messages), contexts, timeout);
}

std::vector<Result<NlMessage>> GenlFamily::exchange(std::span<nl_msg* const> requests,
                                                    const std::vector<std::string>& contexts,
                                                    std::chrono::milliseconds timeout) {
  const auto context = [&](size_t i) { return i < contexts.size() ? contexts[i] : name_; };
  std::vector<std::optional<Result<NlMessage>>> answers(requests.size());
  // Sequence number -> request; a round is a few dozen requests at most, searched in order.
  std::vector<std::pair<uint32_t, size_t>> pending;
  pending.reserve(requests.size());
  if (auto connected = connect(); !connected) {
    return std::vector<Result<NlMessage>>(requests.size(), connected.error());
  }
  // The requests go out together, as many to a datagram as fit: the kernel handles every message
  // of one (af_netlink.c netlink_rcv_skb, each answered or acknowledged on its own), so a round of
  // ports costs one system call rather than one each.
  std::vector<uint8_t>& batch = batch_;
  batch.clear();
  // Each request with the sequence number its copy in the batch carries: one message may be
  // asked twice in a round (the same port twice), numbered anew each time.
  std::vector<std::pair<size_t, uint32_t>> in_batch;
  const auto flush = [&]() {
    if (batch.empty()) return;
    const auto sent = socket_->send(batch);
    for (const auto& [i, sequence] : in_batch) {
      if (sent) {
        pending.emplace_back(sequence, i);
      } else {
        answers[i] = sent.error();
      }
    }
    batch.clear();
    in_batch.clear();
  };
  for (size_t i = 0; i < requests.size(); ++i) {
    nlmsghdr* header = nlmsg_hdr(requests[i]);
    header->nlmsg_seq = next_sequence_number();
    header->nlmsg_pid = socket_->port_id();
    const std::span<const uint8_t> bytes = message_bytes(requests[i]);
    if (!batch.empty() && batch.size() + NLMSG_ALIGN(bytes.size()) > kBatchBytes) flush();
    batch.insert(batch.end(), bytes.begin(), bytes.end());
    batch.resize(NLMSG_ALIGN(batch.size()), 0);
    in_batch.emplace_back(i, header->nlmsg_seq);
  }
  flush();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pending.empty()) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto datagram = socket_->receive(left);
    if (!datagram || datagram->empty()) break;
    int remaining = static_cast<int>(datagram->size());
    auto* header = reinterpret_cast<nlmsghdr*>(datagram->data());
    for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
      const auto it = std::find_if(pending.begin(), pending.end(), [&](const auto& entry) {
        return entry.first == header->nlmsg_seq;
      });
      if (it == pending.end()) continue;  // stale: an answer a timed-out exchange left behind
      const size_t i = it->second;
      if (header->nlmsg_type == NLMSG_ERROR) {
        Error failure = netlink_error(header, name_ + " netlink: " + context(i));
        if (failure.code == 0 && failure.message.empty()) continue;  // an acknowledgement
        answers[i] = std::move(failure);
      } else if (header->nlmsg_type == family_) {
        answers[i] = NlMessage(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(header), header->nlmsg_len));
      } else {
        continue;
      }
      pending.erase(it);
    }
  }
  if (!pending.empty()) socket_.reset();  // a broken or slow socket: a fresh one next time
  std::vector<Result<NlMessage>> results;
  results.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (answers[i]) {
      results.push_back(std::move(*answers[i]));
    } else {
      results.push_back(Error{ETIMEDOUT, name_ + " netlink: no answer for " + context(i)});
    }
  }
  return results;
}

}  // namespace roced
