// SPDX-License-Identifier: Apache-2.0
#pragma once
// A view of a System for the length of one plan: the same files and ethtool, but every
// rtnetlink request goes over one socket opened on first use, instead of a socket per request.
// Planning a port makes a few requests (link, DCB); against roce-sim each new connection also
// costs a handshake the server answers between its other work. The caller's System is untouched,
// so another thread may keep using it.

#include "os/system.hpp"

namespace roced::plan {

System planning_view(System& system);

}  // namespace roced::plan
