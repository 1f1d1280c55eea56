// SPDX-License-Identifier: Apache-2.0
#include "health/kinds.hpp"

#include "health/firmware.hpp"
#include "health/pcie_errors.hpp"
#include "health/pcie_link.hpp"
#include "health/phy_errors.hpp"
#include "health/roce_class.hpp"
#include "health/transceiver.hpp"

namespace roced::health {

std::span<const finding::Kind* const> kinds() {
  static const finding::Kind* const kAll[] = {
      &kPcieLinkDegraded,       &kPcieSignalIntegrity, &kLinkFlapping,     &kPhySymbolErrorRate,
      &kPhySymbolErrorsPerHour, &kRoceOnLossyPriority, &kTransceiverAlarm, &kTransceiverWarning,
      &kFirmwareFatal,          &kFirmwareErrors};
  return kAll;
}

}  // namespace roced::health
