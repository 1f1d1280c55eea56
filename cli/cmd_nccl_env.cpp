// SPDX-License-Identifier: Apache-2.0
// rocectl nccl-env: the NCCL variables that point jobs at the ports roced manages, as shell
// `export` lines (eval "$(rocectl nccl-env)").
#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/load_config.hpp"
#include "cli/open_node.hpp"
#include "cli/output_file.hpp"
#include "cli/signals_to_stop.hpp"
#include "daemon/config/config.hpp"
#include "daemon/config/read_daemon.hpp"
#include "daemon/plan/plan.hpp"
#include "os/system.hpp"
#include "port/gid_owners.hpp"
#include "rdma/gid.hpp"

namespace roced::cli {
namespace {

constexpr const char* kNcclUsage =
    "usage: rocectl [--sim DIR] nccl-env [--config FILE] [--pods] [--json | --format "
    "shell|env|json]\n"
    "                                    [--output FILE [--every DURATION]]\n"
    "\n"
    "Prints the variables that point NCCL and UCX jobs at the ports the configuration selects:\n"
    "  NCCL_IB_HCA        the ports' RDMA devices and ports, \"=mlx5_0:1,mlx5_1:1,...\"; the "
    "leading\n"
    "                     '=' makes NCCL match names exactly (without it mlx5_1 also matches "
    "mlx5_10)\n"
    "  NCCL_IB_GID_INDEX  the RoCE v2 GID index of the configured family (roce.gid_family), "
    "only\n"
    "                     when it is the same on every port; otherwise a comment says why it "
    "is left\n"
    "                     out and NCCL picks each port's RoCE v2 GID itself\n"
    "  NCCL_IB_TC         the configured RoCE ToS byte (roce.tos), e.g. 106 = DSCP 26 + ECT(0)\n"
    "  NCCL_SOCKET_IFNAME the ports' netdevs, \"=lan2,lan3\" (exact names): NCCL's bootstrap "
    "and\n"
    "                     socket traffic on the rails' addresses\n"
    "  UCX_NET_DEVICES    the same RDMA devices and ports for UCX, \"mlx5_0:1,mlx5_1:1\"\n"
    "  UCX_IB_GID_INDEX   as NCCL_IB_GID_INDEX\n"
    "  UCX_IB_TRAFFIC_CLASS  as NCCL_IB_TC (UCX's default on RoCE v2 is 106 too)\n"
    "With --pods, for jobs in pods on macvlan over the ports (each pod's GID index is its own):\n"
    "  no fixed GID index; NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY (AF_INET or "
    "AF_INET6,\n"
    "  from roce.gid_family) and an NCCL_IB_ADDR_RANGE of the pod's own address, which the pod's\n"
    "  shell reads: by these NCCL 2.21 and later picks the pod's own GID. A pod with a netdev on\n"
    "  every rail (net1 on the first, net2 on the second, ...) has one address per rail, which "
    "one\n"
    "  range cannot name: its shell looks up its own RoCE v2 GID index on each rail instead and\n"
    "  sets NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX when the rails agree.\n"
    "Use: eval \"$(rocectl nccl-env)\". A file that jobs source (. FILE): --format shell.\n"
    "\n"
    "options:\n"
    "  --config FILE  the configuration (default /etc/roced/roced.yaml)\n"
    "  --pods         the variables for jobs in pods, not on the host\n"
    "  --format F     shell (export lines, the default), env (NAME=VALUE lines for an\n"
    "                 EnvironmentFile= or a docker env file; not with --pods, whose values are\n"
    "                 read in the pod) or json (roced.nccl-env/v1, docs/status-json.md)\n"
    "  --json         the same as --format json\n"
    "  --output FILE  write FILE instead of standard output, only when its content changes:\n"
    "                 a temporary file beside it, mode 0644, renamed over it (a reader never\n"
    "                 sees half a file)\n"
    "  --every D      with --output: read the configuration and the node again every D (60s,\n"
    "                 5m; 1s to 24h) until SIGTERM or SIGINT, since a port's RoCE v2 GID index\n"
    "                 moves when addresses come and go; a line on stderr when the content\n"
    "                 changes; a failed reading leaves FILE as it is until the next one\n"
    "  --sim DIR      read the simulated node in DIR instead of this machine\n"
    "  -h, --help     show this help\n"
    "\n"
    "exit status: 0 ok (--every: stopped by SIGTERM or SIGINT), 1 error (invalid configuration,\n"
    "no selected port with an RDMA device, FILE not written).\n";

enum class Format { Shell, Env, JsonText };

// --every's bounds: more often than a second reads the node for nothing (a GID index moves when
// an address is added or removed, which takes a person or a CNI); less often than a day leaves a
// moved index unseen for too long.
constexpr std::chrono::seconds kMinEvery{1};
constexpr std::chrono::hours kMaxEvery{24};

// What nccl-env says, in order: variables with their value, notes, and for pods the shell lines
// that compute a value inside the pod.
struct EnvDocument {
  struct Entry {
    enum Kind { Variable, Note, InPod } kind;
    std::string name;   // Variable, InPod: the variable(s) it sets
    std::string value;  // Variable: its value; Note: the text; InPod: the shell lines
  };
  std::vector<Entry> entries;
  void set(const std::string& name, const std::string& value) {
    entries.push_back({Entry::Variable, name, value});
  }
  void note(const std::string& text) { entries.push_back({Entry::Note, "", text}); }
  void in_pod(const std::string& names, const std::string& shell) {
    entries.push_back({Entry::InPod, names, shell});
  }
};

// "lan2 3, lan3 5, lan4 none"
std::string per_port_indexes(const std::vector<const plan::PortPlan*>& ports) {
  std::string out;
  for (const auto* port : ports) {
    if (!out.empty()) out += ", ";
    out += port->port.netdev + " " +
           (port->roce_v2_gid_index ? std::to_string(*port->roce_v2_gid_index) : "none");
  }
  return out;
}

// Pods on macvlan over the ports, seen by their GID entries: netdevs this namespace lacks. The
// whole table is read (the plan stops at the host's own entry), once per port.
struct PodGids {
  size_t entries = 0;
  size_t ports = 0;
  std::set<std::string> netdevs;
  // Per port (in the order given), the pods' netdev names on it.
  std::vector<std::vector<std::string>> per_port;
  std::string names() const {
    std::string out;
    for (const auto& name : netdevs) out += (out.empty() ? "" : ", ") + name;
    return out;
  }
  // A pod with a netdev per rail: each port's pods have one name, and the names differ
  // (net1 on the first rail, net2 on the second).
  bool multi_rail() const {
    if (netdevs.size() < 2) return false;
    return std::all_of(per_port.begin(), per_port.end(),
                       [](const auto& names) { return names.size() == 1; });
  }
};

PodGids find_pod_gids(System& system, const std::vector<const plan::PortPlan*>& ports) {
  PodGids pods;
  auto owners = GidOwners::of(system);
  for (const auto* port : ports) {
    pods.per_port.emplace_back();
    auto table = rdma::read_gid_table(*system.files, port->port.rdma_device, port->port.rdma_port);
    if (!table) continue;
    owners.mark(*table);
    const auto foreign = rdma::foreign_entries(*system.files, *table);
    pods.entries += foreign.count;
    pods.ports += foreign.count > 0 ? 1 : 0;
    pods.netdevs.insert(foreign.netdevs.begin(), foreign.netdevs.end());
    pods.per_port.back() = foreign.netdevs;
  }
  return pods;
}

// The pod's RoCE v2 GID index of its own IPv4 address on every rail (RDMA device, port, the
// pod's netdev on that rail), printed only when the rails agree: NCCL_IB_GID_INDEX and
// UCX_IB_GID_INDEX are one number for every device. gids/N is the GID as sysfs prints it
// (core/sysfs.c show_port_gid: eight groups of four hex digits), gid_attrs/types/N "RoCE v2".
std::string pod_gid_index_script(const std::vector<const plan::PortPlan*>& ports,
                                 const PodGids& pods) {
  std::string rails;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (pods.per_port[i].size() != 1) continue;
    rails += " " + ports[i]->port.rdma_device + ":" + std::to_string(ports[i]->port.rdma_port) +
             ":" + pods.per_port[i].front();
  }
  return "roced_pod_gid_index() {\n"
         "  index=\n"
         "  for rail in" +
         rails +
         "; do\n"
         "    dev=${rail%%:*}; rest=${rail#*:}; port=${rest%%:*}; ifname=${rest#*:}\n"
         "    addr=$(ip -o -4 addr show dev \"$ifname\" scope global | awk '{split($4, a, "
         "\"/\"); print a[1]; exit}')\n"
         "    [ -n \"$addr\" ] || { echo \"no IPv4 address on $ifname\" >&2; return 1; }\n"
         "    gid=0000:0000:0000:0000:0000:ffff:$(printf '%02x%02x:%02x%02x' $(echo \"$addr\" | "
         "tr . ' '))\n"
         "    found=\n"
         "    for f in /sys/class/infiniband/$dev/ports/$port/gids/*; do\n"
         "      n=${f##*/}\n"
         "      [ \"$(cat \"$f\")\" = \"$gid\" ] && [ \"$(cat "
         "/sys/class/infiniband/$dev/ports/$port/gid_attrs/types/$n 2>/dev/null)\" = \"RoCE "
         "v2\" ] && { found=$n; break; }\n"
         "    done\n"
         "    [ -n \"$found\" ] || { echo \"no RoCE v2 GID of $addr on $dev\" >&2; return 1; }\n"
         "    [ -z \"$index\" ] || [ \"$index\" = \"$found\" ] || { echo \"the pod's RoCE v2 GID "
         "index differs between rails ($index, $found on $dev)\" >&2; return 1; }\n"
         "    index=$found\n"
         "  done\n"
         "  echo \"$index\"\n"
         "}\n"
         "if index=$(roced_pod_gid_index); then export NCCL_IB_GID_INDEX=$index "
         "UCX_IB_GID_INDEX=$index; fi";
}

// A pod sees the whole table, the host's and every other pod's entries included: upstream's
// rdma_query_gid_table (core/cache.c) does not filter by namespace. NCCL 2.21 and later, with
// IB_GID_INDEX at its default -1, keeps the first entry of IB_ROCE_VERSION_NUM whose address is
// of IB_ADDR_FAMILY and inside IB_ADDR_RANGE (src/transport/net_ib ncclIbGetGidIndex): only a
// range of the pod's own address makes that entry the pod's. NVIDIA's ib_core refuses another
// namespace's GID outright (rdma_check_gid_user_access: ENODEV when the QP is connected).
// IB_ADDR_RANGE is one range: a pod with an address on each rail gets its index looked up.
void pod_variables(const std::vector<const plan::PortPlan*>& ports, const PodGids& pods,
                   const std::set<std::string>& families, EnvDocument& doc) {
  doc.set("NCCL_IB_ROCE_VERSION_NUM", "2");
  std::string pod_netdevs;
  for (const auto& name : pods.netdevs) pod_netdevs += (pod_netdevs.empty() ? "=" : ",") + name;
  doc.set("NCCL_SOCKET_IFNAME", pod_netdevs.empty() ? "=net1" : pod_netdevs);
  if (families.size() != 1) {
    doc.note(
        "NCCL_IB_ADDR_FAMILY and NCCL_IB_ADDR_RANGE left unset: roce.gid_family differs between "
        "ports");
    return;
  }
  const bool ipv6 = *families.begin() == "ipv6";
  doc.set("NCCL_IB_ADDR_FAMILY", ipv6 ? "AF_INET6" : "AF_INET");
  if (pods.multi_rail()) {
    if (ipv6) {
      doc.note("NCCL_IB_GID_INDEX left unset: the pods have a netdev on each rail (" +
               pods.names() +
               ") and one NCCL_IB_ADDR_RANGE cannot name each rail's address; the lookup of the "
               "pod's own index is IPv4 only");
      return;
    }
    doc.note("The pods have a netdev on each rail (" + pods.names() +
             "): one NCCL_IB_ADDR_RANGE cannot name each rail's address, so the pod's shell "
             "looks up its own RoCE v2 GID index on every rail and sets it when they agree:");
    doc.in_pod("NCCL_IB_GID_INDEX UCX_IB_GID_INDEX", pod_gid_index_script(ports, pods));
    return;
  }
  doc.note(
      "NCCL_IB_GID_INDEX left unset: each pod's RoCE v2 GID has an index of its own, which "
      "NCCL (2.21 and later) finds by version, address family and range");
  const std::string netdev = pods.netdevs.size() == 1 ? *pods.netdevs.begin() : "net1";
  doc.note(std::string("A pod sees every pod's GID entries and the host's; NCCL takes the first "
                       "in its range, so the range is the pod's own address, read in the pod") +
           (pods.netdevs.size() == 1 ? "" : " (its netdev on the rail; net1 assumed)") + ":");
  doc.in_pod("NCCL_IB_ADDR_RANGE", "export NCCL_IB_ADDR_RANGE=\"$(ip -o -" +
                                       std::string(ipv6 ? "6" : "4") + " addr show dev " + netdev +
                                       " scope global | awk '{split($4, a, \"/\"); print a[1] \"/" +
                                       (ipv6 ? "128" : "32") + "\"; exit}')\"");
}

void pod_note(const PodGids& pods, EnvDocument& doc) {
  if (pods.entries == 0) return;
  doc.note(std::to_string(pods.entries) + " GID entries on " + std::to_string(pods.ports) +
           " of the ports belong to netdevs in other network namespaces (" + pods.names() +
           "): pods on macvlan.");
  doc.note("The index above is the host's; for jobs in pods: rocectl nccl-env --pods");
}

std::string render_shell(const EnvDocument& doc) {
  std::string out;
  for (const auto& entry : doc.entries) {
    switch (entry.kind) {
      case EnvDocument::Entry::Variable:
        out += "export " + entry.name + "=" + entry.value + "\n";
        break;
      case EnvDocument::Entry::Note:
        out += "# " + entry.value + "\n";
        break;
      case EnvDocument::Entry::InPod:
        out += entry.value + "\n";
        break;
    }
  }
  return out;
}

// systemd's EnvironmentFile= and docker's --env-file: NAME=VALUE, '#' comments, no quoting.
std::string render_env(const EnvDocument& doc) {
  std::string out;
  for (const auto& entry : doc.entries) {
    if (entry.kind == EnvDocument::Entry::Variable) out += entry.name + "=" + entry.value + "\n";
    if (entry.kind == EnvDocument::Entry::Note) out += "# " + entry.value + "\n";
  }
  return out;
}

// docs/status-json.md: {schema, variables: {NAME: value}, in_pod: [{sets, shell}], notes: [..]}.
std::string render_json(const EnvDocument& doc, bool pods) {
  nlohmann::ordered_json variables = nlohmann::ordered_json::object();
  nlohmann::ordered_json in_pod = nlohmann::ordered_json::array();
  nlohmann::ordered_json notes = nlohmann::ordered_json::array();
  for (const auto& entry : doc.entries) {
    if (entry.kind == EnvDocument::Entry::Variable) variables[entry.name] = entry.value;
    if (entry.kind == EnvDocument::Entry::Note) notes.push_back(entry.value);
    if (entry.kind == EnvDocument::Entry::InPod) {
      nlohmann::ordered_json sets = nlohmann::ordered_json::array();
      std::string names = entry.name;
      for (size_t at = 0; at != std::string::npos;) {
        const size_t space = names.find(' ', at);
        sets.push_back(names.substr(at, space == std::string::npos ? space : space - at));
        at = space == std::string::npos ? space : space + 1;
      }
      in_pod.push_back({{"sets", std::move(sets)}, {"shell", entry.value}});
    }
  }
  nlohmann::ordered_json out = {{"schema", "roced.nccl-env/v1"},
                                {"for", pods ? "pods" : "host"},
                                {"variables", std::move(variables)},
                                {"in_pod", std::move(in_pod)},
                                {"notes", std::move(notes)}};
  return out.dump(2) + "\n";
}

struct NcclOptions {
  std::string config_path = "/etc/roced/roced.yaml";
  bool for_pods = false;
  Format format = Format::Shell;
};

// What nccl-env prints for `config` on `system`, or why it cannot say.
Rendering render_nccl_env(System& system, const config::Config& config,
                          const NcclOptions& options) {
  const bool for_pods = options.for_pods;
  const plan::Plan plan = plan::make_plan(system, config);
  if (!plan.error.empty()) return {std::nullopt, plan.error};

  EnvDocument doc;
  std::vector<const plan::PortPlan*> rdma_ports;
  for (const auto& port : plan.ports) {
    if (port.port.rdma_device.empty()) {
      doc.note(port.port.netdev + " has no RDMA device: not in NCCL_IB_HCA");
    } else {
      rdma_ports.push_back(&port);
    }
  }
  if (rdma_ports.empty()) {
    return {std::nullopt,
            options.config_path + " selects no port with an RDMA device on " + system.description};
  }

  std::string hca;
  std::string ucx_devices;
  std::string netdevs;
  std::set<std::optional<int>> indexes;
  std::set<int> tos;
  std::set<std::string> families;
  for (const auto* port : rdma_ports) {
    const std::string device = port->port.rdma_device + ":" + std::to_string(port->port.rdma_port);
    hca += (hca.empty() ? "=" : ",") + device;
    // UCX takes device:port names as they are (ucp_context.c NET_DEVICES: a list of
    // <device>:<port>, matched whole), with no '=' prefix.
    ucx_devices += (ucx_devices.empty() ? "" : ",") + device;
    netdevs += (netdevs.empty() ? "=" : ",") + port->port.netdev;
    indexes.insert(port->roce_v2_gid_index);
    tos.insert(port->desired.roce.tos);
    families.insert(port->desired.roce.gid_family);
  }
  doc.set("NCCL_IB_HCA", hca);
  const PodGids pods = find_pod_gids(system, rdma_ports);
  if (for_pods) {
    pod_variables(rdma_ports, pods, families, doc);
  } else {
    // NCCL's socket interfaces are prefixes unless '=' makes them exact names, as for
    // NCCL_IB_HCA (NCCL's environment variables: NCCL_SOCKET_IFNAME).
    doc.set("NCCL_SOCKET_IFNAME", netdevs);
    if (indexes.size() == 1 && *indexes.begin()) {
      doc.set("NCCL_IB_GID_INDEX", std::to_string(**indexes.begin()));
    } else {
      const bool missing = indexes.count(std::nullopt) > 0;
      doc.note(std::string("NCCL_IB_GID_INDEX left unset, and UCX_IB_GID_INDEX: ") +
               (missing ? "a port has no RoCE v2 GID of the configured family"
                        : "the RoCE v2 GID index differs between ports") +
               " (" + per_port_indexes(rdma_ports) + ")");
    }
  }
  if (tos.size() == 1) {
    doc.set("NCCL_IB_TC", std::to_string(*tos.begin()));
  } else {
    doc.note(
        "NCCL_IB_TC left unset, and UCX_IB_TRAFFIC_CLASS: the configured roce.tos differs "
        "between ports");
  }
  doc.set("UCX_NET_DEVICES", ucx_devices);
  if (!for_pods && indexes.size() == 1 && *indexes.begin()) {
    // UCX's GID_INDEX (uct/ib/base/ib_md.c) is one index for every device, as NCCL's.
    doc.set("UCX_IB_GID_INDEX", std::to_string(**indexes.begin()));
  }
  if (tos.size() == 1) {
    // uct/ib/base/ib_iface.c TRAFFIC_CLASS: the whole traffic class byte (its "auto" is 106 on
    // RoCE v2, DSCP 26 with ECT(0)), as NCCL_IB_TC.
    doc.set("UCX_IB_TRAFFIC_CLASS", std::to_string(*tos.begin()));
  }
  if (!for_pods) pod_note(pods, doc);
  switch (options.format) {
    case Format::Shell:
      return {render_shell(doc), ""};
    case Format::Env:
      return {render_env(doc), ""};
    case Format::JsonText:
      break;
  }
  return {render_json(doc, for_pods), ""};
}

// The configuration read again for a run of --every: its diagnostics in the error, once, rather
// than on stderr every run.
std::optional<config::Config> reread_config(const std::string& path, std::string& error) {
  config::LoadResult loaded = read_config(path);
  if (loaded.ok()) return std::move(loaded.config);
  error = path + " is not a valid configuration";
  for (const auto& diagnostic : loaded.diagnostics) error += "; " + diagnostic.to_string();
  return std::nullopt;
}

}  // namespace

int nccl_env_command(const Context& context, Args cli_args) {
  NcclOptions options;
  std::optional<std::string> output;
  std::optional<std::chrono::milliseconds> every;
  while (!cli_args.done()) {
    std::string value;
    std::string error;
    if (cli_args.flag("-h") || cli_args.flag("--help")) {
      std::cout << kNcclUsage;
      return kExitOk;
    }
    if (cli_args.flag("--pods")) {
      options.for_pods = true;
    } else if (cli_args.flag("--json")) {
      options.format = Format::JsonText;
    } else if (cli_args.option("--format", value, error)) {
      if (value == "shell") {
        options.format = Format::Shell;
      } else if (value == "env") {
        options.format = Format::Env;
      } else if (value == "json") {
        options.format = Format::JsonText;
      } else {
        return usage_error("--format takes shell, env or json", kNcclUsage);
      }
    } else if (cli_args.option("--config", value, error)) {
      if (!error.empty() || value.empty()) return usage_error("--config needs a file", kNcclUsage);
      options.config_path = value;
    } else if (cli_args.option("--output", value, error)) {
      if (!error.empty() || value.empty()) return usage_error("--output needs a file", kNcclUsage);
      output = value;
    } else if (cli_args.option("--every", value, error)) {
      every = error.empty() ? config::detail::parse_duration(value) : std::nullopt;
      if (!every || *every < kMinEvery || *every > kMaxEvery) {
        return usage_error("--every takes a duration from 1s to 24h, e.g. 60s or 5m", kNcclUsage);
      }
    } else {
      return usage_error("unknown argument \"" + cli_args.peek() + "\" for nccl-env", kNcclUsage);
    }
  }
  if (options.for_pods && options.format == Format::Env) {
    return usage_error(
        "--pods has values only the pod's shell can read (its own address): --format env cannot "
        "carry them",
        kNcclUsage);
  }
  if (every && !output) {
    return usage_error("--every needs --output FILE: it keeps a file up to date", kNcclUsage);
  }
  if (every && options.config_path == "-") {
    return usage_error("--every reads the configuration again each time: not from stdin",
                       kNcclUsage);
  }

  if (every) {
    std::optional<System> node = open_node(context);
    if (!node) return kExitError;
    StopSignal stop;
    const SignalsToStop signals(stop, "stopping");
    keep_written(
        real_time(), stop, *every, *output,
        [&]() -> Rendering {
          std::string error;
          const auto config = reread_config(options.config_path, error);
          if (!config) return {std::nullopt, error};
          return render_nccl_env(*node, *config, options);
        },
        std::cerr);
    return kExitOk;
  }

  const auto config = load_config(options.config_path);
  if (!config) return kExitError;
  std::optional<System> node = open_node(context);
  if (!node) return kExitError;
  const Rendering rendering = render_nccl_env(*node, *config, options);
  if (!rendering.text) {
    std::cerr << "rocectl: " << rendering.error << "\n";
    return kExitError;
  }
  if (!output) {
    std::cout << *rendering.text;
    return kExitOk;
  }
  const auto written = write_if_changed(*output, *rendering.text);
  if (!written) {
    std::cerr << "rocectl: " << written.error().message << "\n";
    return kExitError;
  }
  if (*written == Written::Changed) std::cerr << "rocectl: wrote " << *output << "\n";
  return kExitOk;
}

}  // namespace roced::cli
