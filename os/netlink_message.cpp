// SPDX-License-Identifier: Apache-2.0
#include "os/netlink_message.hpp"

#include <cstring>
#include <new>

namespace roced {

NlMsgPtr new_request(uint16_t type, uint16_t extra_flags, const void* family_header,
                     size_t family_header_len) {
  NlMsgPtr msg(nlmsg_alloc_simple(type, NLM_F_REQUEST | extra_flags));
  if (!msg) throw std::bad_alloc();
  // nlmsg_append wants a mutable pointer but only reads it.
  if (nlmsg_append(msg.get(), const_cast<void*>(family_header), family_header_len, NLMSG_ALIGNTO) <
      0) {
    throw std::bad_alloc();
  }
  return msg;
}

std::span<const uint8_t> message_bytes(nl_msg* msg) {
  const nlmsghdr* header = nlmsg_hdr(msg);
  return {reinterpret_cast<const uint8_t*>(header), header->nlmsg_len};
}

bool attr_u8(const nlattr* attr, uint8_t& out) {
  if (attr == nullptr || nla_len(attr) < 1) return false;
  std::memcpy(&out, nla_data(attr), 1);
  return true;
}

bool attr_u32(const nlattr* attr, uint32_t& out) {
  if (attr == nullptr || nla_len(attr) < static_cast<int>(sizeof(uint32_t))) return false;
  std::memcpy(&out, nla_data(attr), sizeof(out));
  return true;
}

bool attr_u64(const nlattr* attr, uint64_t& out) {
  if (attr == nullptr || nla_len(attr) < static_cast<int>(sizeof(uint64_t))) return false;
  std::memcpy(&out, nla_data(attr), sizeof(out));
  return true;
}

std::string attr_string(const nlattr* attr) {
  if (attr == nullptr || nla_len(attr) <= 0) return {};
  const char* data = static_cast<const char*>(nla_data(attr));
  return std::string(data, strnlen(data, static_cast<size_t>(nla_len(attr))));
}

}  // namespace roced
