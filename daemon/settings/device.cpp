// SPDX-License-Identifier: Apache-2.0
// The Writer's retries: transient errors (EBUSY, EAGAIN) back off exponentially, up to
// WriteOptions::max_attempts tries per request.
#include "daemon/settings/device.hpp"

#include <algorithm>
#include <cerrno>

namespace roced::settings {

bool is_transient(const Error& error) { return error.code == EBUSY || error.code == EAGAIN; }

bool Writer::retry_after(const Error& error, int attempt) {
  if (!is_transient(error) || attempt >= options_.max_attempts) return false;
  options_.time->sleep_for(options_.first_backoff * (1 << std::min(attempt - 1, 16)));
  return true;
}

Result<void> Writer::write(const write::Write& request) {
  const bool partial = write::may_apply_in_part(request);
  for (int attempt = 1;; ++attempt) {
    attempts_ = std::max(attempts_, attempt);
    auto result = device_.write(request);
    if (result || partial) maybe_changed_ = true;
    if (result || !retry_after(result.error(), attempt)) return result;
  }
}

}  // namespace roced::settings
