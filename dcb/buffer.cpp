// SPDX-License-Identifier: Apache-2.0
// Buffers: struct dcbnl_buffer in DCB_ATTR_DCB_BUFFER (44 bytes: prio2buffer, sizes, total).
#include <linux/dcbnl.h>

#include <cstring>

#include "dcb/codec.hpp"

namespace roced::dcb {

void put_buffer(nl_msg* msg, const Buffer& buffer) {
  dcbnl_buffer wire{};
  for (int i = 0; i < IEEE_8021Q_MAX_PRIORITIES; ++i) wire.prio2buffer[i] = buffer.prio2buffer[i];
  for (int i = 0; i < DCBX_MAX_BUFFERS; ++i) wire.buffer_size[i] = buffer.buffer_size[i];
  wire.total_size = buffer.total_size;
  nla_put(msg, DCB_ATTR_DCB_BUFFER, sizeof(wire), &wire);
}

Result<Buffer> parse_buffer(const nlattr* attr) {
  if (nla_len(attr) < static_cast<int>(sizeof(dcbnl_buffer))) {
    return Error{EBADMSG, "DCB_ATTR_DCB_BUFFER shorter than struct dcbnl_buffer"};
  }
  dcbnl_buffer wire{};
  std::memcpy(&wire, nla_data(attr), sizeof(wire));
  Buffer buffer;
  for (int i = 0; i < IEEE_8021Q_MAX_PRIORITIES; ++i) buffer.prio2buffer[i] = wire.prio2buffer[i];
  for (int i = 0; i < DCBX_MAX_BUFFERS; ++i) buffer.buffer_size[i] = wire.buffer_size[i];
  buffer.total_size = wire.total_size;
  return buffer;
}

}  // namespace roced::dcb
