// SPDX-License-Identifier: Apache-2.0
#pragma once
// Test helper: one lossless priority (3) of one port, polled like the daemon would: each call
// moves the counters as the named situation does over `interval` (as docs/sim-formats.md
// describes the pfc_storm and congestion events) and returns the poll's StormEvidence.

#include <chrono>
#include <string>

#include "sample_series.hpp"
#include "watchdog/storm_signal.hpp"

namespace roced::watchdog::test {

class StormPoller {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StormPoller(Direction direction) : direction_(direction) {
    for (const auto& name :
         {pause(), duration(), own_packets(), opposite_packets(), mac_frames(),
          std::string("rx_prio3_discards"), std::string("tx_pause_storm_warning_events"),
          std::string("tx_pause_storm_error_events")}) {
      series_.set(name, 1'000'000);  // well above zero, so that a reset is a decrease
    }
    last_ = series_.take(Clock::duration::zero());
  }

  // Paused the whole interval (one frame per 167.8 us refresh at 100G), nothing crosses the other
  // way; a TX storm also raises the NIC's storm warning once.
  StormEvidence storm(std::chrono::microseconds interval) {
    pfc_on();
    const auto us = static_cast<uint64_t>(interval.count());
    series_.add(duration(), us);
    frames(us / 168);
    series_.add(own_packets(), 100);
    if (direction_ == Direction::tx && !warned_) {
      series_.add("tx_pause_storm_warning_events", 1);
      warned_ = true;
    }
    return poll(interval);
  }

  // Paused 95 % of the time in 20 us episodes (XOFF + XON each), traffic still moving.
  StormEvidence congestion(std::chrono::microseconds interval) {
    pfc_on();
    const auto us = static_cast<uint64_t>(interval.count());
    series_.add(duration(), us * 95 / 100);
    frames(2 * (us * 95 / 100 / 20));
    traffic();
    return poll(interval);
  }

  // A storm that begins `paused` before the end of the interval: traffic moved until then.
  StormEvidence onset(std::chrono::microseconds interval, std::chrono::microseconds paused) {
    pfc_on();
    const auto us = static_cast<uint64_t>(paused.count());
    series_.add(duration(), us);
    frames(us / 168);
    traffic();
    return poll(interval);
  }

  // TX: the NIC's stall prevention gives up `paused` into the interval (tx_pause_storm_error_events
  // += 1); what arrives afterwards is received (and dropped).
  StormEvidence nic_stops_pausing(std::chrono::microseconds interval,
                                  std::chrono::microseconds paused) {
    pfc_on();
    const auto us = static_cast<uint64_t>(paused.count());
    series_.add(duration(), us);
    frames(us / 168);
    series_.add("tx_pause_storm_error_events", 1);
    series_.add(opposite_packets(), 100);
    return poll(interval);
  }

  // TX: the NIC's stall prevention gives up in the last 1 % of a stormed poll (the timeout ends
  // there): paused the whole interval, nothing received, tx_pause_storm_error_events += 1.
  StormEvidence nic_stops_pausing_at_the_end(std::chrono::microseconds interval) {
    pfc_on();
    const auto us = static_cast<uint64_t>(interval.count());
    series_.add(duration(), us);
    frames(us / 168);
    series_.add("tx_pause_storm_error_events", 1);
    return poll(interval);
  }

  // TX: the error event of a storm on another priority of the port (it is device-wide); traffic
  // moves and this priority does not pause.
  StormEvidence nic_event_elsewhere(std::chrono::microseconds interval) {
    series_.add("tx_pause_storm_error_events", 1);
    traffic();
    return poll(interval);
  }

  // Traffic both ways, no pause.
  StormEvidence quiet(std::chrono::microseconds interval) {
    traffic();
    return poll(interval);
  }

  // A short pause (two frames, 20 us) amid moving traffic: healthy, but a pause frame.
  StormEvidence blip(std::chrono::microseconds interval) {
    pfc_on();
    series_.add(duration(), 20);
    frames(2);
    traffic();
    return poll(interval);
  }

  // A driver reload while the storm goes on: every counter restarts from zero.
  StormEvidence reset_in_storm(std::chrono::microseconds interval) {
    series_.reset_all();
    return storm(interval);
  }

  // PFC off on the priority (disable-pfc): mlx5 lists no pause counters for it; the pauses, if the
  // peer still sends them, only reach the MAC's count, and traffic flows.
  StormEvidence pfc_off_still_paused(std::chrono::microseconds interval) {
    pfc_off();
    series_.add(mac_frames(), static_cast<uint64_t>(interval.count()) / 168);
    traffic();
    return poll(interval);
  }
  // PFC off, but the NIC still acts on the pauses (firmware that ignores the change): the MAC
  // counts the frames and nothing crosses the other way.
  StormEvidence pfc_off_ignored(std::chrono::microseconds interval) {
    pfc_off();
    series_.add(mac_frames(), static_cast<uint64_t>(interval.count()) / 168);
    series_.add(own_packets(), 100);
    return poll(interval);
  }
  // TX with PFC off on the priority: the NIC no longer pauses, and its stalled receive side drops
  // what arrives.
  StormEvidence pfc_off_dropping(std::chrono::microseconds interval) {
    pfc_off();
    series_.add(opposite_packets(), 100);
    series_.add("rx_prio3_discards", 100);
    return poll(interval);
  }
  StormEvidence pfc_off_quiet(std::chrono::microseconds interval) {
    pfc_off();
    traffic();
    return poll(interval);
  }
  // The link trains after a PFC change flapped it: no carrier, nothing moves.
  StormEvidence link_training(std::chrono::microseconds interval) {
    carrier_ = false;
    StormEvidence evidence = poll(interval);
    carrier_ = true;
    return evidence;
  }

  Clock::time_point now() const { return series_.now(); }
  // How long each read takes from now on (the device's snapshot lies somewhere within it).
  void set_read_time(std::chrono::microseconds read_time) { read_time_ = read_time; }

 private:
  std::string prefix() const { return std::string(roced::direction_name(direction_)); }
  std::string other() const { return direction_ == Direction::rx ? "tx" : "rx"; }
  std::string pause() const { return prefix() + "_prio3_pause"; }
  std::string duration() const { return prefix() + "_prio3_pause_duration"; }
  std::string own_packets() const { return prefix() + "_prio3_packets"; }
  std::string opposite_packets() const { return other() + "_prio3_packets"; }
  std::string mac_frames() const { return prefix() + "_pause_ctrl_phy"; }

  void frames(uint64_t count) {
    series_.add(pause(), count);
    series_.add(mac_frames(), count);
  }
  void traffic() {
    series_.add(own_packets(), 100);
    series_.add(opposite_packets(), 100);
  }
  void pfc_on() {
    if (pfc_) return;
    series_.set(pause(), kept_pause_);  // mlx5 reads the firmware's counters again
    series_.set(duration(), kept_duration_);
    pfc_ = true;
  }
  void pfc_off() {
    if (!pfc_) return;
    kept_pause_ = series_.value(pause());
    kept_duration_ = series_.value(duration());
    series_.erase(pause());
    series_.erase(duration());
    pfc_ = false;
  }
  StormEvidence poll(std::chrono::microseconds interval) {
    PauseCounters sample = series_.take(interval);
    sample.carrier = carrier_;
    sample.read_time = read_time_;
    StormEvidence evidence = read_storm_evidence(last_, sample, 3, direction_);
    last_ = sample;
    return evidence;
  }

  Direction direction_;
  SampleSeries series_;
  PauseCounters last_;
  bool pfc_ = true;
  bool carrier_ = true;
  bool warned_ = false;
  std::chrono::microseconds read_time_{0};
  uint64_t kept_pause_ = 0;
  uint64_t kept_duration_ = 0;
};

}  // namespace roced::watchdog::test
