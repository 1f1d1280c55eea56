// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every finding kind the health checks make, for the catalogue.
#include <span>

#include "finding/finding.hpp"

namespace roced::health {

std::span<const finding::Kind* const> kinds();

}  // namespace roced::health
