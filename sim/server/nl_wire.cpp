// SPDX-License-Identifier: Apache-2.0
#include "sim/server/nl_wire.hpp"

namespace roce_sim::server {

namespace {
constexpr size_t align4(size_t n) { return (n + 3u) & ~size_t{3}; }
}  // namespace

NlMessage::NlMessage(uint16_t type, uint16_t flags, uint32_t seq, uint32_t pid) {
  nlmsghdr header{};
  header.nlmsg_type = type;
  header.nlmsg_flags = flags;
  header.nlmsg_seq = seq;
  header.nlmsg_pid = pid;
  put_raw(&header, sizeof header);
}

void NlMessage::put_raw(const void* data, size_t len) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  buf_.insert(buf_.end(), bytes, bytes + len);
  pad();
}

void NlMessage::pad() { buf_.resize(align4(buf_.size()), 0); }

void NlMessage::put_attr(uint16_t type, const void* data, size_t len) {
  nlattr attr{};
  attr.nla_len = static_cast<uint16_t>(NLA_HDRLEN + len);
  attr.nla_type = type;
  const auto* bytes = reinterpret_cast<const uint8_t*>(&attr);
  buf_.insert(buf_.end(), bytes, bytes + sizeof attr);
  if (len > 0) {
    const auto* payload = static_cast<const uint8_t*>(data);
    buf_.insert(buf_.end(), payload, payload + len);
  }
  pad();
}

void NlMessage::put_string(uint16_t type, std::string_view text) {
  std::string copy(text);
  put_attr(type, copy.c_str(), copy.size() + 1);
}

size_t NlMessage::begin_nest(uint16_t type) {
  const size_t start = buf_.size();
  put_attr(type, nullptr, 0);
  return start;
}

void NlMessage::end_nest(size_t start) {
  const auto len = static_cast<uint16_t>(buf_.size() - start);
  std::memcpy(buf_.data() + start, &len, sizeof len);
}

Bytes NlMessage::finish() {
  const auto len = static_cast<uint32_t>(buf_.size());
  std::memcpy(buf_.data(), &len, sizeof len);
  return buf_;
}

void NlMessage::append_to(Bytes& datagram) {
  Bytes message = finish();
  datagram.insert(datagram.end(), message.begin(), message.end());
}

std::vector<NlRequest> split_messages(ByteView datagram) {
  std::vector<NlRequest> out;
  size_t offset = 0;
  while (datagram.size() - offset >= sizeof(nlmsghdr)) {
    nlmsghdr header{};
    std::memcpy(&header, datagram.data() + offset, sizeof header);
    if (header.nlmsg_len < sizeof header || header.nlmsg_len > datagram.size() - offset) break;
    NlRequest request;
    request.header = header;
    request.whole = datagram.subspan(offset, header.nlmsg_len);
    request.payload = request.whole.subspan(sizeof header);
    out.push_back(request);
    offset += align4(header.nlmsg_len);
    if (offset >= datagram.size()) break;
  }
  return out;
}

std::vector<std::pair<uint16_t, ByteView>> list_attrs(ByteView data) {
  std::vector<std::pair<uint16_t, ByteView>> out;
  size_t offset = 0;
  while (data.size() - offset >= NLA_HDRLEN) {
    nlattr attr{};
    std::memcpy(&attr, data.data() + offset, sizeof attr);
    if (attr.nla_len < NLA_HDRLEN || attr.nla_len > data.size() - offset) break;
    out.emplace_back(static_cast<uint16_t>(attr.nla_type & NLA_TYPE_MASK),
                     data.subspan(offset + NLA_HDRLEN, attr.nla_len - NLA_HDRLEN));
    offset += align4(attr.nla_len);
    if (offset >= data.size()) break;
  }
  return out;
}

AttrTable parse_attrs(ByteView data) {
  AttrTable table;
  for (const auto& [type, value] : list_attrs(data)) table[type] = value;
  return table;
}

std::string attr_string(ByteView value) {
  std::string text(reinterpret_cast<const char*>(value.data()), value.size());
  const auto nul = text.find('\0');
  if (nul != std::string::npos) text.resize(nul);
  return text;
}

Bytes make_ack(const NlRequest& request, int error, uint32_t pid) {
  const bool capped = error == 0;
  NlMessage message(NLMSG_ERROR, capped ? NLM_F_CAPPED : 0, request.header.nlmsg_seq, pid);
  Bytes body(sizeof(int), 0);
  std::memcpy(body.data(), &error, sizeof error);
  if (capped) {
    body.insert(body.end(), request.whole.begin(), request.whole.begin() + sizeof(nlmsghdr));
  } else {
    body.insert(body.end(), request.whole.begin(), request.whole.end());
  }
  // struct nlmsgerr: the error, then the request (whole, or its header when capped).
  Bytes out = message.finish();
  out.insert(out.end(), body.begin(), body.end());
  out.resize((out.size() + 3u) & ~size_t{3}, 0);
  const auto len = static_cast<uint32_t>(out.size());
  std::memcpy(out.data(), &len, sizeof len);
  return out;
}

void append_done(Bytes& datagram, uint32_t seq, uint32_t pid) {
  NlMessage done(NLMSG_DONE, NLM_F_MULTI, seq, pid);
  const int zero = 0;
  done.put_header(zero);
  done.append_to(datagram);
}

}  // namespace roce_sim::server
