// SPDX-License-Identifier: Apache-2.0
#include "cli/pending_plan.hpp"

#include <sdbus-c++/sdbus-c++.h>

#include <iostream>

#include "cli/daemon_documents.hpp"
#include "daemon/dbus/names.hpp"

namespace roced::cli {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::optional<DaemonPlan> ask_pending_plan(DaemonClient& daemon) {
  const std::string& path = daemon.properties().config_path;
  try {
    DaemonClient::PendingPlan pending = daemon.get_pending_plan();
    DaemonPlan out{plan_from_json(nlohmann::ordered_json::parse(pending.plan_json)),
                   std::move(pending.changed_sections)};
    if (!out.changed_sections.empty()) {
      std::cerr << "rocectl: " << path << " differs from the configuration roced runs ("
                << joined(out.changed_sections)
                << " changed since it was loaded): this plan is the file's, what `rocectl "
                   "reload` or `rocectl apply` would make roced do\n";
    }
    return out;
  } catch (const sdbus::Error& e) {
    if (e.getName() == dbus::kErrorInvalidConfig) {
      std::cerr << e.getMessage() << "\nrocectl: " << path
                << ": invalid; roced keeps running the configuration it has\n";
      return std::nullopt;
    }
    daemon_error(e);
    return std::nullopt;
  } catch (const std::exception& e) {
    daemon_error(e);
    return std::nullopt;
  }
}

}  // namespace roced::cli
