// SPDX-License-Identifier: Apache-2.0
#pragma once
// roced's Prometheus endpoint as a service attachment: made once the first reconcile is done,
// serving until roced stops. A failure to listen is logged and roced goes on configuring ports
// without it (the ports matter more than the endpoint), trying to listen again on a backoff.

#include <memory>
#include <optional>
#include <string>

#include "daemon/service/service.hpp"

namespace roced::metrics {

struct MetricsOptions {
  std::optional<std::string> listen;  // --metrics-listen: wins over metrics.listen, enables
  bool disabled = false;              // --no-metrics
  std::string version;
};

std::unique_ptr<service::Service::Attachment> attach_metrics(service::Service& service,
                                                             const MetricsOptions& options);

}  // namespace roced::metrics
