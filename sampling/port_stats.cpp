// SPDX-License-Identifier: Apache-2.0
#include "sampling/port_stats.hpp"

#include <cerrno>

namespace roced::sampling {

PortStats::PortStats(System& system, std::string netdev, TimeSource& time)
    : system_(system), time_(time), reader_(system, std::move(netdev)) {}

Result<void> PortStats::read_names() {
  auto names = reader_.names();
  if (!names) return names.error();
  if (names_ && *names != *names_) names_changed_ = true;
  names_ = std::make_shared<const std::vector<std::string>>(std::move(*names));
  names_stale_ = false;
  names_at_ = time_.now();
  return ok();
}

StatsReading PortStats::reading(std::span<const uint64_t> values, TimeSource::TimePoint issued,
                                TimeSource::TimePoint answered) const {
  return StatsReading{names_, {values.begin(), values.end()}, issued, answered};
}

Result<EthtoolCall> PortStats::prepare() {
  if (names_stale_ || !names_ || time_.now() - names_at_ >= kNamesRefresh) {
    if (auto names = read_names(); !names) return names.error();
  }
  return reader_.values_call();
}

Result<StatsReading> PortStats::finish(EthtoolCall& call) {
  auto values = reader_.values_answered(call);
  if (!values) return values.error();
  if (values->size() == names_->size()) return reading(*values, call.issued, call.answered);
  // The count differs from the names': PFC changed since they were read. Read both again.
  if (auto names = read_names(); !names) return names.error();
  const auto issued = time_.now();
  values = reader_.values();
  const auto answered = time_.now();
  if (!values) return values.error();
  if (values->size() != names_->size()) {
    names_stale_ = true;
    return Error{EAGAIN, netdev() + ": the statistics changed twice while read"};
  }
  return reading(*values, issued, answered);
}

Result<StatsReading> PortStats::read() {
  auto call = prepare();
  if (!call) return call.error();
  system_.ethtool->call_batch(std::span<EthtoolCall>(&*call, 1));
  return finish(*call);
}

}  // namespace roced::sampling
