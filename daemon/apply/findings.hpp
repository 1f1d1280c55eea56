// SPDX-License-Identifier: Apache-2.0
#pragma once
// What an apply finds that its steps' results do not say: a link that did not come back, a
// lossless headroom left as computed with the link down, an undo the driver complained about.

#include <span>

#include "finding/finding.hpp"

namespace roced::apply {

inline constexpr finding::Kind kCarrierNotBack{
    "carrier_not_back", finding::Severity::Critical, "apply",
    "The port had its carrier before a disruptive change (MTU, PFC) and not within "
    "apply.carrier_timeout after it; no other port is flapped until it is back.",
    "Check the link (ip link, ethtool, the switch port); roced goes on with the other ports once "
    "its carrier returns or the port is restarted."};
inline constexpr finding::Kind kHeadroomNotRecomputed{
    "headroom_not_recomputed", finding::Severity::Warning, "apply",
    "mlx5 computed the lossless buffers' Xoff with the link down (for 40 Gb/s) and roced could "
    "not have it recomputed at the link's speed, so the headroom may be too small.",
    "Once the link is up, run rocectl apply again (it resends PFC unchanged); ENOMEM means a "
    "lossless buffer is too small for this speed: enlarge it in profile.buffers."};
inline constexpr finding::Kind kHeadroomUnknown{
    "headroom_unknown", finding::Severity::Warning, "apply",
    "This port's mlx5 sizes host-set buffers again after a PFC change only when the firmware "
    "reports the host owns them (port.c mlx5_query_port_buffer_ownership, PCAM "
    "buffer_ownership), which roced cannot read: whether Xoff is for the link's speed or for the "
    "40 Gb/s of a link that was down cannot be told.",
    "Use firmware with the PCAM buffer_ownership feature, or leave the buffers to the firmware "
    "(no profile.buffers); `rocectl status --json` shows the port's driver tree."};
inline constexpr finding::Kind kUndoAnsweredError{
    "undo_answered_error", finding::Severity::Info, "apply",
    "A rollback step reads back as before, though the driver answered it with an error "
    "(mlx5's setpfc sets the mask before it fails on the buffers).",
    "Nothing to do for the port; the error in the text says what the driver refused."};

// Every kind above, for the catalogue.
std::span<const finding::Kind* const> kinds();

}  // namespace roced::apply
