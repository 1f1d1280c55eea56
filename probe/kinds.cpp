// SPDX-License-Identifier: Apache-2.0
#include "probe/kinds.hpp"

namespace roced::probe {

std::span<const finding::Kind* const> kinds() {
  static const finding::Kind* const kAll[] = {&kProbeLoss, &kProbeLatency, &kProbeUnavailable};
  return kAll;
}

}  // namespace roced::probe
