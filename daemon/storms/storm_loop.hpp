#pragma once
// The storm watchdog's poll loop: every poll_interval, the ethtool counters of every target port
// (nothing else: one ioctl trio per port), fed to a watchdog::StormWatch with the port's lossless
// priorities. Events go to the listener. Alert only: acting on a storm (disable-pfc,
// stall-prevention through the applier) is issue 6's remaining work.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "daemon/discovery.hpp"
#include "netlink/system.hpp"
#include "watchdog/settings.hpp"
#include "watchdog/storm_watch.hpp"

namespace roced::storms {

struct WatchedPort {
  DiscoveredPort port;
  uint8_t lossless = 0;  // the profile's PFC priorities
};

class StormLoop {
 public:
  using Targets = std::function<std::vector<WatchedPort>()>;
  using Listener = std::function<void(const watchdog::PortStormEvent&)>;

  // `targets` is asked again every targets_refresh (ports come and go, profiles change).
  StormLoop(System& system, watchdog::WatchdogSettings settings, Targets targets,
            Listener listener);
  ~StormLoop();  // stop()
  StormLoop(const StormLoop&) = delete;
  StormLoop& operator=(const StormLoop&) = delete;

  void start();
  void stop();

  uint64_t polls() const { return polls_; }

 private:
  void run();
  void poll_once(const std::vector<WatchedPort>& ports);

  System& system_;
  const watchdog::WatchdogSettings settings_;
  Targets targets_;
  Listener listener_;
  watchdog::StormWatch watch_;
  std::vector<std::string> last_netdevs_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::atomic<uint64_t> polls_{0};
  std::thread thread_;
};

}  // namespace roced::storms
