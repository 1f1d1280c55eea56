// SPDX-License-Identifier: Apache-2.0
#include "rdma/nldev.hpp"

#include <rdma/rdma_netlink.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "os/netlink_message.hpp"
#include "os/rtnl_request.hpp"

namespace roced::rdma {

namespace {

constexpr uint16_t nldev_type(uint16_t op) {
  return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op));
}

// RDMA netlink has no family header: the attributes follow nlmsghdr.
NlMsgPtr new_nldev_request(uint16_t op, uint16_t extra_flags) {
  NlMsgPtr msg(nlmsg_alloc_simple(nldev_type(op), NLM_F_REQUEST | extra_flags));
  if (!msg) throw std::bad_alloc();
  return msg;
}

using AttrTable = nlattr* [RDMA_NLDEV_ATTR_MAX];

bool parse_message(nlmsghdr* header, AttrTable& table) {
  std::memset(table, 0, sizeof table);
  return nlmsg_parse(header, 0, table, RDMA_NLDEV_ATTR_MAX - 1, nullptr) == 0;
}

// One stat_get_doit_default_counter answer: the device's handle, the port, and the
// RDMA_NLDEV_ATTR_STAT_HWCOUNTERS table of {name, value} entries.
Result<CounterValues> parse_counters(nlmsghdr* header, const PortCountersRequest& request) {
  const std::string context = request.device + "/" + std::to_string(request.port);
  AttrTable table;
  if (!parse_message(header, table)) return Error{EBADMSG, context + ": malformed answer"};
  if (const std::string name = attr_string(table[RDMA_NLDEV_ATTR_DEV_NAME]);
      name != request.device) {
    return Error{ESTALE, context + ": RDMA device index " + std::to_string(request.device_index) +
                             " now names " + (name.empty() ? "no device" : name)};
  }
  nlattr* counters = table[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS];
  if (counters == nullptr) return Error{EBADMSG, context + ": answer without counters"};
  CounterValues values;
  nlattr* entry = nullptr;
  int remaining = 0;
  nla_for_each_nested(entry, counters, remaining) {
    if (nla_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY) continue;
    AttrTable fields;
    std::memset(fields, 0, sizeof fields);
    if (nla_parse_nested(fields, RDMA_NLDEV_ATTR_MAX - 1, entry, nullptr) != 0) {
      return Error{EBADMSG, context + ": malformed counter entry"};
    }
    std::string name = attr_string(fields[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]);
    uint64_t value = 0;
    if (name.empty() || !attr_u64(fields[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE], value)) {
      return Error{EBADMSG, context + ": counter entry without a name or a value"};
    }
    values.emplace(std::move(name), value);
  }
  return values;
}

int reply_errno(int error) { return error < 0 && error >= -4095 ? -error : EPROTO; }

}  // namespace

Result<std::vector<NldevDevice>> list_nldev_devices(NetlinkSocket& socket) {
  NlMsgPtr request = new_nldev_request(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
  auto messages = rtnl_request(socket, request.get(), "RDMA netlink: list devices");
  if (!messages) return messages.error();
  std::vector<NldevDevice> devices;
  for (NlMessage& message : *messages) {
    if (message.type() != nldev_type(RDMA_NLDEV_CMD_GET)) continue;
    AttrTable table;
    if (!parse_message(message.header(), table)) continue;
    NldevDevice device;
    device.name = attr_string(table[RDMA_NLDEV_ATTR_DEV_NAME]);
    if (!attr_u32(table[RDMA_NLDEV_ATTR_DEV_INDEX], device.index) || device.name.empty()) continue;
    attr_u32(table[RDMA_NLDEV_ATTR_PORT_INDEX], device.ports);
    devices.push_back(std::move(device));
  }
  return devices;
}

std::vector<Result<CounterValues>> read_port_counters(NetlinkSocket& socket,
                                                      std::span<const PortCountersRequest> requests,
                                                      std::chrono::milliseconds timeout) {
  std::vector<std::optional<Result<CounterValues>>> answers(requests.size());
  std::map<uint32_t, size_t> pending;  // sequence number -> request
  for (size_t i = 0; i < requests.size(); ++i) {
    NlMsgPtr message = new_nldev_request(RDMA_NLDEV_CMD_STAT_GET, NLM_F_ACK);
    nla_put_u32(message.get(), RDMA_NLDEV_ATTR_DEV_INDEX, requests[i].device_index);
    nla_put_u32(message.get(), RDMA_NLDEV_ATTR_PORT_INDEX, requests[i].port);
    nlmsghdr* header = nlmsg_hdr(message.get());
    header->nlmsg_seq = next_sequence_number();
    header->nlmsg_pid = socket.port_id();
    if (auto sent = socket.send(message_bytes(message.get())); !sent) {
      answers[i] = sent.error();
      continue;
    }
    pending.emplace(header->nlmsg_seq, i);
  }

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pending.empty()) {
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    auto datagram = socket.receive(left);
    if (!datagram) {
      for (const auto& [sequence, i] : pending) answers[i] = datagram.error();
      pending.clear();
      break;
    }
    if (datagram->empty()) break;  // the deadline passed
    int remaining = static_cast<int>(datagram->size());
    auto* header = reinterpret_cast<nlmsghdr*>(datagram->data());
    for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
      const auto it = pending.find(header->nlmsg_seq);
      if (it == pending.end()) continue;  // stale, or another exchange's
      const size_t i = it->second;
      if (header->nlmsg_type == NLMSG_ERROR) {
        int error = -EBADMSG;
        if (header->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
          std::memcpy(&error, NLMSG_DATA(header), sizeof error);
        }
        if (error != 0) {
          answers[i] = Error::from_errno(reply_errno(error), "RDMA netlink: counters of " +
                                                                 requests[i].device + "/" +
                                                                 std::to_string(requests[i].port));
        } else if (!answers[i]) {
          answers[i] = Error{EPROTO, "RDMA netlink: acknowledged without an answer"};
        }
        pending.erase(it);
      } else if (header->nlmsg_type == nldev_type(RDMA_NLDEV_CMD_STAT_GET) && !answers[i]) {
        answers[i] = parse_counters(header, requests[i]);
      }
    }
  }

  std::vector<Result<CounterValues>> results;
  results.reserve(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (answers[i]) {  // an answer whose ACK is late is still the answer
      results.push_back(std::move(*answers[i]));
    } else {
      results.push_back(Error{ETIMEDOUT, "RDMA netlink: no answer for " + requests[i].device + "/" +
                                             std::to_string(requests[i].port) + " within " +
                                             std::to_string(timeout.count()) + " ms"});
    }
  }
  return results;
}

Result<void> NldevCounterReader::refresh_devices() {
  constexpr std::chrono::seconds kMinListingInterval{1};
  const auto now = std::chrono::steady_clock::now();
  if (listed_at_ != std::chrono::steady_clock::time_point{} &&
      now - listed_at_ < kMinListingInterval) {
    return Error{EAGAIN, "RDMA netlink: devices listed less than a second ago"};
  }
  listed_at_ = now;
  auto devices = list_nldev_devices(*socket_);
  if (!devices) return devices.error();
  indexes_.clear();
  for (const NldevDevice& device : *devices) indexes_[device.name] = device.index;
  return ok();
}

std::vector<Result<CounterValues>> NldevCounterReader::read_once(
    std::span<const std::pair<std::string, int>> ports, bool& stale) {
  std::vector<Result<CounterValues>> results(ports.size(), Error{ENODEV, ""});
  std::vector<PortCountersRequest> requests;
  std::vector<size_t> asked;
  for (size_t i = 0; i < ports.size(); ++i) {
    const auto& [device, port] = ports[i];
    if (const auto it = indexes_.find(device); it != indexes_.end()) {
      requests.push_back({it->second, device, static_cast<uint32_t>(port)});
      asked.push_back(i);
    } else {
      results[i] = Error{ENODEV, "RDMA netlink lists no device " + device};
    }
  }
  auto answers = read_port_counters(*socket_, requests, kDefaultNetlinkTimeout);
  stale = false;
  for (size_t k = 0; k < answers.size(); ++k) {
    if (!answers[k]) {
      const Error& error = answers[k].error();
      stale = stale || error.code == ESTALE || error.code == EINVAL;
    }
    results[asked[k]] = std::move(answers[k]);
  }
  return results;
}

std::optional<std::vector<Result<CounterValues>>> NldevCounterReader::read(
    std::span<const std::pair<std::string, int>> ports) {
  if (!available()) return std::nullopt;
  auto socket = system_.open_rdma_netlink();
  if (!socket) return std::nullopt;
  socket_ = std::move(*socket);
  bool unknown = false;
  for (const auto& [device, port] : ports) unknown = unknown || !indexes_.count(device);
  if (unknown) {
    if (auto listed = refresh_devices(); !listed && listed.error().code != EAGAIN) {
      socket_.reset();
      return std::nullopt;
    }
  }
  bool stale = false;
  auto results = read_once(ports, stale);
  if (stale && refresh_devices()) results = read_once(ports, stale);
  socket_.reset();
  return results;
}

}  // namespace roced::rdma
