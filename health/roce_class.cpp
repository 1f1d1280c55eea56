// SPDX-License-Identifier: Apache-2.0
#include "health/roce_class.hpp"

#include <cstdio>

#include "util/counter_step.hpp"

namespace roced::health {

namespace {

// "1.2 GB": bytes as a person reads them in the finding's text.
std::string gigabytes(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f GB", static_cast<double>(bytes) / 1e9);
  return text;
}

std::optional<uint64_t> sent(const std::optional<uint64_t>& before,
                             const std::optional<uint64_t>& after) {
  if (!before || !after) return std::nullopt;
  return counter_step(*before, *after, CounterWidth::bits64).delta;
}

}  // namespace

ClassSample class_sample(std::span<const std::string> names, std::span<const uint64_t> values,
                         std::optional<uint64_t> port_xmit_data_words) {
  ClassSample sample;
  if (port_xmit_data_words) sample.rdma_tx_bytes = *port_xmit_data_words * 4;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    const std::string& name = names[i];
    // tx_prio<p>_bytes: one digit, then the tail.
    if (name.size() == 14 && name.starts_with("tx_prio") && name.ends_with("_bytes") &&
        name[7] >= '0' && name[7] <= '7') {
      sample.priority_tx_bytes[static_cast<size_t>(name[7] - '0')] = values[i];
    }
  }
  return sample;
}

std::optional<finding::Finding> judge_roce_class(const std::string& netdev, uint8_t lossless,
                                                 const ClassSample& before,
                                                 const ClassSample& after) {
  if (lossless == 0) return std::nullopt;
  const auto rdma = sent(before.rdma_tx_bytes, after.rdma_tx_bytes);
  if (!rdma || *rdma < kRoceClassMinBytes) return std::nullopt;
  uint64_t on_lossless = 0;
  uint64_t all = 0;
  int busiest = -1;
  uint64_t busiest_bytes = 0;
  std::string lossless_names;
  for (int p = 0; p < 8; ++p) {
    const auto bytes = sent(before.priority_tx_bytes[static_cast<size_t>(p)],
                            after.priority_tx_bytes[static_cast<size_t>(p)]);
    if (!bytes) return std::nullopt;  // a reading without the priority's counters tells nothing
    all += *bytes;
    if ((lossless >> p) & 1U) {
      on_lossless += *bytes;
      lossless_names += (lossless_names.empty() ? "" : ",") + std::to_string(p);
    } else if (*bytes > busiest_bytes) {
      busiest = p;
      busiest_bytes = *bytes;
    }
  }
  if (on_lossless * 2 >= *rdma) return std::nullopt;
  // RoCE's bytes are some of the priorities' bytes: when the priorities carried less than half of
  // them in all, the two readings cover different spans and tell nothing.
  if (all * 2 < *rdma) return std::nullopt;
  const std::string wanted = "priority " + lossless_names;
  const std::string found = busiest >= 0 ? "priority " + std::to_string(busiest) : "elsewhere";
  return finding::make(kRoceOnLossyPriority, netdev,
                       "RDMA sent " + gigabytes(*rdma) + " while the lossless " + wanted +
                           " carried " + gigabytes(on_lossless) +
                           (busiest >= 0 ? " and priority " + std::to_string(busiest) +
                                               ", without PFC, " + gigabytes(busiest_bytes)
                                         : std::string()),
                       wanted, found);
}

}  // namespace roced::health
