// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a run of writes changed and how to put it back: each change is recorded with its undo
// before it is made, and the undos run newest first. The applier keeps one per port apply (its
// rollback), `rocectl qualify --write` one per port (everything it changed, put back at the end).
#include <cstddef>
#include <string>
#include <vector>

#include "write/write.hpp"

namespace roced::write {

struct Entry {
  std::string what;  // the change, in words ("PFC 0x00 (changed to 0x08 and 0x00)")
  Undo undo;
};

class Journal {
 public:
  // Before a change is made: how to put it back. A change the kernel may apply in part (several
  // APP entries in one message, a PFC mask set before its buffers fail) stays journalled when it
  // fails; forget_last() is for one that was refused whole.
  void record(std::string what, Undo undo) {
    entries_.push_back({std::move(what), std::move(undo)});
  }
  // The last change recorded was not made after all: nothing of it to put back.
  void forget_last() {
    if (!entries_.empty()) entries_.pop_back();
  }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }

  // Undoes every entry, newest first, through `undo_one(entry, index)` (which returns whether it
  // was put back), and empties the journal.
  template <class UndoOne>
  void unwind(UndoOne undo_one) {
    for (size_t index = entries_.size(); index-- > 0;) undo_one(entries_[index], index);
    entries_.clear();
  }

  // Every entry through `port`, newest first; an entry's undo stops at its first refused write,
  // the others still run. The results, in the order of the entries.
  std::vector<Result<void>> undo_all(Port& port);

 private:
  std::vector<Entry> entries_;
};

}  // namespace roced::write
