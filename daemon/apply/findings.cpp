// SPDX-License-Identifier: Apache-2.0
#include "daemon/apply/findings.hpp"

#include <array>

namespace roced::apply {

namespace {
constexpr std::array<const finding::Kind*, 4> kKinds = {&kCarrierNotBack, &kHeadroomNotRecomputed,
                                                        &kHeadroomUnknown, &kUndoAnsweredError};
}  // namespace

std::span<const finding::Kind* const> kinds() { return kKinds; }

}  // namespace roced::apply
