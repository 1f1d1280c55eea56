// SPDX-License-Identifier: Apache-2.0
#pragma once
// The fuzz targets' own oracle beyond the sanitizers: a broken promise aborts, so libFuzzer keeps
// the input as a crash.

#include <cstdio>
#include <cstdlib>

#include "os/result.hpp"

namespace roced::fuzz {

inline void require(bool holds, const char* promise) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n", promise);
  std::abort();
}

// Bad input gets a clear error: every failure says what failed.
template <class T>
void require_explained(const Result<T>& result) {
  if (!result) require(!result.error().message.empty(), "an error carries a message");
}

}  // namespace roced::fuzz
