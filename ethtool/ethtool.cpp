// SPDX-License-Identifier: Apache-2.0
#include "ethtool/ethtool.hpp"

#include <linux/ethtool.h>

#include <cstring>

namespace roced {

namespace {

// A buffer for one ethtool command struct followed by `extra` bytes of its flexible array.
// Kept as u64 so the struct and its u64 data are naturally aligned.
class CommandBuffer {
 public:
  CommandBuffer(size_t header, size_t extra) : words_((header + extra + 7) / 8, 0) {}
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(words_.data());
  }
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(words_.data()); }
  std::span<uint8_t> span() { return {bytes(), words_.size() * 8}; }

 private:
  std::vector<uint64_t> words_;
};

// More statistics than any driver has (mlx5 with every channel has some 20000): a count above it is
// a broken reply, and buffers sized by it would exhaust memory.
constexpr uint32_t kMaxStatistics = 1u << 20;

// A reply longer than the buffer sized for the count just read: the driver's count grew in between
// (channels, PFC), and copy_to_user stopped at the guard page.
Error grew_while_read(const std::string& ifname) {
  return Error{EAGAIN, ifname + ": statistics changed while read"};
}

Result<uint32_t> stats_count(EthtoolIoctl& ioctl, const std::string& ifname) {
  CommandBuffer buffer(sizeof(ethtool_sset_info), sizeof(uint32_t));
  auto* info = buffer.as<ethtool_sset_info>();
  info->cmd = ETHTOOL_GSSET_INFO;
  info->sset_mask = 1ull << ETH_SS_STATS;
  if (auto called = ioctl.call(ifname, buffer.span(), sizeof(ethtool_sset_info)); !called) {
    return called.error();
  }
  if ((info->sset_mask & (1ull << ETH_SS_STATS)) == 0) {
    return Error{EOPNOTSUPP, ifname + ": the driver has no ethtool statistics"};
  }
  uint32_t count = 0;
  std::memcpy(&count, buffer.bytes() + sizeof(ethtool_sset_info), sizeof(count));
  if (count > kMaxStatistics) {
    return Error{EBADMSG, ifname + ": the driver reports " + std::to_string(count) +
                              " statistics, more than any driver has"};
  }
  return count;
}

Result<std::vector<std::string>> stats_names(EthtoolIoctl& ioctl, const std::string& ifname,
                                             uint32_t count) {
  GuardedBuffer buffer;
  auto room = buffer.reserve(sizeof(ethtool_gstrings) + size_t{count} * ETH_GSTRING_LEN);
  if (!room) return room.error();
  auto* strings = reinterpret_cast<ethtool_gstrings*>(room->data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = count;
  if (auto called = ioctl.call(ifname, *room, sizeof(ethtool_gstrings)); !called) {
    if (called.error().code == EFAULT) return grew_while_read(ifname);
    return called.error();
  }
  if (strings->len != count) return grew_while_read(ifname);
  std::vector<std::string> names;
  names.reserve(count);
  const auto* data = reinterpret_cast<const char*>(room->data() + sizeof(ethtool_gstrings));
  for (uint32_t i = 0; i < count; ++i) {
    const char* name = data + size_t{i} * ETH_GSTRING_LEN;
    names.emplace_back(name, strnlen(name, ETH_GSTRING_LEN));
  }
  return names;
}

// The GSTATS call for `count` values, in `buffer`: the ethtool_stats header, then the values.
Result<EthtoolCall> stats_values_call(GuardedBuffer& buffer, const std::string& ifname,
                                      uint32_t count) {
  static_assert(sizeof(ethtool_stats) % sizeof(uint64_t) == 0);
  auto room = buffer.reserve(sizeof(ethtool_stats) + size_t{count} * sizeof(uint64_t));
  if (!room) return room.error();
  auto* stats = reinterpret_cast<ethtool_stats*>(room->data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = count;
  EthtoolCall call;
  call.ifname = ifname;
  call.buffer = *room;
  call.in_len = sizeof(ethtool_stats);
  return call;
}

// The values a GSTATS call brought back, inside its buffer.
Result<std::span<const uint64_t>> stats_values_answered(const EthtoolCall& call) {
  if (!call.result) {
    if (call.result.error().code == EFAULT) return grew_while_read(std::string(call.ifname));
    return call.result.error();
  }
  const size_t count = reinterpret_cast<const ethtool_stats*>(call.buffer.data())->n_stats;
  const size_t room = (call.buffer.size() - sizeof(ethtool_stats)) / sizeof(uint64_t);
  if (count > room) return grew_while_read(std::string(call.ifname));
  // The room is the count asked for: a kernel that checks it (net/ethtool/ioctl.c
  // ethtool_get_stats, mainline 7b07be1ff1cb) answers a count that changed with none.
  if (count == 0 && room > 0) return grew_while_read(std::string(call.ifname));
  return std::span<const uint64_t>(
      reinterpret_cast<const uint64_t*>(call.buffer.data() + sizeof(ethtool_stats)), count);
}

Result<std::vector<NamedCounter>> read_stats_once(EthtoolIoctl& ioctl, const std::string& ifname) {
  auto count = stats_count(ioctl, ifname);
  if (!count) return count.error();
  auto names = stats_names(ioctl, ifname, *count);
  if (!names) return names.error();
  GuardedBuffer buffer;
  auto call = stats_values_call(buffer, ifname, *count);
  if (!call) return call.error();
  call->result = ioctl.call(ifname, call->buffer, call->in_len);
  auto values = stats_values_answered(*call);
  if (!values) return values.error();
  if (values->size() != names->size()) return grew_while_read(ifname);
  std::vector<NamedCounter> counters;
  counters.reserve(*count);
  for (uint32_t i = 0; i < *count; ++i) counters.push_back({(*names)[i], (*values)[i]});
  return counters;
}

constexpr size_t kTunableHeader = sizeof(ethtool_tunable);

}  // namespace

StatsReader::StatsReader(System& system, std::string ifname)
    : system_(system), ifname_(std::move(ifname)) {}

Result<std::vector<std::string>> StatsReader::names() {
  auto count = stats_count(*system_.ethtool, ifname_);
  if (!count) return count.error();
  auto names = stats_names(*system_.ethtool, ifname_, *count);
  if (names) count_ = static_cast<uint32_t>(names->size());
  return names;
}

Result<EthtoolCall> StatsReader::values_call() {
  // The count last answered, while it holds: a GSTATS of another count than the driver's now is
  // caught either way (none answered, EFAULT at the guard page, or fewer values), and a
  // GSSET_INFO before every read was a system call a port and round for nothing.
  if (!count_) {
    auto count = stats_count(*system_.ethtool, ifname_);
    if (!count) return count.error();
    count_ = *count;
  }
  return stats_values_call(buffer_, ifname_, *count_);
}

Result<std::span<const uint64_t>> StatsReader::values_answered(EthtoolCall& call) {
  auto values = stats_values_answered(call);
  if (values) count_ = static_cast<uint32_t>(values->size());
  if (values || values.error().code != EAGAIN) return values;
  // The count changed since it was last read: count again and read once more. The call
  // becomes the second read, so its buffer and times are those of the values returned.
  count_.reset();
  auto again = values_call();
  if (!again) return again.error();
  call = *again;
  system_.ethtool->call_batch(std::span(&call, 1));
  return stats_values_answered(call);
}

Result<std::span<const uint64_t>> StatsReader::values() {
  auto call = values_call();
  if (!call) return call.error();
  call->result = system_.ethtool->call(ifname_, call->buffer, call->in_len);
  return values_answered(*call);
}

Result<DriverInfo> EthtoolClient::driver_info(const std::string& ifname) {
  CommandBuffer buffer(sizeof(ethtool_drvinfo), 0);
  auto* info = buffer.as<ethtool_drvinfo>();
  info->cmd = ETHTOOL_GDRVINFO;
  if (auto called = system_.ethtool->call(ifname, buffer.span(), sizeof(ethtool_drvinfo));
      !called) {
    return called.error();
  }
  auto field = [](const char* text, size_t size) { return std::string(text, strnlen(text, size)); };
  return DriverInfo{field(info->driver, sizeof(info->driver)),
                    field(info->version, sizeof(info->version)),
                    field(info->fw_version, sizeof(info->fw_version)),
                    field(info->bus_info, sizeof(info->bus_info))};
}

Result<std::vector<NamedCounter>> EthtoolClient::stats(const std::string& ifname) {
  // The string set changes when PFC changes (en_stats.c: mlx5e_grp_per_prio_pfc_fill_strings):
  // one retry covers a change that landed between our three calls.
  auto counters = read_stats_once(*system_.ethtool, ifname);
  if (!counters && counters.error().code == EAGAIN)
    counters = read_stats_once(*system_.ethtool, ifname);
  return counters;
}

Result<uint16_t> EthtoolClient::pfc_prevention_timeout(const std::string& ifname) {
  CommandBuffer buffer(kTunableHeader, sizeof(uint16_t));
  auto* tunable = buffer.as<ethtool_tunable>();
  tunable->cmd = ETHTOOL_GTUNABLE;
  tunable->id = ETHTOOL_PFC_PREVENTION_TOUT;
  tunable->type_id = ETHTOOL_TUNABLE_U16;
  tunable->len = sizeof(uint16_t);
  if (auto called = system_.ethtool->call(ifname, buffer.span(), kTunableHeader); !called) {
    return called.error();
  }
  uint16_t value = 0;
  std::memcpy(&value, buffer.bytes() + kTunableHeader, sizeof(value));
  return value;
}

Result<void> EthtoolClient::set_pfc_prevention_timeout(const std::string& ifname, uint16_t value) {
  CommandBuffer buffer(kTunableHeader, sizeof(uint16_t));
  auto* tunable = buffer.as<ethtool_tunable>();
  tunable->cmd = ETHTOOL_STUNABLE;
  tunable->id = ETHTOOL_PFC_PREVENTION_TOUT;
  tunable->type_id = ETHTOOL_TUNABLE_U16;
  tunable->len = sizeof(uint16_t);
  std::memcpy(buffer.bytes() + kTunableHeader, &value, sizeof(value));
  return system_.ethtool->call(ifname, buffer.span(), kTunableHeader + sizeof(uint16_t));
}

}  // namespace roced
