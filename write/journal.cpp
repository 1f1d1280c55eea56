// SPDX-License-Identifier: Apache-2.0
#include "write/journal.hpp"

namespace roced::write {

std::vector<Result<void>> Journal::undo_all(Port& port) {
  std::vector<Result<void>> results(entries_.size());
  unwind([&](const Entry& entry, size_t index) { results[index] = perform(entry.undo, port); });
  return results;
}

}  // namespace roced::write
