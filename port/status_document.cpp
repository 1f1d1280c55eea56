// SPDX-License-Identifier: Apache-2.0
#include "port/status_document.hpp"

namespace roced {

namespace {

using Json = nlohmann::ordered_json;

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

}  // namespace

nlohmann::ordered_json status_port_entry(const DiscoveredPort& port, PortView view,
                                         nlohmann::ordered_json observed) {
  return {{"netdev", port.netdev},
          {"rdma_device", text_or_null(port.rdma_device)},
          {"rdma_port", port.rdma_device.empty() ? Json(nullptr) : Json(port.rdma_port)},
          {"rdma_driver", text_or_null(port.rdma_driver)},
          {"condition", std::move(view.condition)},
          {"drift", std::move(view.drift)},
          {"unsupported", std::move(view.unsupported)},
          {"warnings", std::move(view.warnings)},
          {"findings", std::move(view.findings)},
          {"error", std::move(view.error)},
          {"last_check", std::move(view.last_check)},
          {"last_apply", std::move(view.last_apply)},
          {"consecutive_failures", std::move(view.consecutive_failures)},
          {"next_retry", std::move(view.next_retry)},
          {"observed", std::move(observed)},
          // roced's, when it listens for the port's switch (daemon/lldp); rocectl reading the
          // ports itself has no neighbours to show.
          {"peer", nullptr}};
}

nlohmann::ordered_json status_port_entry(const PortStatus& status) {
  PortView view;
  if (!status.link.ok()) view.error = status.link.error;
  return status_port_entry(status.port, std::move(view), status.to_json());
}

nlohmann::ordered_json StatusDocument::to_json() const {
  Json others = Json::array();
  for (const auto& port : other_rdma) {
    others.push_back(
        {{"netdev", port.netdev},
         {"driver", port.driver},
         {"rdma_device", text_or_null(port.rdma_device)},
         {"rdma_port", port.rdma_device.empty() ? Json(nullptr) : Json(port.rdma_port)},
         {"rdma_driver", text_or_null(port.rdma_driver)}});
  }
  Json listed = nullptr;
  if (functions) {
    listed = Json::array();
    for (const auto& function : *functions) {
      listed.push_back(
          {{"netdev", function.netdev},
           {"role", kPortRoleNames.name(function.role)},
           {"of", text_or_null(function.parent)},
           {"detail", function.role_detail},
           {"mtu", function.role == PortRole::Upper ? Json(function.upper_mtu) : Json(nullptr)}});
    }
  }
  return {{"schema", kStatusSchema},
          {"answered_by", answered_by},
          {"source", source},
          {"daemon", daemon},
          {"ports", ports},
          {"unmatched", unmatched},
          {"other_rdma_ports", std::move(others)},
          {"functions", std::move(listed)}};
}

}  // namespace roced
