// SPDX-License-Identifier: Apache-2.0
#pragma once
// The read-only checks: what roced assumes of an mlx5 port, judged from one Observation. The
// conformance cases (test/conformance) run the same checks against roce-sim and the test kernel
// module, so a check that the simulator fails is the simulator's bug or the check's.
#include <optional>
#include <string>
#include <vector>

#include "qualify/observe.hpp"
#include "qualify/report.hpp"

namespace roced::qualify {

std::vector<Check> read_checks(const Observation& seen);

// The check `id` of read_checks(seen); nullopt when there is no such check.
std::optional<Check> read_check(const Observation& seen, const std::string& id);

// What the observation says about the port, in the terms of a roce-sim node description.
PortFacts facts_of(const Observation& seen);

// "inbox" when the version ETHTOOL_GDRVINFO gives is the kernel's release (ethtool_get_drvinfo
// fills it in for drivers that leave it empty, as mainline mlx5 does), "ofed" when it is NVIDIA's
// own ("24.10-1.1.4") or the ecn/ sysfs tree exists, "" when neither is clear.
std::string driver_flavour(const Observation& seen);

// "ConnectX-7" for hca_type "MT4129" (mlx5_ib main.c hca_type_show prints the PCI device ID);
// "" for an ID not in the table.
std::string model_of_hca_type(const std::string& hca_type);

}  // namespace roced::qualify
