#include "daemon/storms/port_poller.hpp"

namespace roced::storms {

namespace {
using SteadyClock = std::chrono::steady_clock;
}  // namespace

PortPoller::PortPoller(System& system, std::string netdev)
    : system_(system), reader_(system, std::move(netdev)) {}

Result<void> PortPoller::read_names() {
  auto names = reader_.names();
  if (!names) return names.error();
  index_ = watchdog::PauseCounterIndex(*names);
  names_stale_ = false;
  names_at_ = SteadyClock::now();
  return ok();
}

watchdog::PauseCounters PortPoller::counters(std::span<const uint64_t> values,
                                             SteadyClock::time_point issued,
                                             SteadyClock::time_point answered) const {
  watchdog::PauseCounters out;
  out.netdev = reader_.ifname();
  out.read_time = answered - issued;
  out.at = issued + out.read_time / 2;
  index_.fill(values, out);
  return out;
}

Result<EthtoolCall> PortPoller::prepare() {
  if (names_stale_ || SteadyClock::now() - names_at_ >= kNamesRefresh) {
    if (auto names = read_names(); !names) return names.error();
  }
  return reader_.values_call();
}

Result<watchdog::PauseCounters> PortPoller::finish(const EthtoolCall& call) {
  auto values = reader_.values_answered(call);
  if (!values) return values.error();
  if (values->size() == index_.size()) return counters(*values, call.issued, call.answered);
  // The count differs from the names': PFC changed since they were read. Read both again.
  if (auto names = read_names(); !names) return names.error();
  const auto issued = SteadyClock::now();
  values = reader_.values();
  const auto answered = SteadyClock::now();
  if (!values) return values.error();
  if (values->size() != index_.size()) {
    names_stale_ = true;
    return Error{EAGAIN, reader_.ifname() + ": the statistics changed twice while read"};
  }
  return counters(*values, issued, answered);
}

Result<watchdog::PauseCounters> PortPoller::read() {
  auto call = prepare();
  if (!call) return call.error();
  system_.ethtool->call_batch(std::span<EthtoolCall>(&*call, 1));
  return finish(*call);
}

}  // namespace roced::storms
