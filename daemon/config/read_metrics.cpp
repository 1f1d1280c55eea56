// SPDX-License-Identifier: Apache-2.0
// Reads the `metrics:` section over the defaults (MetricsSettings).
#include "daemon/config/read_metrics.hpp"

#include "daemon/config/read_daemon.hpp"

namespace roced::config {

namespace detail {

namespace {

const std::vector<std::string> kMetricsKeys = {"enabled",  "listen",         "basic_auth",   "tls",
                                               "families", "max_sample_age", "rdma_interval"};
const std::vector<std::string> kFamiliesKeys = {"include", "exclude"};
const std::vector<std::string> kBasicAuthKeys = {"username", "password_hash"};
const std::vector<std::string> kTlsKeys = {"certificate"};

// crypt(3) prefixes libxcrypt verifies that are worth storing a password with.
bool is_password_hash(const std::string& hash) {
  for (const char* prefix : {"$2b$", "$2y$", "$2a$", "$y$", "$gy$", "$7$", "$6$", "$5$"}) {
    if (hash.rfind(prefix, 0) == 0) return hash.size() > std::string(prefix).size() + 8;
  }
  return false;
}

// A duration from 0 to a minute: how old a served reading may be, how often one is made.
void read_short_duration(Reader& reader, const Entry& e, const std::string& what,
                         std::chrono::milliseconds& setting) {
  const auto value = e.value.IsScalar() ? parse_duration(e.value.Scalar()) : std::nullopt;
  if (!value || *value > std::chrono::minutes(1)) {
    reader.diagnostics().error(e.value_at, "metrics." + e.key, "expected " + what + ", at most 1m");
    return;
  }
  setting = *value;
}

void read_basic_auth(Reader& reader, const Entry& entry, MetricsSettings& settings) {
  MetricsSettings::BasicAuth auth;
  bool has_user = false;
  bool has_hash = false;
  reader.entries(
      entry.value, entry.value_at, "metrics.basic_auth", kBasicAuthKeys, [&](const Entry& e) {
        const std::string field = "metrics.basic_auth." + e.key;
        if (e.key == "username") {
          if (auto name = reader.string(e.value, e.value_at, field, "a user name")) {
            if (name->find(':') != std::string::npos) {
              reader.diagnostics().error(e.value_at, field, "a user name may not contain ':'");
            } else {
              auth.username = *name;
              has_user = true;
            }
          }
        } else if (e.key == "password_hash") {
          auto hash = reader.string(e.value, e.value_at, field, "a crypt(3) hash");
          if (!hash) return;
          if (!is_password_hash(*hash)) {
            reader.diagnostics().error(
                e.value_at, field,
                "expected a crypt(3) hash ($2b$... from `mkpasswd -m bcrypt` or "
                "`htpasswd -nB`, $y$... from `mkpasswd`), not a plain password");
            return;
          }
          auth.password_hash = *hash;
          has_hash = true;
        }
      });
  if (!has_user || !has_hash) {
    const bool broken = !reader.diagnostics().error_fields_under("metrics.basic_auth").empty();
    if (!broken) {
      reader.diagnostics().error(entry.key_at, "metrics.basic_auth",
                                 std::string("needs both username and password_hash (missing ") +
                                     (has_user ? "password_hash" : "username") + ")");
    }
    return;
  }
  settings.basic_auth = auth;
}

// A list of family patterns: roced's families all begin with roce_ or roced_, and a pattern of
// anything else would silently match nothing.
void read_family_patterns(Reader& reader, const Entry& entry, const std::string& field,
                          std::vector<std::string>& out) {
  out.clear();
  reader.list(entry.value, entry.value_at, field, "metric family names or patterns",
              [&](const YAML::Node& item, Location at) {
                auto pattern = reader.string(item, at, field, "a metric family name or pattern");
                if (!pattern) return;
                if (pattern->rfind("roce", 0) != 0 ||
                    pattern->find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_*?[]!-") !=
                        std::string::npos) {
                  reader.diagnostics().error(
                      at, field,
                      "'" + *pattern +
                          "' is no metric family pattern: roced's families are roce_<name> and "
                          "roced_<name> (docs/metrics.md), e.g. roce_rdma_* or "
                          "roce_priority_bytes_total");
                  return;
                }
                out.push_back(*pattern);
              });
}

}  // namespace

void read_metrics(Reader& reader, const YAML::Node& node, Location where,
                  MetricsSettings& settings) {
  reader.entries(node, where, "metrics", kMetricsKeys, [&](const Entry& e) {
    if (e.key == "enabled") {
      if (auto value = reader.choice(e.value, e.value_at, "metrics.enabled", {"true", "false"})) {
        settings.enabled = *value == "true";
      }
    } else if (e.key == "listen") {
      auto text = reader.string(e.value, e.value_at, "metrics.listen", "HOST:PORT");
      if (!text) return;
      std::string problem;
      if (!parse_listen_address(*text, problem)) {
        reader.diagnostics().error(e.value_at, "metrics.listen", problem);
        return;
      }
      settings.listen = *text;
    } else if (e.key == "basic_auth") {
      read_basic_auth(reader, e, settings);
    } else if (e.key == "max_sample_age") {
      read_short_duration(reader, e,
                          "a duration such as 500ms or 2s (0: every scrape reads the NICs)",
                          settings.max_sample_age);
    } else if (e.key == "rdma_interval") {
      read_short_duration(reader, e, "a duration such as 1s or 5s (0: every scrape reads them)",
                          settings.rdma_interval);
    } else if (e.key == "families") {
      reader.entries(e.value, e.value_at, "metrics.families", kFamiliesKeys, [&](const Entry& f) {
        read_family_patterns(reader, f, "metrics.families." + f.key,
                             f.key == "include" ? settings.include : settings.exclude);
      });
    } else if (e.key == "tls") {
      reader.entries(e.value, e.value_at, "metrics.tls", kTlsKeys, [&](const Entry& t) {
        auto path = reader.string(t.value, t.value_at, "metrics.tls.certificate",
                                  "the path of a PEM file (certificate and private key)");
        if (!path) return;
        if (path->front() != '/') {
          reader.diagnostics().error(t.value_at, "metrics.tls.certificate",
                                     "'" + *path + "' is not an absolute path");
          return;
        }
        settings.tls_certificate = *path;
      });
    }
  });
}

}  // namespace detail

}  // namespace roced::config
