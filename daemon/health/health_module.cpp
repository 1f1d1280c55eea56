// SPDX-License-Identifier: Apache-2.0
#include "daemon/health/health_module.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "daemon/log/log.hpp"
#include "health/history.hpp"
#include "port/status.hpp"
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
constexpr FamilySpec kSymbolErrors{
    "roce_phy_symbol_errors_total", MetricType::counter,
    "Symbol errors the port's FEC could not correct: ethtool netlink's IEEE 802.3 PHY statistics "
    "(SymbolErrorDuringCarrier) where the driver gives them, else ethtool -S "
    "rx_pcs_symbol_err_phy or rx_symbol_err_phy."};
constexpr FamilySpec kCorrectedBits{
    "roce_phy_fec_corrected_errors_total", MetricType::counter,
    "Bits the port's FEC corrected (ethtool -S rx_corrected_bits_phy): the pre-FEC errors."};
constexpr FamilySpec kPcieStalled{
    "roce_pcie_outbound_stalled_ratio", MetricType::gauge,
    "The share of the last second in which the NIC had outbound PCIe reads or writes it could not "
    "issue for lack of credits (ethtool -S outbound_pci_stalled_rd, _wr, in percent / 100): the "
    "host is slow to take the NIC's DMA."};
constexpr FamilySpec kPcieStalledSeconds{
    "roce_pcie_outbound_stalled_seconds_total", MetricType::counter,
    "Seconds in which the NIC's outbound PCIe reads or writes stalled more than 30 % of the time "
    "(ethtool -S outbound_pci_stalled_rd_events, _wr_events; 32-bit)."};
constexpr FamilySpec kPcieRecoveries{
    "roce_pcie_signal_integrity_errors_total", MetricType::counter,
    "Times the NIC's PCIe link went into recovery for signal integrity errors: rx for framing and "
    "CRC errors the NIC saw, tx for those the other end started (ethtool -S "
    "rx_pci_signal_integrity, tx_pci_signal_integrity; 32-bit)."};
constexpr FamilySpec kModuleTemperature{
    "roce_transceiver_temperature_celsius", MetricType::gauge,
    "The port's optical module's temperature, as the module measures it (SFF-8636 bytes 22-23, "
    "CMIS lower page bytes 14-15)."};
constexpr FamilySpec kModuleVoltage{
    "roce_transceiver_supply_voltage_volts", MetricType::gauge,
    "The supply voltage the port's optical module measures (SFF-8636 bytes 26-27, CMIS 16-17)."};
constexpr FamilySpec kModuleRxPower{
    "roce_transceiver_rx_power_watts", MetricType::gauge,
    "The optical power each lane of the port's module receives (SFF-8636 bytes 34-41, CMIS page "
    "11h); in dBm: 10 * log10(value * 1000)."};
constexpr FamilySpec kModuleTxPower{
    "roce_transceiver_tx_power_watts", MetricType::gauge,
    "The optical power each lane of the port's module transmits (SFF-8636 bytes 50-57, CMIS page "
    "11h), where the module measures it."};
constexpr FamilySpec kModuleTxBias{
    "roce_transceiver_tx_bias_amperes", MetricType::gauge,
    "Each lane's laser bias current in the port's module (SFF-8636 bytes 42-49, CMIS page 11h): "
    "a laser that needs ever more current to keep its power is ageing."};
constexpr FamilySpec kModuleBeyond{
    "roce_transceiver_readings_beyond_threshold", MetricType::gauge,
    "The port's module's readings now beyond (or latched beyond since the last read) the alarm "
    "or warning thresholds the module itself carries (SFF-8636 page 03h, CMIS page 02h), by "
    "level."};
constexpr FamilySpec kModuleReadable{
    "roce_transceiver_diagnostics_readable", MetricType::gauge,
    "1 when the port's module memory was read and decoded at the last reading "
    "(health.optics_interval); 0 "
    "when it could not be (the reason is in roced's log): its readings are then unknown, not "
    "healthy."};
constexpr FamilySpec kReporterErrors{
    "roce_devlink_health_errors_total", MetricType::counter,
    "Errors the NIC's devlink health reporter counted (devlink health show): fw for the "
    "firmware's syndromes, fw_fatal for its fatal errors, each a device reset."};
constexpr FamilySpec kReporterRecoveries{
    "roce_devlink_health_recoveries_total", MetricType::counter,
    "Recoveries the NIC's devlink health reporter counted: the driver's device resets after a "
    "fatal firmware error."};
constexpr FamilySpec kReporterHealthy{
    "roce_devlink_health_healthy", MetricType::gauge,
    "1 while the NIC's devlink health reporter is healthy, 0 while it is in error (fw stays in "
    "error after its first syndrome: it has no recovery)."};
constexpr FamilySpec kFecMode{
    "roce_fec_active_mode", MetricType::gauge,
    "1 for the FEC mode the port's link runs (ethtool --show-fec: rs, baser, llrs or off)."};
constexpr FamilySpec kFecCorrectedBlocks{
    "roce_fec_corrected_blocks_total", MetricType::counter,
    "Codewords the port's FEC corrected (ethtool -I --show-fec: Corrected Blocks)."};
constexpr FamilySpec kFecUncorrectableBlocks{
    "roce_fec_uncorrectable_blocks_total", MetricType::counter,
    "Codewords the port's FEC could not correct (ethtool -I --show-fec: Uncorrectable Blocks): "
    "each a frame lost on the wire."};
constexpr FamilySpec kFecLaneCorrectedBlocks{
    "roce_fec_lane_corrected_blocks_total", MetricType::counter,
    "Codewords the FEC corrected on each lane, where the driver counts per lane (mlx5 in FireCode "
    "(BASE-R) mode)."};
constexpr FamilySpec kFecLaneUncorrectableBlocks{
    "roce_fec_lane_uncorrectable_blocks_total", MetricType::counter,
    "Codewords the FEC could not correct on each lane, where the driver counts per lane."};
constexpr FamilySpec kLaneCorrectedBits{
    "roce_phy_lane_fec_corrected_errors_total", MetricType::counter,
    "Bits the port's FEC corrected on each lane, from 0 (ethtool -S rx_err_lane_<n>_phy, on "
    "firmware that counts per lane): one lane far above the others is one bad fibre or laser."};
constexpr FamilySpec kPreFecBer{
    "roce_phy_pre_fec_ber", MetricType::gauge,
    "Bits the port's FEC corrected per bit of the link's data rate over the last reading "
    "interval: the pre-FEC bit error rate (a few per cent above one against the serial rate)."};
constexpr FamilySpec kLinkDownEvents{
    "roce_link_down_events_total", MetricType::counter,
    "Times the port's link went down (ethtool -S link_down_events_phy), roced's own PFC changes "
    "included: mlx5 retrains the link for each."};

std::vector<PciPort> managed_uplinks(const reconcile::Reconciler& reconciler) {
  std::vector<PciPort> out;
  for (const auto& snapshot : reconciler.snapshot()) {
    if (snapshot.condition == reconcile::PortCondition::Vanished) continue;
    if (snapshot.port.role != PortRole::Uplink || snapshot.port.pci.empty()) continue;
    out.push_back({snapshot.port.netdev, snapshot.port.pci,
                   snapshot.counters.applies_ok + snapshot.counters.applies_failed,
                   snapshot.condition == reconcile::PortCondition::Applying,
                   snapshot.port.rdma_device, snapshot.port.rdma_port,
                   snapshot.last_check ? snapshot.last_plan.desired.pfc_priorities : uint8_t{0},
                   snapshot.last_apply_at});
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

// The RDMA port's data counter (mlx5: the vport's RoCE octets / 4; core/sysfs.c pma_attrs_ext).
std::optional<uint64_t> read_xmit_words(const FileTree& files, const PciPort& port) {
  const auto text = files.read("/sys/class/infiniband/" + port.rdma_device + "/ports/" +
                               std::to_string(port.rdma_port) + "/counters/port_xmit_data");
  if (!text) return std::nullopt;
  uint64_t value = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  const auto [next, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || next == begin || (next != end && *next != '\n')) return std::nullopt;
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

namespace {

std::filesystem::path state_directory_file() {
  const char* directory = std::getenv("STATE_DIRECTORY");  // systemd's StateDirectory=
  if (directory == nullptr || *directory == '\0') return {};
  // Several directories are separated by ':'; roced's unit names one.
  const std::string first(directory, std::strcspn(directory, ":"));
  return std::filesystem::path(first) / "health.json";
}

// How long a round of module or devlink reads may take before its socket is given up.
constexpr auto kModuleReadTimeout = std::chrono::seconds(5);
// Readings in a row without the symbol error window's own counter before it takes the other.
constexpr int kSymbolSourceMisses = 3;

// The upper pages a module's map needs beyond page 00h, once its lower page is known.
std::vector<uint8_t> upper_pages(const Result<std::vector<uint8_t>>& lower) {
  if (!lower || lower->empty()) return {};
  switch (module_map((*lower)[0])) {
    case ModuleMap::sff8636:
      return has_threshold_page(*lower) ? std::vector<uint8_t>{kThresholdPage}
                                        : std::vector<uint8_t>{};
    case ModuleMap::cmis:
      return cmis_flat_memory(*lower)
                 ? std::vector<uint8_t>{}
                 : std::vector<uint8_t>{kCmisAdvertisingPage, kCmisThresholdPage, kCmisLanePage};
    default:
      return {};
  }
}

template <class Reading>
Reading decode_sff8636_reading(const std::vector<uint8_t>& lower, const std::vector<uint8_t>& upper,
                               const Result<std::vector<uint8_t>>* page3) {
  // Without page 03h the module's flags still count; its thresholds are unknown, and said so.
  const std::vector<uint8_t> none;
  auto module = decode_sff8636(lower, upper, page3 && *page3 ? **page3 : none);
  if (!module) {
    return {std::nullopt, (lower[2] & 0x01) != 0
                              ? "the module is not ready (SFF-8636 Data_Not_Ready)"
                              : "the module's pages do not decode as SFF-8636"};
  }
  if (page3 && !*page3) {
    return {std::move(module),
            "its thresholds (page 03h) are unreadable: " + page3->error().message};
  }
  return {std::move(module), ""};
}

template <class Reading>
Reading decode_cmis_reading(const std::vector<uint8_t>& lower, const std::vector<uint8_t>& upper,
                            std::span<const Result<std::vector<uint8_t>>> pages) {
  const std::vector<uint8_t> none;
  const auto page = [&](size_t i) -> const std::vector<uint8_t>& {
    return i < pages.size() && pages[i] ? *pages[i] : none;
  };
  auto module = decode_cmis(lower, upper, page(0), page(1), page(2));
  if (!module) {
    return {std::nullopt, std::string("the module is not ready (CMIS module state ") +
                              cmis_module_state(lower) + ")"};
  }
  for (const auto& read : pages) {
    if (!read)
      return {std::move(module), "its lanes or thresholds are unreadable: " + read.error().message};
  }
  return {std::move(module), ""};
}

template <class Reading>
Reading decode_module(const Result<std::vector<uint8_t>>& lower,
                      const Result<std::vector<uint8_t>>& upper,
                      std::span<const Result<std::vector<uint8_t>>> pages) {
  if (!lower) return {std::nullopt, lower.error().is_unsupported() ? "" : lower.error().message};
  if (!upper) return {std::nullopt, upper.error().message};
  const ModuleMap map = lower->empty() ? ModuleMap::unknown : module_map((*lower)[0]);
  if (map == ModuleMap::sff8636) {
    return decode_sff8636_reading<Reading>(*lower, *upper, pages.empty() ? nullptr : &pages[0]);
  }
  if (map == ModuleMap::cmis) return decode_cmis_reading<Reading>(*lower, *upper, pages);
  char text[112];
  std::snprintf(text, sizeof text,
                "module identifier 0x%02x: only SFF-8636 (QSFP28) and CMIS (QSFP-DD, OSFP) "
                "diagnostics are decoded",
                lower->empty() ? 0 : (*lower)[0]);
  return {std::nullopt, text};
}

}  // namespace

HealthModule::HealthModule(System& system, reconcile::Reconciler& reconciler,
                           sampling::StatsPoller& stats, const HealthSettings& settings,
                           TimeSource& time)
    : HealthModule(
          system, [&reconciler] { return managed_uplinks(reconciler); }, stats, time,
          state_directory_file(), settings) {}

HealthModule::HealthModule(System& system, PortList ports, sampling::StatsPoller& stats,
                           TimeSource& time, std::filesystem::path history,
                           const HealthSettings& settings)
    : system_(system),
      ports_(std::move(ports)),
      stats_(stats),
      time_(time),
      settings_(settings),
      eeprom_(system),
      reporters_(system),
      fec_(system),
      phy_stats_(system, ETHTOOL_STATS_ETH_PHY),
      history_file_(std::move(history)) {
  load_history();
}

void HealthModule::load_history() {
  if (history_file_.empty()) return;
  std::ifstream in(history_file_);
  if (!in) return;  // the first start, or none kept
  std::stringstream text;
  text << in.rdbuf();
  saved_ = text.str();
  restored_ = read_history(saved_, time_.now(), time_.wall_now());
  if (restored_.empty() && saved_.find("\"symbol_errors\":{}") == std::string::npos) {
    spdlog::info(
        "health: {} holds no symbol errors of the last hour that can be read; the hourly "
        "counts begin afresh",
        history_file_.string());
  }
}

void HealthModule::save_history() {
  if (history_file_.empty()) return;
  std::map<std::string, const CounterWindow*> windows;
  for (const auto& [netdev, history] : history_) windows[netdev] = &history.symbol_errors;
  std::string text = history_document(windows, time_.now(), time_.wall_now());
  if (text == saved_) return;
  // Written whole and renamed over the old one: a crash leaves the old file or the new.
  const auto temporary = history_file_.string() + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      spdlog::warn("health: {}: cannot write the history: {}", temporary, std::strerror(errno));
      return;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, history_file_, error);
  if (error) {
    spdlog::warn("health: {}: cannot keep the history: {}", history_file_.string(),
                 error.message());
    return;
  }
  saved_ = std::move(text);
}

void HealthModule::start() {
  HealthSettings settings;
  {
    std::lock_guard lock(settings_mutex_);
    settings = settings_;
  }
  started_ = true;
  if (!settings.enabled) return;
  last_check_.reset();
  task_ = std::make_unique<PeriodicTask>(time_, settings.interval,
                                         [this, interval = settings.interval] { run(interval); });
  watch_ = std::make_unique<ReporterWatch>(
      system_, time_, [this](const HealthReporterEvent& event) { reporter_changed(event); });
}

void HealthModule::reporter_changed(const HealthReporterEvent& event) {
  // A function roced does not manage (a VF, another NIC) is not read; an empty event (some were
  // lost) reads every port.
  if (!event.device.empty()) {
    std::lock_guard lock(mutex_);
    const bool ours = std::any_of(health_.begin(), health_.end(), [&](const PortHealth& port) {
      return event.bus == "pci" && port.port.pci == event.device;
    });
    if (!ours) return;
  }
  reporters_due_ = true;
  task_->trigger();
}

void HealthModule::run(std::chrono::milliseconds interval) {
  // A notification's run reads the reporters alone: the counters' windows keep steps of about
  // an interval, whose rates a fraction of a second would make noisy.
  const bool reporters_only =
      reporters_due_.exchange(false) && last_check_ && time_.now() - *last_check_ < interval / 2;
  if (reporters_only) return check_reporters();
  last_check_ = time_.now();
  check();
}

void HealthModule::check_reporters() {
  std::vector<PortHealth> now;
  {
    std::lock_guard lock(mutex_);
    now = health_;
  }
  for (PortHealth& port : now) {
    std::erase_if(port.findings, [](const finding::Finding& found) {
      return found.id == kFirmwareFatal.id || found.id == kFirmwareErrors.id;
    });
    port.fw.reset();
    port.fw_fatal.reset();
  }
  read_reporters(now);
  std::lock_guard lock(mutex_);
  log_changes(now);
  health_ = std::move(now);
}

void HealthModule::stop_task() {
  watch_.reset();  // first: it triggers the task
  task_.reset();
}

void HealthModule::reconfigure(const config::Config& /*before*/, const config::Config& after) {
  reconfigure(after.health);
}

void HealthModule::reconfigure(const HealthSettings& settings) {
  HealthSettings before;
  {
    std::lock_guard lock(settings_mutex_);
    before = std::exchange(settings_, settings);
  }
  if (before.enabled == settings.enabled && before.interval == settings.interval) return;
  stop_task();
  if (!settings.enabled) {
    // What the counters do while nobody reads them must not land as one step at the next
    // reading: every window starts afresh then, but for the hour of symbol errors already
    // counted, kept as across a restart.
    for (const auto& [netdev, history] : history_) {
      const auto& steps = history.symbol_errors.steps();
      if (!steps.empty()) restored_[netdev] = steps;
    }
    history_.clear();
    modules_.clear();  // the task is stopped: a module is read afresh, its old flags primed
    modules_read_at_.reset();
    std::lock_guard lock(mutex_);
    health_.clear();
    spdlog::info("health: the NIC health checks are off (health.enabled: false)");
  }
  if (started_) start();
}

void HealthModule::stop() {
  started_ = false;
  stop_task();
}

HealthModule::PortHealth HealthModule::read(PciPort port, const HealthSettings& settings,
                                            const StandardReading& standard) {
  PortHealth health{std::move(port), {}, {}, {}};
  const std::string& netdev = health.port.netdev;
  health.pcie = read_pcie_link(*system_.files, health.port.pci);
  if (auto pcie = judge(netdev, health.pcie)) health.findings.push_back(std::move(*pcie));

  // The watchdog's reading, which its rounds keep at most kRestInterval old; when the watchdog is
  // off (or late), one read now on this task's thread: no scrape ever waits for it. Never older
  // than the interval, so that each reading's rate covers a span of its own.
  const auto reading =
      stats_.reading(netdev, std::min<std::chrono::milliseconds>(
                                 2 * sampling::StatsPoller::kRestInterval, settings.interval));
  if (reading && reading->names) {
    health.phy = phy_counters(*reading->names, reading->values);
    health.pcie_counters = pcie_counters(*reading->names, reading->values);
  }
  History& history = history_[netdev];
  if (auto kept = restored_.extract(netdev))
    history.symbol_errors.restore(std::move(kept.mapped()));
  // Since the reading before, roced applied to the port (or was applying at either end): its
  // link-down events are roced's own. The applier waits for the carrier before it counts an
  // apply, so a retrain lies within the interval that sees the count move or the apply under way.
  // The counters may be older than the port's state read now (the watchdog's reading, up to two
  // rest intervals old): an apply that ended after the device last read them (or at that
  // instant) is in this delta, though the reading before already saw its count.
  const bool applied_since_counted =
      history.last && health.port.last_apply && *health.port.last_apply >= history.counted_at;
  const bool own =
      history.last && (history.last->applies != health.port.applies || history.last->applying ||
                       health.port.applying || applied_since_counted);
  prefer_standard(health.phy, standard.symbol_errors);
  const bool symbol_errors_readable = health.phy.symbol_errors.has_value();
  if (health.phy.symbol_errors) {
    // A window counts one counter. Through a reading or two that missed it (a request that
    // timed out) it waits: the other counter counts differently, and served in its place it
    // would read as a counter reset and a jump. A source gone for longer is replaced, the
    // window rebased, what it counted kept.
    const bool other = history.symbol_errors_from != SymbolErrorSource::none &&
                       history.symbol_errors_from != health.phy.symbol_errors_from;
    if (other && ++history.symbol_errors_missed < kSymbolSourceMisses) {
      health.phy.symbol_errors.reset();
      health.phy.symbol_errors_from = SymbolErrorSource::none;
    } else {
      if (other) history.symbol_errors.rebase();
      history.symbol_errors_from = health.phy.symbol_errors_from;
      history.symbol_errors_missed = 0;
      const bool from_standard = health.phy.symbol_errors_from == SymbolErrorSource::standard;
      history.symbol_errors.add(from_standard ? standard.at : reading->answered,
                                *health.phy.symbol_errors);
    }
  }
  if (health.phy.link_down_events) {
    history.link_downs.add(reading->answered, *health.phy.link_down_events, own);
    // Only with a reading: after one that failed (a port mid-reload), the next still sees the
    // applies made since the last it counted.
    history.last = health.port;
    history.counted_at = reading->issued;
  }
  const PcieCounters& pcie = health.pcie_counters;
  if (pcie.rx_signal_integrity)
    history.recoveries_rx.add(reading->answered, *pcie.rx_signal_integrity);
  if (pcie.tx_signal_integrity)
    history.recoveries_tx.add(reading->answered, *pcie.tx_signal_integrity);
  if (auto recovering =
          judge_signal_integrity(netdev, history.recoveries_rx, history.recoveries_tx)) {
    health.findings.push_back(std::move(*recovering));
  }
  if (auto flaps = judge_link_flaps(netdev, health.phy.link_down_events.has_value(),
                                    history.link_downs, settings.link_flaps_per_10m)) {
    health.findings.push_back(std::move(*flaps));
  }
  for (auto& found : judge_phy(netdev, symbol_errors_readable, history.symbol_errors, settings)) {
    health.findings.push_back(std::move(found));
  }
  if (!health.port.rdma_device.empty()) judge_class(health, history, settings);
  return health;
}

// The RDMA counter and the priorities' counters must cover the same span: each sample pairs the
// RDMA counter read now with a statistics reading at most a twentieth of the interval (and at
// most 500 ms) old: the watchdog's when it has one that fresh, else one read now. A reading of
// up to 4 s ago against an RDMA counter of now would count RoCE that no priority had carried
// yet. The fresh reading is taken only while RoCE moves: a sample is judged and replaced once
// at least kRoceClassMinBytes went out since it, and kept until then (a failed reading keeps
// it too). A verdict stands until the next one, so that RoCE sent slowly on a lossy priority,
// judged every few readings, does not come and go; it lapses kClassVerdictLife after it was made.
void HealthModule::judge_class(PortHealth& health, History& history,
                               const HealthSettings& settings) {
  const std::string& netdev = health.port.netdev;
  const auto words = read_xmit_words(*system_.files, health.port);
  if (!words) {  // no RDMA counter: nothing to judge, and no reading worth taking
    history.sent.reset();
    history.verdict.reset();
    return;
  }
  const auto& before = history.sent;
  const bool moved = !before || !before->rdma_tx_bytes || *words < *before->rdma_tx_bytes / 4 ||
                     *words - *before->rdma_tx_bytes / 4 >= kRoceClassMinBytes / 4;
  if (moved) {
    const auto pairing =
        std::min<std::chrono::milliseconds>(settings.interval / 20, std::chrono::milliseconds(500));
    const auto reading = stats_.reading(netdev, pairing);
    if (reading && reading->names) {
      const ClassSample sent = class_sample(*reading->names, reading->values, words);
      if (before) {
        history.verdict = History::ClassVerdict{
            judge_roce_class(netdev, health.port.lossless, *before, sent), time_.now()};
      }
      history.sent = sent;
    }
  }
  if (history.verdict && time_.now() - history.verdict->at > kClassVerdictLife) {
    history.verdict.reset();
  }
  if (history.verdict && history.verdict->lossy) {
    health.findings.push_back(*history.verdict->lossy);
  }
}

void HealthModule::read_modules(std::vector<PortHealth>& now,
                                std::chrono::milliseconds optics_interval) {
  const auto at = time_.now();
  if (!modules_read_at_ || at - *modules_read_at_ >= optics_interval) {
    // Due every interval from the first reading, not from whenever the last one ran late.
    const bool on_time = modules_read_at_ && at - *modules_read_at_ < 2 * optics_interval;
    modules_read_at_ = on_time ? *modules_read_at_ + optics_interval : at;
    // Page 00h of every module first: its identifier says which upper pages its map has.
    std::vector<EepromRead> reads;
    for (const PortHealth& port : now) {
      reads.push_back({port.port.netdev, 0, 0, 128});
      reads.push_back({port.port.netdev, 0, 128, 128});
    }
    const auto page0 = eeprom_.read(reads, kModuleReadTimeout);
    reads.clear();
    std::vector<size_t> first(now.size() + 1, 0);  // each port's pages in `more`
    for (size_t i = 0; i < now.size(); ++i) {
      first[i] = reads.size();
      if (!page0[2 * i + 1]) continue;
      for (uint8_t page : upper_pages(page0[2 * i])) {
        reads.push_back({now[i].port.netdev, page, 128, 128});
      }
    }
    first[now.size()] = reads.size();
    const auto more = reads.empty() ? decltype(page0){} : eeprom_.read(reads, kModuleReadTimeout);
    std::map<std::string, ModuleReading> fresh;
    for (size_t i = 0; i < now.size(); ++i) {
      const std::string& netdev = now[i].port.netdev;
      const std::span<const Result<std::vector<uint8_t>>> pages(more.data() + first[i],
                                                                first[i + 1] - first[i]);
      fresh[netdev] = decode_module<ModuleReading>(page0[2 * i], page0[2 * i + 1], pages);
      const auto before = modules_.find(netdev);
      // The first reading of a module takes the flags it latched since power-up (the link
      // training, an insertion): history, not news.
      if (fresh[netdev].module && (before == modules_.end() || !before->second.module)) {
        for (Monitor& m : fresh[netdev].module->monitors) {
          m.latched_alarm = m.latched_warning = false;
        }
      }
      const std::string was = before == modules_.end() ? "" : before->second.unread;
      if (fresh[netdev].unread != was && !fresh[netdev].unread.empty()) {
        log::port(spdlog::level::warn, netdev, "health",
                  "the optical module's diagnostics cannot be told: {}", fresh[netdev].unread);
      }
    }
    modules_ = std::move(fresh);
  }
  for (PortHealth& port : now) {
    const auto it = modules_.find(port.port.netdev);
    if (it == modules_.end()) continue;  // managed since the last reading: read at the next
    port.optic = it->second;
    if (!port.optic.module) continue;
    if (auto found = judge_transceiver(port.port.netdev, *port.optic.module)) {
      port.findings.push_back(std::move(*found));
    }
  }
}

void HealthModule::read_reporters(std::vector<PortHealth>& now) {
  std::vector<HealthReporterQuery> queries;
  for (const PortHealth& port : now) {
    queries.push_back({port.port.pci, "fw"});
    queries.push_back({port.port.pci, "fw_fatal"});
  }
  const auto states = reporters_.read(queries, kModuleReadTimeout);
  const auto at = time_.now();
  for (size_t i = 0; i < now.size(); ++i) {
    PortHealth& port = now[i];
    History& history = history_.at(port.port.netdev);
    // A function without devlink or without mlx5's reporters (not an mlx5 PF): nothing to judge.
    if (states[2 * i]) {
      port.fw = *states[2 * i];
      history.firmware_errors.add(at, port.fw->errors);
      if (auto found = judge_firmware_errors(port.port.netdev, history.firmware_errors)) {
        port.findings.push_back(std::move(*found));
      }
    }
    if (states[2 * i + 1]) {
      port.fw_fatal = *states[2 * i + 1];
      history.firmware_fatal.add(at, port.fw_fatal->errors);
      if (auto found = judge_firmware_fatal(port.port.netdev, history.firmware_fatal,
                                            port.fw_fatal->healthy)) {
        port.findings.push_back(std::move(*found));
      }
    }
  }
}

std::vector<HealthModule::StandardReading> HealthModule::read_standard(
    const std::vector<PciPort>& ports) {
  std::vector<std::string> netdevs;
  for (const PciPort& port : ports) netdevs.push_back(port.netdev);
  const auto groups = phy_stats_.read(netdevs, kModuleReadTimeout);
  const auto at = time_.now();
  std::vector<StandardReading> readings(ports.size(), StandardReading{std::nullopt, at});
  for (size_t i = 0; i < groups.size() && i < readings.size(); ++i) {
    if (!groups[i]) continue;
    if (auto found = groups[i]->find(ETHTOOL_A_STATS_ETH_PHY_5_SYM_ERR); found != groups[i]->end())
      readings[i].symbol_errors = found->second;
  }
  return readings;
}

void HealthModule::read_fec(std::vector<PortHealth>& now) {
  std::vector<std::string> netdevs;
  for (const PortHealth& port : now) netdevs.push_back(port.port.netdev);
  const auto states = fec_.read(netdevs, kModuleReadTimeout);
  const auto at = time_.now();
  for (size_t i = 0; i < now.size(); ++i) {
    PortHealth& port = now[i];
    History& history = history_.at(port.port.netdev);
    if (states[i]) port.fec = *states[i];
    // The FEC's own count where the driver gives it, else ethtool -S's (the same PPCNT field on
    // mlx5, but read at another moment): a window keeps one source, so a port that switches
    // starts it afresh rather than count the difference of two readings as errors.
    const bool from_fec = port.fec && port.fec->corrected_bits.total;
    const std::optional<uint64_t> bits =
        from_fec ? port.fec->corrected_bits.total : port.phy.corrected_bits;
    if (!bits) continue;
    if (history.corrected_bits_from_fec != from_fec) {
      history.corrected_bits = corrected_bits_window();
      history.corrected_bits_from_fec = from_fec;
    }
    history.corrected_bits.add(at, *bits);
    port.pre_fec_ber = pre_fec_ber(history.corrected_bits, link_speed(system_, port.port.netdev));
  }
}

void HealthModule::check() {
  HealthSettings settings;
  {
    std::lock_guard lock(settings_mutex_);
    settings = settings_;
  }
  std::vector<PciPort> ports = ports_();
  const std::vector<StandardReading> standard = read_standard(ports);
  std::vector<PortHealth> now;
  std::map<std::string, History> kept;
  for (size_t i = 0; i < ports.size(); ++i) {
    now.push_back(read(std::move(ports[i]), settings, standard[i]));
    const std::string& netdev = now.back().port.netdev;
    kept.emplace(netdev, std::move(history_.at(netdev)));
  }
  history_ = std::move(kept);  // a port no longer managed starts afresh if it returns
  read_modules(now, settings.optics_interval);
  read_reporters(now);
  read_fec(now);
  save_history();
  std::lock_guard lock(mutex_);
  log_changes(now);
  health_ = std::move(now);
}

void HealthModule::log_changes(const std::vector<PortHealth>& now) const {
  // Each finding said once when it appears or changes, and once when it clears; a change is in
  // its verdict or its values, not its text, which carries each reading's figures.
  const auto same_kind = [](const finding::Finding& a, const finding::Finding& b) {
    return a.id == b.id && a.subject == b.subject;
  };
  const auto same = [&](const finding::Finding& a, const finding::Finding& b) {
    return same_kind(a, b) && a.verdict == b.verdict && a.wanted == b.wanted && a.found == b.found;
  };
  for (const PortHealth& port : now) {
    const PortHealth* before = nullptr;
    for (const PortHealth& old : health_) {
      if (old.port.netdev == port.port.netdev) before = &old;
    }
    const std::vector<finding::Finding> none;
    const auto& was = before != nullptr ? before->findings : none;
    for (const finding::Finding& found : port.findings) {
      const bool known = std::any_of(was.begin(), was.end(),
                                     [&](const finding::Finding& f) { return same(f, found); });
      if (!known) {
        log::port(spdlog::level::warn, port.port.netdev, "health", "{}", finding::line(found));
      }
    }
    for (const finding::Finding& old : was) {
      const bool gone = std::none_of(port.findings.begin(), port.findings.end(),
                                     [&](const finding::Finding& f) { return same_kind(f, old); });
      if (!gone) continue;
      const bool optic = old.id == kTransceiverAlarm.id || old.id == kTransceiverWarning.id;
      log::port(spdlog::level::info, port.port.netdev, "health", "{} cleared: {}", old.id,
                old.id == kPcieLinkDegraded.id
                    ? "PCIe link at " + describe(port.pcie.speed_tenths_gts, port.pcie.width) +
                          " again, as built"
                : optic && !port.optic.module
                    ? "the module cannot be read now (" + port.optic.unread + "): not a recovery"
                    : std::string("within its threshold again"));
    }
  }
}

std::vector<finding::Finding> HealthModule::findings() const {
  std::lock_guard lock(mutex_);
  std::vector<finding::Finding> all;
  for (const PortHealth& port : health_) {
    all.insert(all.end(), port.findings.begin(), port.findings.end());
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
    const LabelSet port_label = {{"netdev", port.port.netdev}};
    const PcieCounters& pcie = port.pcie_counters;
    const auto with = [&](const char* key, const char* value) {
      return LabelSet{{"netdev", port.port.netdev}, {key, value}};
    };
    const auto add = [&](const FamilySpec& spec, const LabelSet& set,
                         const std::optional<uint64_t>& value, double scale = 1) {
      if (value) out.add(spec, set, static_cast<double>(*value) * scale);
    };
    add(kPcieStalled, with("direction", "read"), pcie.stalled_read_percent, 0.01);
    add(kPcieStalled, with("direction", "write"), pcie.stalled_write_percent, 0.01);
    add(kPcieStalledSeconds, with("direction", "read"), pcie.stalled_read_seconds);
    add(kPcieStalledSeconds, with("direction", "write"), pcie.stalled_write_seconds);
    add(kPcieRecoveries, with("direction", "rx"), pcie.rx_signal_integrity);
    add(kPcieRecoveries, with("direction", "tx"), pcie.tx_signal_integrity);
    const auto counter = [&](const FamilySpec& spec, const std::optional<uint64_t>& value) {
      if (value) out.add(spec, port_label, static_cast<double>(*value));
    };
    counter(kSymbolErrors, port.phy.symbol_errors);
    counter(kCorrectedBits, port.phy.corrected_bits);
    counter(kLinkDownEvents, port.phy.link_down_events);
    for (size_t lane = 0; lane < port.phy.lane_corrected_bits.size(); ++lane) {
      add(kLaneCorrectedBits, with("lane", std::to_string(lane).c_str()),
          port.phy.lane_corrected_bits[lane]);
    }
    collect_module(out, port);
    collect_fec(out, port);
    for (const auto& [name, state] :
         {std::pair{"fw", &port.fw}, std::pair{"fw_fatal", &port.fw_fatal}}) {
      if (!*state) continue;
      const LabelSet reporter = {{"netdev", port.port.netdev}, {"reporter", name}};
      out.add(kReporterErrors, reporter, static_cast<double>((*state)->errors));
      out.add(kReporterRecoveries, reporter, static_cast<double>((*state)->recoveries));
      out.add(kReporterHealthy, reporter, (*state)->healthy ? 1 : 0);
    }
    if (!port.findings.empty()) telemetry::add_findings(out, port.port.netdev, port.findings);
  }
}

void HealthModule::collect_fec(telemetry::ExpositionWriter& out, const PortHealth& port) {
  const LabelSet labels = {{"netdev", port.port.netdev}};
  if (port.pre_fec_ber) out.add(kPreFecBer, labels, *port.pre_fec_ber);
  if (!port.fec) return;
  const FecState& fec = *port.fec;
  if (fec.active_mode && *fec_mode_name(*fec.active_mode) != '\0') {
    out.add(kFecMode, {{"netdev", port.port.netdev}, {"mode", fec_mode_name(*fec.active_mode)}}, 1);
  }
  const auto counter = [&](const FamilySpec& total, const FamilySpec& lane, const FecCounter& c) {
    if (c.total) out.add(total, labels, static_cast<double>(*c.total));
    for (size_t i = 0; i < c.lanes.size(); ++i) {
      out.add(lane, {{"netdev", port.port.netdev}, {"lane", std::to_string(i)}},
              static_cast<double>(c.lanes[i]));
    }
  };
  counter(kFecCorrectedBlocks, kFecLaneCorrectedBlocks, fec.corrected_blocks);
  counter(kFecUncorrectableBlocks, kFecLaneUncorrectableBlocks, fec.uncorrectable_blocks);
}

void HealthModule::collect_module(telemetry::ExpositionWriter& out, const PortHealth& port) {
  const std::string& netdev = port.port.netdev;
  const ModuleReading& optic = port.optic;
  if (!optic.module && optic.unread.empty()) return;  // no module of its own, or not read yet
  out.add(kModuleReadable, {{"netdev", netdev}}, optic.module ? 1 : 0);
  if (!optic.module) return;
  uint32_t alarms = 0, warnings = 0;
  for (const Monitor& m : optic.module->monitors) {
    const Excursion level = excursion(m);
    alarms += level == Excursion::alarm ? 1 : 0;
    warnings += level == Excursion::warning ? 1 : 0;
    const LabelSet lane = {{"netdev", netdev}, {"lane", std::to_string(m.lane)}};
    switch (m.quantity) {
      case Quantity::temperature:
        out.add(kModuleTemperature, {{"netdev", netdev}}, m.value);
        break;
      case Quantity::supply_voltage:
        out.add(kModuleVoltage, {{"netdev", netdev}}, m.value);
        break;
      case Quantity::rx_power:
        out.add(kModuleRxPower, lane, m.value);
        break;
      case Quantity::tx_power:
        out.add(kModuleTxPower, lane, m.value);
        break;
      case Quantity::tx_bias:
        out.add(kModuleTxBias, lane, m.value);
        break;
    }
  }
  if (!optic.module->monitors_implemented) return;
  out.add(kModuleBeyond, {{"netdev", netdev}, {"level", "alarm"}}, alarms);
  out.add(kModuleBeyond, {{"netdev", netdev}, {"level", "warning"}}, warnings);
}

}  // namespace roced::health
