// SPDX-License-Identifier: Apache-2.0
#include "daemon/service/notifier.hpp"

#include <systemd/sd-daemon.h>

#include <cstdint>

namespace roced::service {

Notifier::Notifier() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
    systemd_watchdog_timeout_ = std::chrono::microseconds(usec);
  }
}

void Notifier::send(const std::string& state) {
  // Fails only when $NOTIFY_SOCKET is unusable; systemd then acts on the missing message
  // (start timeout, watchdog), which is the right outcome.
  (void)sd_notify(0, state.c_str());
}

void Notifier::ready() { send("READY=1"); }
void Notifier::reloading() { send("RELOADING=1"); }
void Notifier::stopping() { send("STOPPING=1"); }
void Notifier::ping_systemd_watchdog() { send("WATCHDOG=1"); }
void Notifier::extend_timeout(std::chrono::microseconds more) {
  send("EXTEND_TIMEOUT_USEC=" + std::to_string(more.count()));
}

void Notifier::status(const std::string& text) {
  if (text == last_status_) return;
  last_status_ = text;
  send("STATUS=" + text);
}

}  // namespace roced::service
