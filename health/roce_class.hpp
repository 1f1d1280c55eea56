// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether the port's RoCE traffic travels on its lossless priority. The most common silent RoCE
// failure: a job's traffic class maps it to DSCP 0, it lands on a priority without PFC, and every
// drop counter reads zero until congestion drops it. Told from what the port sent between two
// readings: the RDMA device's bytes (mlx5's vport counters count RoCE only) against each
// priority's bytes (which count all traffic, so other traffic on the lossless priority never
// hides RoCE elsewhere; RoCE on it always shows).
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "finding/finding.hpp"

namespace roced::health {

struct ClassSample {
  std::optional<uint64_t> rdma_tx_bytes;  // ports/<n>/counters/port_xmit_data, 4-octet words, * 4
  std::array<std::optional<uint64_t>, 8> priority_tx_bytes;  // ethtool -S tx_prio<p>_bytes
};

// The priorities' bytes from an `ethtool -S` reading (mlx5's per_prio_traffic group,
// en_stats.c pport_per_prio_traffic_stats_desc) and the RDMA device's data counter in words.
ClassSample class_sample(std::span<const std::string> names, std::span<const uint64_t> values,
                         std::optional<uint64_t> port_xmit_data_words);

// Less than this much RDMA traffic between two samples (0.8 Gbit/s over 10 s) is no evidence
// either way: the health module keeps its sample until this much went out since it. A port that
// only receives sends ACKs on the data's priority and CNPs on their own (DSCP 48, priority 6 by
// default, without PFC); under heavy congestion the CNPs could outweigh the ACKs, but never reach
// this.
inline constexpr uint64_t kRoceClassMinBytes = 1'000'000'000;

// More RDMA bytes sent than the lossless priorities (`lossless`: bit p for priority p) carried
// twice over: RoCE travels elsewhere, named by the priority that carried the most. Empty when it
// does not, when too little was sent, or when a counter is missing from either reading.
std::optional<finding::Finding> judge_roce_class(const std::string& netdev, uint8_t lossless,
                                                 const ClassSample& before,
                                                 const ClassSample& after);

inline constexpr finding::Kind kRoceOnLossyPriority{
    "roce_on_lossy_priority", finding::Severity::Critical, "health",
    "The port's RoCE traffic is sent on a priority without PFC while its lossless priority stays "
    "quiet: under congestion it is dropped, not paused, and a job slows or hangs while every drop "
    "counter reads zero.",
    "Find the job's traffic class: NCCL_IB_TC (or the rdma_cm ToS, `rocectl nccl-env`) must "
    "give a DSCP that profile.dscp_map maps to a priority in profile.pfc.priorities. "
    "`ethtool -S <netdev>` (its tx_prio<p>_bytes) shows where the bytes go."};

}  // namespace roced::health
