// SPDX-License-Identifier: Apache-2.0
#pragma once
// sd_notify(3) for roced: READY=1, STATUS=, RELOADING=1, STOPPING=1, WATCHDOG=1,
// EXTEND_TIMEOUT_USEC= to
// $NOTIFY_SOCKET. Without systemd (no $NOTIFY_SOCKET) every call is a no-op.

#include <chrono>
#include <optional>
#include <string>

namespace roced::service {

class Notifier {
 public:
  Notifier();  // reads $WATCHDOG_USEC (and $WATCHDOG_PID, when set, must be this process)

  void ready();
  void reloading();
  void stopping();
  void ping_systemd_watchdog();
  // EXTEND_TIMEOUT_USEC=: the start (or stop) may take `more` from now than TimeoutStartSec.
  void extend_timeout(std::chrono::microseconds more);
  // Sends STATUS=<text> when it differs from the last one sent.
  void status(const std::string& text);

  // WatchdogSec= as systemd passed it; nullopt when the watchdog is off.
  std::optional<std::chrono::microseconds> systemd_watchdog_timeout() const {
    return systemd_watchdog_timeout_;
  }

 private:
  void send(const std::string& state);
  std::optional<std::chrono::microseconds> systemd_watchdog_timeout_;
  std::string last_status_;
};

}  // namespace roced::service
