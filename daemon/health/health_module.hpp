// SPDX-License-Identifier: Apache-2.0
#pragma once
// The NIC's own health as one of the service's modules: every health.interval it reads each managed
// uplink's PCIe link from sysfs (no firmware command: the PCI core answers from the config space
// it caches per read) and its PHY counters from the statistics poller (the storm watchdog's
// latest reading, or one GSTATS when the watchdog is off); every health.optics_interval its
// optical module's diagnostics through ethtool netlink; every interval, and at once when the
// kernel notifies a change, the firmware's devlink health reporters (the kernel's own state: no
// firmware command); every interval its FEC and its IEEE 802.3 PHY
// statistics through ethtool netlink (five firmware commands a port); and judges them (health/),
// off the scrape's path; a scrape serves the last reading as metric families and findings. It takes
// the `health:` section; its ports follow the reconciler's.
#include <atomic>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/health/reporter_watch.hpp"
#include "daemon/module/module.hpp"
#include "daemon/reconcile/reconciler.hpp"
#include "devlink/health_reporter.hpp"
#include "ethtool/fec.hpp"
#include "ethtool/module_eeprom.hpp"
#include "ethtool/standard_stats.hpp"
#include "health/fec.hpp"
#include "health/firmware.hpp"
#include "health/pcie_errors.hpp"
#include "health/pcie_link.hpp"
#include "health/phy_errors.hpp"
#include "health/roce_class.hpp"
#include "health/settings.hpp"
#include "health/transceiver.hpp"
#include "os/system.hpp"
#include "sampling/stats_poller.hpp"
#include "util/periodic_task.hpp"
#include "util/time_source.hpp"

namespace roced::health {

// A port whose PCI function is read: the netdev it is known by and its PCI address; how many
// applies the reconciler has made to it, and whether one is under way, so that the link-down
// events of roced's own PFC changes are told from the link's; its RDMA device and port, and the
// priorities the configuration makes lossless (none until the reconciler has planned the port).
struct PciPort {
  std::string netdev;
  std::string pci;
  uint64_t applies = 0;
  bool applying = false;
  std::string rdma_device = {};
  int rdma_port = 0;
  uint8_t lossless = 0;
  std::optional<TimeSource::TimePoint> last_apply = {};  // when it ended
};

// /sys/bus/pci/devices/<pci>/{current,max}_link_{speed,width}, each parsed; what could not be
// read is named in `unread`.
PcieLink read_pcie_link(const FileTree& files, const std::string& pci);

class HealthModule final : public module::Module {
 public:
  using PortList = std::function<std::vector<PciPort>()>;

  // The managed uplinks, as the reconciler knows them now; the history kept in systemd's
  // StateDirectory ($STATE_DIRECTORY/health.json), none without one.
  HealthModule(System& system, reconcile::Reconciler& reconciler, sampling::StatsPoller& stats,
               const HealthSettings& settings, TimeSource& time = real_time());
  // `history`: the file the symbol errors of the last hour are kept in across restarts; empty:
  // none kept.
  HealthModule(System& system, PortList ports, sampling::StatsPoller& stats, TimeSource& time,
               std::filesystem::path history = {}, const HealthSettings& settings = {});

  std::string_view name() const override { return "health"; }
  std::vector<module::Section> sections() const override { return {module::Section::Health}; }
  void start() override;
  void stop() override;
  // New thresholds are judged by from the next reading on; a new interval, or turning the checks
  // off or on, restarts the task (off: no reading, no finding, no metric).
  void reconfigure(const config::Config& before, const config::Config& after) override;
  void reconfigure(const HealthSettings& settings);
  std::vector<finding::Finding> findings() const override;
  void collect(telemetry::ExpositionWriter& out) override;

  // One reading of every port (the task's; tests call it on their own clock).
  void check();

 private:
  // A module's last reading: its diagnostics, or why there are none (empty: the port has no
  // module of its own, or none was read yet).
  struct ModuleReading {
    std::optional<ModuleDiagnostics> module;
    std::string unread;
  };
  struct PortHealth {
    PciPort port;
    PcieLink pcie;
    PcieCounters pcie_counters;
    PhyCounters phy;
    ModuleReading optic = {};
    std::optional<HealthReporterState> fw = {}, fw_fatal = {};  // none: no such reporter
    std::optional<FecState> fec = {};  // none: unread (no carrier, no such op)
    std::optional<double> pre_fec_ber = {};
    std::vector<finding::Finding> findings = {};
  };
  // A port's standard PHY statistics (ETHTOOL_MSG_STATS_GET, eth-phy) and when they were read.
  struct StandardReading {
    std::optional<uint64_t> symbol_errors;  // none: not read, or not set by the driver
    std::chrono::steady_clock::time_point at;
  };
  // Every port's, asked together: one firmware command a port on mlx5.
  std::vector<StandardReading> read_standard(const std::vector<PciPort>& ports);
  PortHealth read(PciPort port, const HealthSettings& settings, const StandardReading& standard);
  // Every port's module, when optics_interval has passed since the last reading.
  void read_modules(std::vector<PortHealth>& now, std::chrono::milliseconds optics_interval);
  static void collect_module(telemetry::ExpositionWriter& out, const PortHealth& port);
  static void collect_fec(telemetry::ExpositionWriter& out, const PortHealth& port);
  // Every port's fw and fw_fatal reporters, counted into their windows and judged.
  void read_reporters(std::vector<PortHealth>& now);
  // Every port's FEC mode and counters, and its pre-FEC bit error rate from them.
  void read_fec(std::vector<PortHealth>& now);
  // A reporter's notification: a reading of every port at once, when it is a managed port's.
  void reporter_changed(const HealthReporterEvent& event);
  // The task's run: every port's reading, or the reporters' alone after a notification.
  void run(std::chrono::milliseconds interval);
  void check_reporters();
  void stop_task();
  void load_history();
  void save_history();
  void log_changes(const std::vector<PortHealth>& now) const;  // under mutex_

  System& system_;
  PortList ports_;
  sampling::StatsPoller& stats_;
  TimeSource& time_;
  mutable std::mutex settings_mutex_;  // settings_: reconfigure writes, the task reads
  HealthSettings settings_;
  // What the readings so far counted, per port: the task's only.
  struct History {
    CounterWindow symbol_errors = symbol_error_window();
    SymbolErrorSource symbol_errors_from = SymbolErrorSource::none;  // the window's counter
    int symbol_errors_missed = 0;  // readings in a row with the other counter only
    CounterWindow link_downs = link_down_window();
    CounterWindow recoveries_rx = signal_integrity_window();
    CounterWindow recoveries_tx = signal_integrity_window();
    CounterWindow firmware_fatal = firmware_error_window();
    CounterWindow firmware_errors = firmware_error_window();
    CounterWindow corrected_bits = corrected_bits_window();
    bool corrected_bits_from_fec = false;  // the window's source: FEC_GET, else ethtool -S
    std::optional<PciPort> last;           // as of the last reading of its link-down counter
    TimeSource::TimePoint counted_at;  // when the device read that counter
    std::optional<ClassSample> sent;  // what it had sent as of the last sample judged
    struct ClassVerdict {
      std::optional<finding::Finding> lossy;
      std::chrono::steady_clock::time_point at;
    };
    std::optional<ClassVerdict> verdict;  // the last judgment of RoCE's class
  };
  // How long a judgment of RoCE's class stands without a new one (too little RoCE since).
  static constexpr std::chrono::minutes kClassVerdictLife{10};
  // RoCE's class, from the RDMA counter and a statistics reading of the same moment.
  void judge_class(PortHealth& health, History& history, const HealthSettings& settings);
  std::map<std::string, History> history_;
  ModuleEepromReader eeprom_;                     // the task's
  HealthReporterReader reporters_;                // the task's
  FecReader fec_;                                 // the task's
  StandardStatsReader phy_stats_;                 // the task's: eth-phy
  std::map<std::string, ModuleReading> modules_;  // the task's: each port's last reading
  std::optional<std::chrono::steady_clock::time_point> modules_read_at_;
  std::filesystem::path history_file_;
  // Kept until each port is first read, then restored into its window.
  std::map<std::string, std::deque<CounterWindow::Step>> restored_;
  std::string saved_;         // what the file holds, so an unchanged history is not written again
  mutable std::mutex mutex_;  // health_: the task writes, scrapes and GetStatus read
  std::vector<PortHealth> health_;
  bool started_ = false;  // start() and stop(), the service's thread's
  std::unique_ptr<PeriodicTask> task_;
  std::unique_ptr<ReporterWatch> watch_;    // while task_ runs
  std::atomic<bool> reporters_due_{false};  // a notification asked for a reading of them
  std::optional<std::chrono::steady_clock::time_point> last_check_;  // the task's: a full one
};

}  // namespace roced::health
