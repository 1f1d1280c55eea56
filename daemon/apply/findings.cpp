// SPDX-License-Identifier: Apache-2.0
#include "daemon/apply/findings.hpp"

#include <array>

namespace roced::apply {

namespace {
constexpr std::array<const finding::Kind*, 3> kKinds = {&kCarrierNotBack, &kHeadroomNotRecomputed,
                                                        &kUndoAnsweredError};
}  // namespace

std::span<const finding::Kind* const> kinds() { return kKinds; }

}  // namespace roced::apply
