// SPDX-License-Identifier: Apache-2.0
// The changing checks, one port at a time (the other rails keep carrying traffic while this one
// flaps). Each step writes through write/'s descriptions and journals how to put back what it
// changes (the writes' own undo, in a write::Journal) before it changes it; finish() puts
// everything back in reverse order and compares the port with the snapshot taken first.
#include "qualify/write_run.hpp"

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "dcb/client.hpp"
#include "ethtool/ethtool.hpp"
#include "link/link.hpp"
#include "port/status.hpp"
#include "qualify/check_kinds.hpp"
#include "qualify/report.hpp"
#include "rdma/ecn.hpp"
#include "write/journal.hpp"
#include "write/write.hpp"

namespace roced::qualify {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kCarrierPoll{5};
// How long the carrier must stay up after a request that should not touch the link.
constexpr milliseconds kSteadyLink{300};
constexpr uint8_t kPfcOnPriority3 = 0x08;

int code_of(const Result<void>& result) { return result.ok() ? 0 : result.error().code; }
std::string errno_text(int code) { return code == 0 ? "accepted" : errno_name(code); }

// What the run changes, read before it starts and again at the end.
struct Snapshot {
  uint8_t dcbx = 0;
  dcb::IeeeState dcb;
  uint32_t mtu = 0;
  std::optional<uint16_t> stall;
  // 802.3x pause: every PFC mask change writes PFCC with pptx/pprx 0 (port.c mlx5_set_port_pfc),
  // so the run's PFC steps turn it off and only an explicit restore puts it back.
  std::optional<PauseParams> pause;
};

std::string pause_text(const PauseParams& pause) {
  return std::string("802.3x pause rx ") + (pause.rx ? "on" : "off") + ", tx " +
         (pause.tx ? "on" : "off");
}

bool same_ets(const dcb::Ets& a, const dcb::Ets& b) {
  return a.tc_tsa == b.tc_tsa && a.tc_tx_bw == b.tc_tx_bw && a.prio_tc == b.prio_tc;
}

// What was sent reads back: the kinds, the priorities' TCs and the ETS TCs' shares (a strict TC
// reads the 100 % the firmware gives it: en_dcbnl.c mlx5e_dcbnl_ieee_getets).
bool same_ets_as_sent(const dcb::Ets& read, const dcb::Ets& sent) {
  if (read.tc_tsa != sent.tc_tsa || read.prio_tc != sent.prio_tc) return false;
  for (size_t tc = 0; tc < 8; ++tc) {
    if (sent.tc_tsa[tc] == dcb::Tsa::Ets && read.tc_tx_bw[tc] != sent.tc_tx_bw[tc]) return false;
  }
  return true;
}

std::vector<dcb::AppEntry> sorted(std::vector<dcb::AppEntry> apps) {
  std::sort(apps.begin(), apps.end(), [](const dcb::AppEntry& a, const dcb::AppEntry& b) {
    return std::tie(a.selector, a.protocol, a.priority) <
           std::tie(b.selector, b.protocol, b.priority);
  });
  return apps;
}

// What differs between two snapshots, in words; empty when they agree.
std::vector<std::string> differences(const Snapshot& before, const Snapshot& after) {
  std::vector<std::string> out;
  if (before.dcbx != after.dcbx) {
    out.push_back("DCBX " + hex(before.dcbx) + " is now " + hex(after.dcbx));
  }
  const auto& pfc0 = before.dcb.pfc;
  const auto& pfc1 = after.dcb.pfc;
  if (pfc0 && pfc1 && pfc0->enabled_mask != pfc1->enabled_mask) {
    out.push_back("PFC " + hex(pfc0->enabled_mask) + " is now " + hex(pfc1->enabled_mask));
  }
  if (pfc0 && pfc1 && pfc0->delay != pfc1->delay) {
    out.push_back("cable length " + std::to_string(pfc0->delay) + " is now " +
                  std::to_string(pfc1->delay));
  }
  if (before.dcb.ets && after.dcb.ets && !same_ets(*before.dcb.ets, *after.dcb.ets)) {
    out.push_back("ETS differs");
  }
  if (sorted(before.dcb.apps) != sorted(after.dcb.apps)) {
    out.push_back("APP table " + std::to_string(before.dcb.apps.size()) + " entries is now " +
                  std::to_string(after.dcb.apps.size()));
  }
  if (before.mtu != after.mtu) {
    out.push_back("MTU " + std::to_string(before.mtu) + " is now " + std::to_string(after.mtu));
  }
  if (before.stall != after.stall) out.push_back("stall prevention differs");
  if (before.pause && after.pause &&
      (before.pause->rx != after.pause->rx || before.pause->tx != after.pause->tx)) {
    out.push_back(pause_text(*before.pause) + " is now " + pause_text(*after.pause));
  }
  return out;
}

class WriteRun {
 public:
  WriteRun(System& system, TimeSource& time, const StopSignal& stop, const DiscoveredPort& port,
           const WriteOptions& options)
      : system_(system),
        time_(time),
        stop_(stop),
        port_(port),
        netdev_(port.netdev),
        options_(options),
        dcb_(system),
        target_{system, port} {}

  WriteOutcome run() {
    if (const auto why = take_snapshot(before_)) {
      cannot_tell(kinds::kWriteChecks, "nothing written: " + *why);
      return std::move(outcome_);
    }
    keep_pause();
    const std::vector<void (WriteRun::*)()> steps = {
        &WriteRun::host_mode, &WriteRun::pfc_flaps,  &WriteRun::cable_length,
        &WriteRun::ets,       &WriteRun::dscp_trust, &WriteRun::stall_prevention,
        &WriteRun::mtu,       &WriteRun::notified,   &WriteRun::dcqcn_knob};
    for (auto step : steps) {
      if (stop_.raised()) break;
      (this->*step)();
    }
    finish();
    return std::move(outcome_);
  }

 private:
  // The port as the undos reach it: each write's own kernel call, except that a PFC the port
  // already reads is not sent again, and one that changes the mask (mlx5_toggle_port_link
  // flaps the link) returns once the carrier is back.
  class RestorePort final : public write::SystemPort {
   public:
    explicit RestorePort(WriteRun& run) : SystemPort(run.target_), run_(run) {}
    Result<void> write(const write::Write& request) override {
      const auto* pfc = std::get_if<write::Pfc>(&request);
      if (!pfc) return SystemPort::write(request);
      const auto now = run_.read();
      const bool read = now && now->pfc;
      if (read && now->pfc->enabled_mask == pfc->pfc.enabled_mask &&
          now->pfc->delay == pfc->pfc.delay) {
        return {};
      }
      auto done = SystemPort::write(request);
      if (done.ok() && (!read || now->pfc->enabled_mask != pfc->pfc.enabled_mask)) {
        (void)run_.wait_carrier(true, run_.never_);
      }
      return done;
    }

   private:
    WriteRun& run_;
  };

  // ---- plumbing ----

  // What could not be read, or nothing when the snapshot is whole.
  std::optional<std::string> take_snapshot(Snapshot& snapshot) {
    auto dcbx = dcb_.get_dcbx(netdev_);
    auto state = dcb_.get(netdev_);
    auto link = LinkClient(system_).get(netdev_);
    if (!dcbx.ok() || !state.ok() || !link.ok() || !state->pfc || !state->ets) {
      return !dcbx.ok()    ? dcbx.error().message
             : !state.ok() ? state.error().message
             : !link.ok()  ? link.error().message
                           : "IEEE_GET without PFC or ETS";
    }
    snapshot.dcbx = *dcbx;
    snapshot.dcb = *state;
    snapshot.mtu = link->mtu;
    auto stall = EthtoolClient(system_).pfc_prevention_timeout(netdev_);
    if (stall.ok()) snapshot.stall = *stall;
    auto pause = EthtoolClient(system_).pause(netdev_);
    if (pause.ok()) snapshot.pause = *pause;
    return std::nullopt;
  }

  // Journalled first, so put back last: after the PFC mask it was turned off by is restored.
  // The PFC writes turn it off as a pause write of "off" would, and are undone the same way.
  void keep_pause() {
    if (!before_.pause || (!before_.pause->rx && !before_.pause->tx)) return;
    const PauseParams was = *before_.pause;
    const write::GlobalPause off{PauseParams{was.autoneg, false, false}};
    journal(pause_text(was) + " (a PFC mask change turns it off)", off.undo(was));
  }

  // Before a change: what it is, and how it is put back. Each entry is one touched line.
  void journal(const std::string& what, write::Undo undo) {
    outcome_.touched.push_back({what, false, {}});
    journal_.record(what, std::move(undo));
  }
  // The change journalled last was refused whole: nothing of it to put back.
  void forget_last() {
    outcome_.touched.pop_back();
    journal_.forget_last();
  }

  Result<void> put(const write::Write& request) { return write::perform(request, target_); }

  void say(const std::string& line) { options_.progress(netdev_ + ": " + line); }

  void check(const finding::Kind& kind, bool holds, const std::string& evidence) {
    Check found = finding::make(kind, netdev_, evidence, std::string(kind.meaning), evidence);
    found.verdict = holds ? Verdict::Holds : Verdict::Differs;
    outcome_.checks.push_back(std::move(found));
  }
  void cannot_tell(const finding::Kind& kind, const std::string& why) {
    Check found = finding::cannot_tell(kind, netdev_, why);
    found.wanted = std::string(kind.meaning);
    found.found = why;
    outcome_.checks.push_back(std::move(found));
  }

  std::optional<dcb::IeeeState> read() {
    auto state = dcb_.get(netdev_);
    if (!state.ok()) return std::nullopt;
    return *state;
  }

  bool carrier() {
    auto text = system_.files->read("/sys/class/net/" + netdev_ + "/carrier");
    return text.ok() && text->rfind('1', 0) == 0;
  }

  // Waits for the carrier to become `up`; the time it took, nothing at the bound or on a stop.
  // While waiting for it to come up, notes whether the link's speed could be read meanwhile.
  std::optional<milliseconds> wait_carrier(bool up, const StopSignal& stop) {
    const auto start = time_.now();
    for (;;) {
      if (carrier() == up) {
        return std::chrono::duration_cast<milliseconds>(time_.now() - start);
      }
      if (up && !speed_seen_while_down_) {
        // Counted only when the carrier is still down after the read: a link that trained
        // between the two reads has its speed, and that says nothing of a link still down.
        const auto speed = link_speed(system_, netdev_);
        if (speed && !carrier()) speed_seen_while_down_ = speed;
      }
      if (time_.now() - start > options_.carrier_bound) return std::nullopt;
      if (!stop.pause(time_, kCarrierPoll)) return std::nullopt;
    }
  }

  // True when the carrier stayed up for kSteadyLink.
  bool link_stays_up() {
    const auto until = time_.now() + kSteadyLink;
    while (time_.now() < until) {
      if (!carrier()) return false;
      if (!stop_.pause(time_, kCarrierPoll)) return carrier();
    }
    return carrier();
  }

  dcb::Pfc pfc_with(uint8_t mask, uint16_t delay) const {
    dcb::Pfc pfc = *before_.dcb.pfc;
    pfc.enabled_mask = mask;
    pfc.delay = delay;
    return pfc;
  }

  // ---- the steps ----

  // mlx5e_dcbnl_setdcbx: host mode before anything else, as roced does.
  void host_mode() {
    const uint8_t was = before_.dcbx;
    if (was & dcb::kDcbxHost) return;
    const uint8_t host = dcb::kDcbxHost | dcb::kDcbxVerIeee;
    say("DCBX " + hex(was) + " -> " + hex(host) + " (host mode)");
    const write::DcbxMode to_host{host};
    journal("DCBX " + hex(was) + " -> " + hex(host), to_host.undo(was));
    const auto set = put(to_host);
    auto now = dcb_.get_dcbx(netdev_);
    check(kinds::kDcbxHostMode, set.ok() && now.ok() && (*now & dcb::kDcbxHost),
          "set: " + errno_text(code_of(set)) + ", reads " + (now.ok() ? hex(*now) : "?"));
  }

  // One PFC mask change, timed from the request to carrier down and back up.
  struct Flap {
    bool accepted = false;
    std::optional<milliseconds> down;  // request -> carrier down
    std::optional<milliseconds> up;    // carrier down -> up
  };
  Flap change_mask(uint8_t mask) {
    Flap flap;
    say("PFC -> " + hex(mask) + ": the link flaps and trains again");
    flap.accepted = put(write::Pfc{pfc_with(mask, before_.dcb.pfc->delay)}).ok();
    if (!flap.accepted) return flap;
    flap.down = wait_carrier(false, stop_);
    if (flap.down) flap.up = wait_carrier(true, stop_);
    if (flap.up) {
      const auto ms = static_cast<uint32_t>(flap.up->count());
      outcome_.link_training_ms = std::max(outcome_.link_training_ms.value_or(0), ms);
    }
    return flap;
  }

  void pfc_flaps() {
    if (!carrier()) {
      cannot_tell(kinds::kPfcMaskFlapsLink, "the link is down: no flap to see, PFC not changed");
      return;
    }
    const uint8_t was = before_.dcb.pfc->enabled_mask;
    const uint16_t delay = before_.dcb.pfc->delay;
    journal("PFC " + hex(was) + " (changed to 0x08 and 0x00)",
            write::Pfc{pfc_with(kPfcOnPriority3, delay)}.undo(pfc_with(was, delay)));
    const bool on_first = was != kPfcOnPriority3;
    bool first = true;
    for (uint8_t mask : on_first ? std::vector<uint8_t>{kPfcOnPriority3, 0x00}
                                 : std::vector<uint8_t>{0x00, kPfcOnPriority3}) {
      if (stop_.raised()) return;
      const Flap flap = change_mask(mask);
      if (stop_.raised()) return;  // stopped mid-flap: no finding, just the restore
      if (!flap.accepted || !flap.down || !flap.up) {
        check(kinds::kPfcMaskFlapsLink, false,
              !flap.accepted ? "PFC " + hex(mask) + " refused"
              : !flap.down   ? "the carrier never dropped"
                             : "the carrier did not return within the bound");
        return;
      }
      auto names = StatsReader(system_, netdev_).names();
      if (names.ok()) {
        (mask ? outcome_.statistics_pfc_on : outcome_.statistics_pfc_off) = *names;
      }
      if (first) {
        first = false;
        check(kinds::kPfcMaskFlapsLink, true,
              "carrier down " + std::to_string(flap.down->count()) +
                  " ms after the request, up again " + std::to_string(flap.up->count()) +
                  " ms later");
        speed_while_training();
        resend_keeps_link(mask);
      }
    }
    pause_counters_on_off();
  }

  // The speed the kernel reports while the carrier is down. It is not what calculate_xoff uses
  // (the driver's own PTYS read), so it proves no 40 Gb/s fallback: it only shows none is hidden.
  void speed_while_training() {
    check(kinds::kSpeedUnknownWhileTraining, !speed_seen_while_down_.has_value(),
          speed_seen_while_down_
              ? "speed read while down: " + std::to_string(*speed_seen_while_down_) + " Mb/s"
              : "no speed reported while the carrier was down (calculate_xoff's PTYS read "
                "cannot be seen)");
  }

  // The Xoff recompute roced relies on: the unchanged mask again, with the carrier up.
  void resend_keeps_link(uint8_t mask) {
    if (stop_.raised()) return;
    say("PFC " + hex(mask) + " again (unchanged): Xoff recomputed, no flap expected");
    const auto again = put(write::Pfc{pfc_with(mask, before_.dcb.pfc->delay)});
    const bool steady = link_stays_up();
    check(kinds::kPfcResendKeepsLink, again.ok() && steady,
          std::string("set: ") + errno_text(code_of(again)) +
              (steady ? ", carrier stayed up" : ", the carrier dropped"));
  }

  void pause_counters_on_off() {
    const auto& on = outcome_.statistics_pfc_on;
    const auto& off = outcome_.statistics_pfc_off;
    if (on.empty() || off.empty()) return;
    const auto has = [](const std::vector<std::string>& names, const std::string& name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    const bool holds = has(on, "rx_prio3_pause") && has(on, "tx_prio3_pause") &&
                       !has(on, "rx_prio4_pause") && !has(off, "rx_prio3_pause");
    check(kinds::kPauseCountersWithPfcOnAndOff, holds,
          std::to_string(on.size()) + " statistics with PFC on 3, " + std::to_string(off.size()) +
              " with PFC off");
  }

  // Mainline and MLNX_OFED keep a cable length of 1-999 m in the driver and ignore any other;
  // nic-kernel hands it to the firmware where the firmware keeps it (PCAM cable_length), else
  // refuses 0 (en/port_buffer.c mlx5e_port_set_cable_len). Which one runs is told from what
  // reads back, never from the set alone: MLNX_OFED too answers 0 to a length of 0.
  void cable_length() {
    if (stop_.raised()) return;
    const uint8_t mask = read().value_or(dcb::IeeeState{}).pfc.value_or(dcb::Pfc{}).enabled_mask;
    const uint16_t was = before_.dcb.pfc->delay;
    const auto set = [&](uint16_t delay) {
      return code_of(put(write::Pfc{pfc_with(mask, delay)}));
    };
    const auto reads = [&] {
      auto state = read();
      return state && state->pfc ? state->pfc->delay : uint16_t{0};
    };
    say("cable length 25 m, then 0 and 1000 (same PFC mask: no flap)");
    journal("cable length " + std::to_string(was) + " m",
            write::Pfc{pfc_with(mask, 25)}.undo(pfc_with(mask, was)));
    const int set25 = set(25);
    const uint16_t read25 = reads();
    const int set0 = set(0);
    const uint16_t read0 = reads();
    const int set1000 = set(1000);
    const uint16_t read1000 = reads();
    const std::string evidence = "25: " + errno_text(set25) + ", reads " + std::to_string(read25) +
                                 "; 0: " + errno_text(set0) + ", reads " + std::to_string(read0) +
                                 "; 1000: " + errno_text(set1000) + ", reads " +
                                 std::to_string(read1000);
    const bool taken = set25 == 0 && read25 == 25;
    const bool kept_in_driver = set0 == 0 && read0 == 25 && set1000 == 0 && read1000 == 25;
    const bool in_firmware = set0 == 0 && read0 == 0;  // only the firmware takes 0 m
    const bool driver_refuses_0 = set0 == EINVAL && read0 == 25;
    if (taken && (kept_in_driver || driver_refuses_0)) outcome_.cable_length_in_firmware = false;
    if (taken && in_firmware) outcome_.cable_length_in_firmware = true;
    check(kinds::kCableLengthRange, taken && (kept_in_driver || in_firmware || driver_refuses_0),
          evidence);
  }

  void ets() {
    if (stop_.raised()) return;
    const dcb::Ets was = *before_.dcb.ets;
    dcb::Ets ets = was;
    ets.tc_tsa.fill(dcb::Tsa::Ets);
    ets.tc_tsa[6] = dcb::Tsa::Strict;
    ets.tc_tx_bw = {15, 10, 10, 40, 10, 5, 0, 10};
    ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
    say("ETS: TC 3 at 40 %, the others 5-15 %, TC 6 strict");
    journal("ETS", write::Ets{ets}.undo(was));
    const auto set = put(write::Ets{ets});
    auto now = read();
    const bool same = now && now->ets && same_ets_as_sent(*now->ets, ets);
    check(kinds::kEtsReadsBack, set.ok() && same,
          "set: " + errno_text(code_of(set)) + (same ? ", reads back" : ", reads otherwise"));
    dcb::Ets refused = ets;
    refused.tc_tx_bw = {50, 50, 50, 0, 0, 0, 0, 0};
    const int code = code_of(put(write::Ets{refused}));
    auto after = read();
    const bool unchanged =
        now && now->ets && after && after->ets && same_ets(*after->ets, *now->ets);
    check(kinds::kEtsSumNot100Refused, code == EINVAL && unchanged,
          "150 %: " + errno_text(code) + (unchanged ? ", ETS unchanged" : ", ETS changed"));
  }

  // Trust has no op of its own on mlx5: the DSCP entries of the APP table are the trust state.
  // DSCP 26 is added and deleted, or, where it is mapped already, deleted and added back.
  void dscp_trust() {
    if (stop_.raised()) return;
    const auto apps = before_.dcb.apps;
    const auto dscp = static_cast<uint8_t>(dcb::AppSelector::Dscp);
    const auto mapped = std::find_if(apps.begin(), apps.end(), [&](const dcb::AppEntry& app) {
      return app.selector == dscp && app.protocol == 26;
    });
    const bool had = mapped != apps.end();
    const dcb::AppEntry entry = had ? *mapped : dcb::AppEntry{dscp, 3, 26};
    say(had ? "DSCP 26 deleted from the APP table, then added back"
            : "DSCP 26 -> priority 3 in the APP table, then deleted");
    std::vector<dcb::AppEntry> dscp_apps;
    std::copy_if(apps.begin(), apps.end(), std::back_inserter(dscp_apps),
                 [&](const dcb::AppEntry& app) { return app.selector == dscp; });
    journal("APP table (" + std::to_string(apps.size()) + " entries)",
            write::AppAdd{{entry}}.undo(dscp_apps));
    const auto listed = [&] {
      auto now = read();
      return now && std::find(now->apps.begin(), now->apps.end(), entry) != now->apps.end();
    };
    const auto trust = [&] {
      auto now = read();
      return now ? dcb::trust_from_apps(now->apps) : dcb::Trust::Pcp;
    };
    const dcb::AppEntry wrong{dscp, static_cast<uint8_t>((entry.priority + 1) % 8), 26};
    std::string evidence;
    bool holds = true;
    if (!had) {
      const int added = code_of(put(write::AppAdd{{entry}}));
      const bool in = listed();
      const bool dscp_trust = trust() == dcb::Trust::Dscp;
      holds = added == 0 && in && dscp_trust;
      evidence = "add: " + errno_text(added) + (in ? ", listed" : ", not listed") +
                 (dscp_trust ? ", trust dscp" : ", trust pcp") + "; ";
    }
    const int wrong_delete = code_of(put(write::AppDelete{{wrong}}));
    const int deleted = code_of(put(write::AppDelete{{entry}}));
    const bool gone = !listed();
    holds = holds && wrong_delete == ENOENT && deleted == 0 && gone;
    evidence += "delete naming priority " + std::to_string(wrong.priority) + ": " +
                errno_text(wrong_delete) + "; delete: " + errno_text(deleted) +
                (gone ? ", gone" : ", still listed");
    if (had) {
      const int added = code_of(put(write::AppAdd{{entry}}));
      holds = holds && added == 0 && listed();
      evidence += "; added back: " + errno_text(added);
    } else {
      const bool back = trust() == dcb::trust_from_apps(apps);
      holds = holds && back;
      evidence += back ? ", trust as before" : ", trust not as before";
    }
    check(kinds::kDscpTrustFromAppTable, holds, evidence);
    // Not a DSCP entry, so not the table's DSCP undo above: an entry of its own, dropped when
    // the add is refused as expected (mlx5e_dcbnl_ieee_setapp takes DSCP entries only).
    const dcb::AppEntry ethertype{1, 3, 0x8915};
    journal("APP EtherType 0x8915", write::Undo{{write::AppDelete{{ethertype}}}, std::nullopt, {}});
    const int other = code_of(put(write::AppAdd{{ethertype}}));
    if (other != 0) forget_last();
    check(kinds::kAppSelectorsDscpOnly, other == EINVAL, "EtherType 0x8915: " + errno_text(other));
  }

  void stall_prevention() {
    if (stop_.raised() || !before_.stall) return;
    EthtoolClient ethtool(system_);
    const uint16_t was = *before_.stall;
    say("stall prevention: 79 and 8001 ms (refused), auto, 0, 500 ms");
    const auto set = [&](uint16_t raw) { return code_of(put(write::StallPrevention{raw})); };
    journal("stall prevention " + std::to_string(was) + " ms",
            write::StallPrevention{79}.undo(was));
    const int low = set(79);
    const int high = set(8001);
    (void)set(0xffff);
    const auto automatic = ethtool.pfc_prevention_timeout(netdev_).value_or(0);
    (void)set(0);
    const auto off = ethtool.pfc_prevention_timeout(netdev_).value_or(1);
    (void)set(500);
    const auto five = ethtool.pfc_prevention_timeout(netdev_).value_or(0);
    check(kinds::kStallPreventionTakesRange,
          low == EINVAL && high == EINVAL && automatic == 100 && off == 0 && five == 500,
          "79: " + errno_text(low) + ", 8001: " + errno_text(high) + ", auto reads " +
              std::to_string(automatic) + ", 0 reads " + std::to_string(off) + ", 500 reads " +
              std::to_string(five));
  }

  void mtu() {
    if (stop_.raised()) return;
    auto link = LinkClient(system_).get(netdev_);
    if (!link.ok()) return;
    const uint32_t was = before_.mtu;
    const uint32_t target = was == 9000 || link->max_mtu < 9000 ? 4200 : 9000;
    say("MTU " + std::to_string(was) + " -> " + std::to_string(target));
    journal("MTU " + std::to_string(was), write::Mtu{target}.undo(was));
    const int set = code_of(put(write::Mtu{target}));
    auto now = LinkClient(system_).get(netdev_);
    const bool reads = now.ok() && now->mtu == target;
    check(kinds::kMtuReadsBack, set == 0 && reads,
          "MTU " + std::to_string(target) + ": " + errno_text(set));
  }

  // dcbnl_ieee_set multicasts every IEEE_SET on RTNLGRP_DCB: what lets roced see another tool.
  void notified() {
    if (stop_.raised()) return;
    auto socket = system_.open_rtnl();
    if (!socket.ok() || !(*socket)->join_group(RTNLGRP_DCB).ok()) {
      cannot_tell(kinds::kForeignDcbChangeNotified, "cannot join RTNLGRP_DCB");
      return;
    }
    // rocectl spawns no program (test/security/no_shell_test.py), so the other tool is roced's
    // own DCB client on a second socket: dcbnl notifies every IEEE_SET whoever sends it.
    say("ETS set again (unchanged) from another netlink socket, as dcb(8) would");
    auto now = read();
    if (!now || !now->ets) return;
    const int set = code_of(put(write::Ets{*now->ets}));
    bool seen = false;
    for (int reads = 0; reads < 10 && !seen; ++reads) {
      auto datagram = (*socket)->receive(milliseconds(200));
      if (!datagram.ok() || datagram->empty()) break;
      size_t offset = 0;
      while (offset + sizeof(nlmsghdr) <= datagram->size()) {
        nlmsghdr header;
        std::memcpy(&header, datagram->data() + offset, sizeof header);
        if (header.nlmsg_len < sizeof header || offset + header.nlmsg_len > datagram->size()) {
          break;
        }
        if (header.nlmsg_type == RTM_SETDCB && header.nlmsg_len >= NLMSG_LENGTH(sizeof(dcbmsg))) {
          dcbmsg message;
          std::memcpy(&message, datagram->data() + offset + NLMSG_HDRLEN, sizeof message);
          seen = seen || message.cmd == DCB_CMD_IEEE_SET;
        }
        offset += NLMSG_ALIGN(header.nlmsg_len);
      }
    }
    check(kinds::kForeignDcbChangeNotified, set == 0 && seen,
          std::string("ETS from another socket: ") + errno_text(set) +
              (seen ? ", notified" : ", no notification"));
  }

  // cong.c mlx5_ib_set_cc_param_mask_val: MLX5_SET keeps the field's low bits.
  void dcqcn_knob() {
    if (stop_.raised()) return;
    FileTree& files = *system_.files;
    const std::string knob =
        "/sys/kernel/debug/mlx5/" + port_.knob_function() + "/cc_params/np_cnp_dscp";
    auto was = files.read(knob);
    if (!was.ok()) {
      cannot_tell(kinds::kDcqcnKnobLowBits,
                  "no inbox np_cnp_dscp to write: " + was.error().message);
      return;
    }
    const std::string value = was->substr(0, was->find('\n'));
    say("np_cnp_dscp 70 (a 6-bit field)");
    const write::EcnKnob seventy{rdma::EcnFlavour::Inbox, "np_cnp_dscp", 70};
    uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    journal("np_cnp_dscp " + value, error == std::errc() && end == value.data() + value.size()
                                        ? seventy.undo(number)
                                        : write::Undo::refused("np_cnp_dscp read as \"" + value +
                                                               "\": no number to put back"));
    const int set = code_of(put(seventy));
    auto now = files.read(knob);
    const std::string reads = now.ok() ? now->substr(0, now->find('\n')) : "?";
    check(kinds::kDcqcnKnobLowBits, set == 0 && reads == "6",
          "70: " + errno_text(set) + ", reads " + reads);
  }

  // ---- the end ----

  void finish() {
    if (stop_.raised()) {
      outcome_.interrupted = true;
      say("stopped: putting everything back");
    } else {
      say("putting everything back");
    }
    RestorePort port(*this);
    journal_.unwind([&](const write::Entry& entry, size_t index) {
      const auto done = write::perform(entry.undo, port);
      Touched& touched = outcome_.touched[index];
      touched.restored = done.ok();
      if (!done.ok()) touched.detail = done.error().message;
    });
    (void)wait_carrier(true, never_);
    Snapshot after;
    if (const auto why = take_snapshot(after)) {
      cannot_tell(kinds::kRestored, "the port could not be read back: " + *why);
      return;
    }
    const auto left = differences(before_, after);
    std::string evidence = left.empty() ? "the port reads as before the run" : "";
    for (const auto& line : left) evidence += (evidence.empty() ? "" : "; ") + line;
    check(kinds::kRestored, left.empty(), evidence);
  }

  System& system_;
  TimeSource& time_;
  const StopSignal& stop_;
  StopSignal never_;  // the restore waits whatever stop says
  const DiscoveredPort& port_;
  std::string netdev_;
  const WriteOptions& options_;
  dcb::DcbClient dcb_;
  write::Target target_;  // every write of the run goes to this port
  Snapshot before_;
  WriteOutcome outcome_;
  write::Journal journal_;  // one entry per outcome_.touched line, in the same order
  std::optional<uint32_t> speed_seen_while_down_;
};

}  // namespace

int planned_flaps(uint8_t pfc_mask) {
  return pfc_mask == 0x00 || pfc_mask == kPfcOnPriority3 ? 2 : 3;
}

WriteOutcome run_write_checks(System& system, TimeSource& time, const StopSignal& stop,
                              const DiscoveredPort& port, const WriteOptions& options) {
  return WriteRun(system, time, stop, port, options).run();
}

}  // namespace roced::qualify
