// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's D-Bus names (docs/dbus.md). One place, shared by the daemon's object and rocectl's
// client, so the two cannot disagree.

namespace roced::dbus {

// The "1" is the API version: an incompatible change gets a new name, the old one keeps working.
inline constexpr const char* kBusName = "io.roced.Daemon1";
inline constexpr const char* kObjectPath = "/io/roced/Daemon1";
inline constexpr const char* kInterface = "io.roced.Daemon1";

// Errors the methods return besides the bus's own.
inline constexpr const char* kErrorAccessDenied = "org.freedesktop.DBus.Error.AccessDenied";
inline constexpr const char* kErrorFailed = "io.roced.Daemon1.Error.Failed";
// GetPendingPlan: the file on disk is invalid; the message is its problems, one per line.
inline constexpr const char* kErrorInvalidConfig = "io.roced.Daemon1.Error.InvalidConfig";

}  // namespace roced::dbus
