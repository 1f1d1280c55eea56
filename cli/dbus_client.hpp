// SPDX-License-Identifier: Apache-2.0
#pragma once
// rocectl's side of the D-Bus API (docs/dbus.md): finds a running roced that can answer for this
// invocation and calls it. status, plan and apply use it when one runs and read or write the
// ports themselves when none does.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command.hpp"
#include "os/node_lock.hpp"

namespace sdbus {
class IConnection;
class IProxy;
}  // namespace sdbus

namespace roced::cli {

class DaemonClient {
 public:
  struct Properties {
    std::string version;
    std::string config_path;
    std::string sim_dir;  // empty: the daemon runs on this machine
    std::string source;
  };

  DaemonClient(std::unique_ptr<sdbus::IConnection> connection, Properties properties);
  ~DaemonClient();
  DaemonClient(const DaemonClient&) = delete;
  DaemonClient& operator=(const DaemonClient&) = delete;

  const Properties& properties() const { return properties_; }

  // The methods; each returns the JSON document. Throw sdbus::Error (AccessDenied for a caller
  // that is not root, NoReply when the daemon did not answer in time).
  std::string get_status();
  std::string get_plan();
  // The config file as it is on disk now, planned but not taken: the plan and the sections that
  // differ from what roced runs (none: the file is what it runs). Throws sdbus::Error
  // io.roced.Daemon1.Error.InvalidConfig, its message the file's problems, when it is invalid.
  struct PendingPlan {
    std::string plan_json;
    std::vector<std::string> changed_sections;
  };
  PendingPlan get_pending_plan();
  std::string apply();
  // Reload: whether the daemon now runs the file, and the file's problems (file:line:column:
  // field: message) when it does not.
  std::pair<bool, std::vector<std::string>> reload();

 private:
  std::unique_ptr<sdbus::IConnection> connection_;
  std::unique_ptr<sdbus::IProxy> proxy_;
  Properties properties_;
};

struct DaemonChoice {
  std::unique_ptr<DaemonClient> daemon;  // null: read and write the ports directly
  std::string why_direct;                // when null, why ("no roced on the system bus")
  // A roced runs for this node (it holds the node's lock) though it is not `daemon`: it does
  // not answer on the bus, serves another file, or --direct was given.
  std::optional<LockHolder> running;
  bool owned_by_none = false;  // the bus answered: nobody owns io.roced.Daemon1
};

// The daemon answers when all hold: no --direct; a system bus ($DBUS_SYSTEM_BUS_ADDRESS or the
// usual socket) where io.roced.Daemon1 has an owner; it serves the same node (its SimDir equals
// --sim DIR, both made canonical, or both are the real machine); and --config, when given, names
// the file it runs with. Never throws: any failure to ask means direct. A roced that runs for
// the node (its lock held) and will answer on the bus but does not yet (it claims the bus once
// its modules run, a moment after it starts) is waited for, up to half a minute.
DaemonChoice find_daemon(const Context& context, bool direct,
                         const std::optional<std::string>& config);
// The roced on the system bus, whatever node and file it serves (reload is about that daemon).
DaemonChoice find_any_daemon();

// The note on stderr that says which path answered: "rocectl: from roced 0.1.0 over D-Bus
// (config /etc/roced/roced.yaml); --direct to read the ports yourself".
void note_daemon_path(const DaemonClient& daemon);

// Writing the ports directly while a roced runs for the node (DaemonChoice::running): refused
// with the reason on stderr (kExitError), unless --direct asked for it (a warning, then 0). The
// two would write the same ports unpaced: two rails down at once, or roced correcting rocectl.
std::optional<int> refuse_direct_beside_roced(const DaemonChoice& choice, bool direct);

// "roced: only root may call Apply on io.roced.Daemon1 (org.freedesktop.DBus.Error.AccessDenied)"
// on stderr for an error a method returned; returns kExitError.
int daemon_error(const std::exception& error);

}  // namespace roced::cli
