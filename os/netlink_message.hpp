// SPDX-License-Identifier: Apache-2.0
#pragma once
// RAII over libnl's message and socket handles, and the few helpers every codec needs.

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace roced {

struct NlMsgDeleter {
  void operator()(nl_msg* msg) const { nlmsg_free(msg); }
};
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgDeleter>;

struct NlSockDeleter {
  void operator()(nl_sock* sock) const { nl_socket_free(sock); }
};
using NlSockPtr = std::unique_ptr<nl_sock, NlSockDeleter>;

// A new request: netlink header (type, NLM_F_REQUEST | extra_flags) followed by the family header.
// Allocation failure is a programmer-visible std::bad_alloc, as for any other allocation.
NlMsgPtr new_request(uint16_t type, uint16_t extra_flags, const void* family_header,
                     size_t family_header_len);

// The bytes of a finished message, exactly as they go on the wire.
std::span<const uint8_t> message_bytes(nl_msg* msg);

// One received netlink message, copied out of its datagram so it outlives the receive buffer.
// The storage is suitably aligned for nlmsghdr (operator new alignment).
class NlMessage {
 public:
  explicit NlMessage(std::span<const uint8_t> bytes) : bytes_(bytes.begin(), bytes.end()) {}
  nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(bytes_.data()); }
  const nlmsghdr* header() const { return reinterpret_cast<const nlmsghdr*>(bytes_.data()); }
  uint16_t type() const { return header()->nlmsg_type; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Attribute readers that check the payload length before they look (a short attribute reads as
// absent).
bool attr_u8(const nlattr* attr, uint8_t& out);
bool attr_u32(const nlattr* attr, uint32_t& out);
bool attr_u64(const nlattr* attr, uint64_t& out);
std::string attr_string(const nlattr* attr);  // stops at the first NUL or the attribute's end

}  // namespace roced
