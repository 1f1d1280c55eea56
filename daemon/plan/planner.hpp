// SPDX-License-Identifier: Apache-2.0
#pragma once
// Internal to plan_port: the per-port planning context and one function per setting (or group
// of settings that share a read). Each compares the desired profile with the observed status and
// records a Change, an Unsupported or a read error on the PortPlan.

#include <string>

#include "daemon/plan/plan.hpp"
#include "daemon/settings/describe.hpp"

namespace roced::plan::detail {

namespace describe = settings::describe;

struct PortPlanner {
  const config::Profile& want;
  const PortStatus& have;
  PortPlan& out;

  void change(Setting setting, std::string now, std::string wanted, std::string key = {});
  void disruptive_change(Setting setting, std::string now, std::string wanted,
                         std::string disruption);
  void unsupported(Setting setting, std::string reason, std::string key = {});
  // "cannot read <what>: <reason>", once per read (several settings share one).
  void read_error(const std::string& what, const std::string& reason);
  void warn(std::string warning) { out.warnings.push_back(std::move(warning)); }

  // The field's value; nullptr after recording why there is none (unsupported, or a read error
  // that keeps the port from being planned).
  template <class T>
  const T* need(const Field<T>& field, Setting setting, const std::string& what,
                const std::string& key = {}) {
    if (field.ok()) return &*field.value;
    if (field.unsupported_here()) {
      unsupported(setting, field.reason, key);
    } else {
      read_error(what, field.reason);
    }
    return nullptr;
  }
};

// plan_rdma.cpp
void plan_gid(PortPlanner& p);  // no change: the RoCE v2 GID index and its warnings
// plan_mlx5_only.cpp: a non-mlx5 port's DCB, buffers, stall prevention and ECN, all unsupported
void plan_mlx5_only_unsupported(PortPlanner& p);

}  // namespace roced::plan::detail
