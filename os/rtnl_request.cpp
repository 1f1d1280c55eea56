// SPDX-License-Identifier: Apache-2.0
#include "os/rtnl_request.hpp"

#include <linux/netlink.h>

#include <atomic>
#include <cstring>
#include <ctime>

namespace roced {

uint32_t next_sequence_number() {
  static std::atomic<uint32_t> sequence{static_cast<uint32_t>(std::time(nullptr))};
  return sequence.fetch_add(1);
}

namespace {

enum class Outcome { Continue, Done, Interrupted };

// The errno of a reply's negative error field. The kernel's are 1..MAX_ERRNO (4095); any other
// value is a malformed reply, and negating INT_MIN would overflow.
int reply_errno(int error) { return error < 0 && error >= -4095 ? -error : EPROTO; }

// The kernel's reason from an extended ACK (NLMSGERR_ATTR_MSG), if it sent one.
std::string extack_message(const nlmsghdr* header) {
  if ((header->nlmsg_flags & NLM_F_ACK_TLVS) == 0) return {};
  // The flag alone proves nothing: a reply too short for the echoed request header has no room
  // for attributes, and reading the echo would run past the message.
  size_t offset = NLMSG_HDRLEN + sizeof(nlmsgerr);
  if (header->nlmsg_len < offset) return {};
  const auto* err = static_cast<const nlmsgerr*>(NLMSG_DATA(header));
  // Without NLM_F_CAPPED the error echoes the whole request before the attributes.
  if ((header->nlmsg_flags & NLM_F_CAPPED) == 0) {
    size_t echoed = err->msg.nlmsg_len;
    if (echoed < NLMSG_HDRLEN) return {};
    offset += NLMSG_ALIGN(echoed) - NLMSG_HDRLEN;
  }
  if (offset >= header->nlmsg_len) return {};
  const auto* attrs =
      reinterpret_cast<const nlattr*>(reinterpret_cast<const uint8_t*>(header) + offset);
  int remaining = static_cast<int>(header->nlmsg_len - offset);
  const nlattr* attr = nullptr;
  int rem = 0;
  nla_for_each_attr(attr, const_cast<nlattr*>(attrs), remaining, rem) {
    if (nla_type(attr) == NLMSGERR_ATTR_MSG) return attr_string(attr);
  }
  return {};
}

class Exchange {
 public:
  Exchange(uint32_t sequence, bool dump, std::string context)
      : sequence_(sequence), dump_(dump), context_(std::move(context)) {}

  // Consumes one datagram; returns an Error, or whether the exchange is complete.
  Result<Outcome> consume(std::span<const uint8_t> datagram) {
    int remaining = static_cast<int>(datagram.size());
    auto* header = reinterpret_cast<nlmsghdr*>(const_cast<uint8_t*>(datagram.data()));
    for (; nlmsg_ok(header, remaining); header = nlmsg_next(header, &remaining)) {
      if (header->nlmsg_seq != sequence_) continue;  // stale or unsolicited
      if (header->nlmsg_flags & NLM_F_DUMP_INTR) interrupted_ = true;
      switch (header->nlmsg_type) {
        case NLMSG_NOOP:
          continue;
        case NLMSG_OVERRUN:
          return Error{ENOBUFS, context_ + ": netlink overrun"};
        case NLMSG_ERROR: {
          Error failure = netlink_error(header, context_);
          if (failure.code == 0) return finish();  // the ACK
          return failure;
        }
        case NLMSG_DONE: {
          // A dump's last message may carry its error (netlink_dump_done).
          if (header->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
            int error = 0;
            std::memcpy(&error, NLMSG_DATA(header), sizeof(error));
            if (error < 0) return Error::from_errno(reply_errno(error), context_);
          }
          return finish();
        }
        default:
          replies_.emplace_back(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(header),
                                                         header->nlmsg_len));
      }
    }
    return Outcome::Continue;
  }

  std::vector<NlMessage> take_replies() { return std::move(replies_); }

 private:
  Outcome finish() const { return dump_ && interrupted_ ? Outcome::Interrupted : Outcome::Done; }

  uint32_t sequence_;
  bool dump_;
  std::string context_;
  bool interrupted_ = false;
  std::vector<NlMessage> replies_;
};

}  // namespace

Error netlink_error(const nlmsghdr* header, const std::string& context) {
  if (header->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
    return Error{EBADMSG, context + ": truncated NLMSG_ERROR"};
  }
  int error = 0;
  std::memcpy(&error, NLMSG_DATA(header), sizeof(error));
  if (error == 0) return Error{0, {}};
  Error failure = Error::from_errno(reply_errno(error), context);
  if (std::string reason = extack_message(header); !reason.empty()) {
    failure.message += ": " + reason;
  }
  return failure;
}

Result<std::vector<NlMessage>> rtnl_request(NetlinkSocket& socket, nl_msg* request,
                                            const std::string& context,
                                            std::chrono::milliseconds timeout) {
  constexpr int kDumpAttempts = 3;
  nlmsghdr* header = nlmsg_hdr(request);
  const bool dump = (header->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
  if (!dump) header->nlmsg_flags |= NLM_F_ACK;
  header->nlmsg_pid = socket.port_id();

  for (int attempt = 1;; ++attempt) {
    header->nlmsg_seq = next_sequence_number();
    Exchange exchange(header->nlmsg_seq, dump, context);
    if (auto sent = socket.send(message_bytes(request)); !sent) {
      return Error{sent.error().code, context + ": " + sent.error().message};
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    Outcome outcome = Outcome::Continue;
    while (outcome == Outcome::Continue) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Error{ETIMEDOUT,
                     context + ": no answer within " + std::to_string(timeout.count()) + " ms"};
      }
      auto datagram = socket.receive(left);
      if (!datagram) return Error{datagram.error().code, context + ": " + datagram.error().message};
      if (datagram->empty()) {
        return Error{ETIMEDOUT,
                     context + ": no answer within " + std::to_string(timeout.count()) + " ms"};
      }
      auto consumed = exchange.consume(*datagram);
      if (!consumed) return consumed.error();
      outcome = *consumed;
    }
    if (outcome == Outcome::Done) return exchange.take_replies();
    if (attempt == kDumpAttempts) {
      return Error{EINTR, context + ": dump interrupted " + std::to_string(kDumpAttempts) +
                              " times by concurrent changes"};
    }
  }
}

}  // namespace roced
