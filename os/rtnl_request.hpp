// SPDX-License-Identifier: Apache-2.0
#pragma once
// One request/response exchange on a NETLINK_ROUTE socket, the same for every transport.
//
// The request gets a fresh sequence number and this socket's port id. A dump (NLM_F_DUMP) is read
// until NLMSG_DONE; any other request is sent with NLM_F_ACK and read until its ACK, which the
// kernel sends after the reply (af_netlink.c: netlink_rcv_skb), so no ACK is ever left unread to
// confuse the next exchange. Messages with another sequence number (a stale ACK of an earlier,
// timed-out exchange; a notification) are skipped.
// Do not use a socket that joined multicast groups for requests: notifications caused by this
// very request would carry its sequence number.

#include <chrono>
#include <string>
#include <vector>

#include "os/netlink_message.hpp"
#include "os/system.hpp"

namespace roced {

constexpr std::chrono::milliseconds kDefaultNetlinkTimeout{5000};

// Every reply message of the exchange, in order, without the ACK / NLMSG_DONE.
// Errors: NLMSG_ERROR with a negative errno -> Error{errno, "<context>: <strerror>[: <extack>]"};
// no answer within `timeout` -> ETIMEDOUT; a dump the kernel interrupted (NLM_F_DUMP_INTR) is
// retried a few times, then EINTR.
Result<std::vector<NlMessage>> rtnl_request(
    NetlinkSocket& socket, nl_msg* request, const std::string& context,
    std::chrono::milliseconds timeout = kDefaultNetlinkTimeout);

// The error an NLMSG_ERROR message carries, with the kernel's reason from an extended ACK:
// Error{errno, "<context>: <strerror>[: <extack>]"}; EBADMSG when it is truncated. Code 0 for an
// acknowledgement.
Error netlink_error(const nlmsghdr* header, const std::string& context);

// The next sequence number (process-wide, starts at the time like libnl's so that numbers are not
// reused across restarts of a daemon that keeps a socket in a sim server).
uint32_t next_sequence_number();

}  // namespace roced
