// SPDX-License-Identifier: Apache-2.0
#include "daemon/health/health_module.hpp"

#include <cerrno>

#include "daemon/log/log.hpp"
#include "telemetry/finding_family.hpp"

namespace roced::health {

namespace {

using telemetry::FamilySpec;
using telemetry::LabelSet;
using telemetry::MetricType;

constexpr FamilySpec kPcieSpeed{
    "roce_pcie_link_speed_transfers_per_second", MetricType::gauge,
    "The NIC's PCIe link rate per lane as trained now (sysfs current_link_speed)."};
constexpr FamilySpec kPcieMaxSpeed{
    "roce_pcie_link_max_speed_transfers_per_second", MetricType::gauge,
    "The most the NIC's PCIe endpoint takes per lane (sysfs max_link_speed)."};
constexpr FamilySpec kPcieWidth{"roce_pcie_link_width", MetricType::gauge,
                                "The NIC's PCIe lanes as trained now (sysfs current_link_width)."};
constexpr FamilySpec kPcieMaxWidth{
    "roce_pcie_link_max_width", MetricType::gauge,
    "The most lanes the NIC's PCIe endpoint takes (sysfs max_link_width)."};

std::vector<PciPort> managed_uplinks(const reconcile::Reconciler& reconciler) {
  std::vector<PciPort> out;
  for (const auto& snapshot : reconciler.snapshot()) {
    if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
    if (snapshot.port.role != PortRole::Uplink || snapshot.port.pci.empty()) continue;
    out.push_back({snapshot.port.netdev, snapshot.port.pci});
  }
  return out;
}

template <typename Parse>
std::optional<uint32_t> read_attribute(const FileTree& files, const std::string& pci,
                                       const char* name, Parse parse, std::string& unread,
                                       int& missing) {
  const auto text = files.read("/sys/bus/pci/devices/" + pci + "/" + name);
  if (!text) {
    if (text.error().code == ENOENT) ++missing;
    if (unread.empty()) unread = std::string(name) + ": " + text.error().message;
    return std::nullopt;
  }
  auto value = parse(*text);
  if (!value && unread.empty()) {
    std::string shown = *text;
    if (!shown.empty() && shown.back() == '\n') shown.pop_back();
    unread = std::string(name) + " reads \"" + shown + "\"";
  }
  return value;
}

}  // namespace

PcieLink read_pcie_link(const FileTree& files, const std::string& pci) {
  PcieLink link;
  int missing = 0;
  link.speed_tenths_gts =
      read_attribute(files, pci, "current_link_speed", parse_speed, link.unread, missing);
  link.width = read_attribute(files, pci, "current_link_width", parse_width, link.unread, missing);
  link.max_speed_tenths_gts =
      read_attribute(files, pci, "max_link_speed", parse_speed, link.unread, missing);
  link.max_width = read_attribute(files, pci, "max_link_width", parse_width, link.unread, missing);
  link.pcie = missing < 4;
  return link;
}

HealthModule::HealthModule(System& system, reconcile::Reconciler& reconciler, TimeSource& time)
    : HealthModule(
          system, [&reconciler] { return managed_uplinks(reconciler); }, time) {}

HealthModule::HealthModule(System& system, PortList ports, TimeSource& time)
    : system_(system), ports_(std::move(ports)), time_(time) {}

void HealthModule::start() {
  task_ = std::make_unique<PeriodicTask>(time_, kInterval, [this] { check(); });
}

void HealthModule::check() {
  std::vector<PortHealth> now;
  for (PciPort& port : ports_()) {
    PortHealth health{std::move(port), {}, {}};
    health.pcie = read_pcie_link(*system_.files, health.port.pci);
    health.finding = judge(health.port.netdev, health.pcie);
    now.push_back(std::move(health));
  }
  std::lock_guard lock(mutex_);
  // Said once when it appears or changes, and once when it clears.
  for (const PortHealth& port : now) {
    const PortHealth* before = nullptr;
    for (const PortHealth& old : health_) {
      if (old.port.netdev == port.port.netdev) before = &old;
    }
    const auto* was = before != nullptr && before->finding ? &*before->finding : nullptr;
    if (port.finding && (was == nullptr || *was != *port.finding)) {
      log::port(spdlog::level::warn, port.port.netdev, "health", "{}",
                finding::line(*port.finding));
    } else if (!port.finding && was != nullptr) {
      log::port(spdlog::level::info, port.port.netdev, "health", "PCIe link at {} again, as built",
                describe(port.pcie.speed_tenths_gts, port.pcie.width));
    }
  }
  health_ = std::move(now);
}

std::vector<finding::Finding> HealthModule::findings() const {
  std::lock_guard lock(mutex_);
  std::vector<finding::Finding> all;
  for (const PortHealth& port : health_) {
    if (port.finding) all.push_back(*port.finding);
  }
  return all;
}

void HealthModule::collect(telemetry::ExpositionWriter& out) {
  std::lock_guard lock(mutex_);
  for (const PortHealth& port : health_) {
    const LabelSet labels = {{"netdev", port.port.netdev}, {"pci", port.port.pci}};
    const auto transfers = [](uint32_t tenths) { return static_cast<double>(tenths) * 1e8; };
    if (port.pcie.speed_tenths_gts) {
      out.add(kPcieSpeed, labels, transfers(*port.pcie.speed_tenths_gts));
    }
    if (port.pcie.max_speed_tenths_gts) {
      out.add(kPcieMaxSpeed, labels, transfers(*port.pcie.max_speed_tenths_gts));
    }
    if (port.pcie.width) out.add(kPcieWidth, labels, *port.pcie.width);
    if (port.pcie.max_width) out.add(kPcieMaxWidth, labels, *port.pcie.max_width);
    if (port.finding) telemetry::add_findings(out, port.port.netdev, {*port.finding});
  }
}

}  // namespace roced::health
