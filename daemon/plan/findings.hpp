// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the planner finds that no setting change fixes: the RoCE v2 GID jobs use, and a RoCE
// LAG whose slaves the configuration treats differently.

#include <span>
#include <vector>

#include "finding/finding.hpp"
#include "port/discovery.hpp"

namespace roced::plan {

struct PortPlan;

inline constexpr finding::Kind kGidTableUnreadable{
    "gid_table_unreadable", finding::Severity::Warning, "plan",
    "The port's GID table could not be read, so roced cannot tell which RoCE v2 GID index "
    "jobs get.",
    "Check that the RDMA device is present (rdma link) and readable "
    "(/sys/class/infiniband/<dev>/ports/<n>/gids); the text has the kernel's error."};
inline constexpr finding::Kind kNoRocev2Gid{
    "no_rocev2_gid", finding::Severity::Warning, "plan",
    "The port has no RoCE v2 GID with an address of the configured family: RoCE v2 jobs "
    "cannot use it.",
    "Give the netdev an address of roce.gid_family; when the text says the table is full, "
    "pods' netdevs in other namespaces hold the entries (fewer addresses or VFs per port)."};
inline constexpr finding::Kind kGidIndexMoved{
    "rocev2_gid_index_moved", finding::Severity::Critical, "plan",
    "The RoCE v2 GID index of the configured family is not the one the configuration says "
    "jobs use (roce.gid_index): NCCL_IB_GID_INDEX points at another GID.",
    "Find what added or removed an address on the port (an IPv6 address, a pod's netdev); "
    "rocectl nccl-env prints the index to use now; restart jobs with it or put the addresses "
    "back."};
inline constexpr finding::Kind kLagSlavesDiffer{
    "roce_lag_slaves_differ", finding::Severity::Warning, "plan",
    "The configuration gives a RoCE LAG's slaves different lossless settings: flows hashed to "
    "one slave are not treated as on the other.",
    "Give the slaves the same profile (an override on one slave only is the usual cause)."};

inline constexpr finding::Kind kLagSlaveUnmanaged{
    "roce_lag_slave_unmanaged", finding::Severity::Critical, "plan",
    "A RoCE LAG's bond is managed but one of its slaves is not (excluded, or not named): roced "
    "sets DCB on the managed slaves only, so flows hashed to the other run without PFC (lossy), "
    "and the bond's MTU, which the bonding driver gives every slave, changes that one too.",
    "Manage both slaves or neither: name them in ports.netdevs (or drop the exclude), or exclude "
    "the bond as well."};

// A roce_lag_slave_unmanaged finding for each RoCE LAG bond among `managed` (the ports roced
// manages) whose slaves are not all among them, on the bond.
std::vector<finding::Finding> unmanaged_slave_findings(const std::vector<DiscoveredPort>& managed);

// The plan's own findings, then one for each setting the port cannot take: everything the
// planner says is not as wanted, for the status, the log and the metrics.
std::vector<finding::Finding> findings_of(const PortPlan& plan);

// Every kind the planner makes, for the catalogue.
std::span<const finding::Kind* const> kinds();

}  // namespace roced::plan
