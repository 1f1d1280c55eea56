// SPDX-License-Identifier: Apache-2.0
#include "daemon/log/fields.hpp"

namespace roced::log {

namespace {
thread_local const PortFields* current = nullptr;
}

const PortFields* current_fields() { return current; }

ScopedPortFields::ScopedPortFields(PortFields fields)
    : fields_(std::move(fields)), previous_(current) {
  current = &fields_;
}

ScopedPortFields::~ScopedPortFields() { current = previous_; }

}  // namespace roced::log
