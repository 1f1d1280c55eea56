// SPDX-License-Identifier: Apache-2.0
// roced.yaml -> Config: parse with yaml-cpp, read each section over the defaults, then the
// cross-setting rules (validate.cpp). Every problem is reported, in file order; any error leaves
// LoadResult.config unset.
#include <nettle/sha2.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/config/config.hpp"
#include "daemon/config/read_daemon.hpp"
#include "daemon/config/read_health.hpp"
#include "daemon/config/read_metrics.hpp"
#include "daemon/config/read_probe.hpp"
#include "daemon/config/read_profile.hpp"
#include "daemon/config/read_watchdog.hpp"
#include "daemon/config/validate.hpp"
#include "daemon/yaml/syntax.hpp"

namespace roced::config {

namespace {

using detail::Entry;
using detail::Location;

const std::vector<std::string> kTopKeys = {"daemon", "metrics", "watchdog", "health",
                                           "probe",  "ports",   "profile",  "overrides"};
const std::vector<std::string> kPortKeys = {"drivers", "netdevs", "exclude"};

// Whether `text` is well-formed UTF-8 (no overlong forms or surrogates needed to be caught here:
// only what JSON and D-Bus, which carry the names, refuse outright).
bool valid_utf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const size_t length = lead < 0x80           ? 1
                          : (lead >> 5) == 0x6  ? 2
                          : (lead >> 4) == 0xe  ? 3
                          : (lead >> 3) == 0x1e ? 4
                                                : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

// A netdev name or fnmatch pattern: what the kernel allows in a name (net/core/dev.c
// dev_valid_name: IFNAMSIZ - 1 bytes, not "." or "..", no '/', ':' or white space); a pattern may
// be longer only through its wildcards. Names travel in JSON and on D-Bus: UTF-8 only.
std::optional<std::string> bad_netdev_name(const std::string& name) {
  if (!valid_utf8(name)) return "the name is not valid UTF-8";
  if (name.find_first_of("/: \t\n\r\v\f") != std::string::npos) {
    return "'" + name + "' is not an interface name ('/', ':' and spaces are not allowed)";
  }
  if (name == "." || name == "..") return "'" + name + "' is not an interface name";
  if (const auto open = name.rfind('[');
      open != std::string::npos && name.find(']', open + 1) == std::string::npos) {
    return "'" + name + "' is not a valid pattern: its '[' opens a set that no ']' closes";
  }
  if (name.find_first_of("*?[") == std::string::npos && name.size() > 15) {
    return "'" + name + "' is not an interface name (at most 15 characters)";
  }
  return std::nullopt;
}

void read_names(detail::Reader& reader, const Entry& entry, const std::string& field,
                bool netdev_names, std::vector<std::string>& names,
                std::vector<Location>& locations) {
  names.clear();
  locations.clear();
  const std::string what = netdev_names ? "interface names or patterns" : "driver names";
  reader.list(entry.value, entry.value_at, field, what, [&](const YAML::Node& item, Location at) {
    auto name = reader.string(item, at, field,
                              netdev_names ? "an interface name or pattern" : "a driver name");
    if (!name) return;
    if (netdev_names) {
      if (auto problem = bad_netdev_name(*name)) {
        reader.diagnostics().error(at, field, *problem);
        return;
      }
    }
    names.push_back(*name);
    locations.push_back(at);
  });
}

void read_ports(detail::Reader& reader, const Entry& entry, PortSelection& ports,
                detail::SelectionLocations& where) {
  reader.entries(entry.value, entry.value_at, "ports", kPortKeys, [&](const Entry& e) {
    if (e.key == "drivers") {
      where.drivers = e.key_at;
      read_names(reader, e, "ports.drivers", false, ports.drivers, where.driver_items);
    } else if (e.key == "netdevs") {
      where.netdevs = e.key_at;
      // A value that is not a list ("lan*") is the type error read_names reports, not also a
      // file that names no port.
      where.netdev_entries = e.value.IsSequence() ? e.value.size() : (e.value.IsNull() ? 0 : 1);
      read_names(reader, e, "ports.netdevs", true, ports.netdevs, where.netdev_items);
    } else if (e.key == "exclude") {
      read_names(reader, e, "ports.exclude", true, ports.exclude, where.exclude_items);
    }
  });
}

struct OverrideSection {
  std::string pattern;
  Location at;
  YAML::Node node;
  Location node_at;
};

LoadResult load_document(const YAML::Node& root, const std::string& name) {
  detail::Diagnostics diagnostics(name);
  detail::Reader reader(diagnostics);
  Config config;
  config.path = name;
  config.profile = default_profile();
  detail::SelectionLocations selection_at;
  detail::FieldLocations profile_set;
  std::vector<OverrideSection> override_sections;

  reader.entries(root, detail::location_of(root), "", kTopKeys, [&](const Entry& e) {
    if (e.key == "daemon") {
      detail::read_daemon(reader, e.value, e.value_at, config.daemon);
    } else if (e.key == "metrics") {
      detail::read_metrics(reader, e.value, e.value_at, config.metrics);
    } else if (e.key == "watchdog") {
      detail::read_watchdog(reader, e.value, e.value_at, config.watchdog);
    } else if (e.key == "health") {
      detail::read_health(reader, e.value, e.value_at, config.health);
    } else if (e.key == "probe") {
      detail::read_probe(reader, e.value, e.value_at, config.probe);
    } else if (e.key == "ports") {
      read_ports(reader, e, config.ports, selection_at);
    } else if (e.key == "profile") {
      detail::read_profile(reader, e.value, e.value_at, "profile", config.profile, profile_set);
    } else if (e.key == "overrides") {
      reader.entries(e.value, e.value_at, "overrides", {}, [&](const Entry& o) {
        if (auto problem = bad_netdev_name(o.key)) {
          diagnostics.error(o.key_at, "overrides." + o.key, *problem);
          return;
        }
        override_sections.push_back({o.key, o.key_at, o.value, o.value_at});
      });
    }
  });

  // Overrides apply over the merged `profile`, so they are read once it is complete. Each is
  // checked on its merged profile; fields that failed to read (its own or `profile`'s) are left
  // out of the rules.
  const std::vector<std::string> profile_unreadable = diagnostics.error_fields_under("profile");
  for (const auto& section : override_sections) {
    const std::string prefix = "overrides." + section.pattern;
    PortOverride entry{section.pattern, config.profile};
    detail::FieldLocations set_here;
    detail::read_profile(reader, section.node, section.node_at, prefix, entry.profile, set_here);
    std::vector<std::string> unreadable = diagnostics.error_fields_under(prefix);
    unreadable.insert(unreadable.end(), profile_unreadable.begin(), profile_unreadable.end());
    detail::validate_profile(entry.profile, set_here, unreadable, prefix, true, diagnostics);
    config.overrides.push_back(std::move(entry));
    selection_at.overrides.emplace_back(section.pattern, section.at);
  }
  detail::validate_profile(config.profile, profile_set, profile_unreadable, "profile", false,
                           diagnostics);
  detail::validate_selection(config.ports, selection_at, diagnostics);

  LoadResult result;
  result.diagnostics = diagnostics.sorted();
  if (diagnostics.errors() == 0) result.config = std::move(config);
  return result;
}

Diagnostic whole_file_error(const std::string& name, int line, int column, std::string message) {
  return {Diagnostic::Severity::Error, name, line, column, "", std::move(message)};
}

// Where the first node of the second document in `text` is, when there is one. Not YAML::LoadAll:
// yaml-cpp 0.7 loops for ever on some broken streams ("[]\n,x"), allocating a document a turn
// (jbeder/yaml-cpp#1040, fixed upstream by #1319); the parser is asked for two documents only.
std::optional<Location> second_document(const std::string& text) {
  class FirstNode final : public YAML::EventHandler {
   public:
    std::optional<Location> at;
    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  const std::string&) override {
      note(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
      note(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
      note(mark);
    }
    void OnMapEnd() override {}

   private:
    void note(const YAML::Mark& mark) {
      if (!at) at = mark.is_null() ? Location{} : Location{mark.line + 1, mark.column + 1};
    }
  };
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  FirstNode first;
  FirstNode second;
  if (!parser.HandleNextDocument(first) || !parser.HandleNextDocument(second)) return std::nullopt;
  return second.at.value_or(Location{});
}

}  // namespace

namespace {

// As sha256sum prints it, so an operator can compare the file on disk with what roced runs.
// nettle's SHA-256 rather than OpenSSL's EVP: the first EVP digest initialises OpenSSL's
// providers, some 2 MiB of libcrypto paged in for one hash per load.
std::string sha256_hex(const std::string& text) {
  sha256_ctx context{};
  sha256_init(&context);
  sha256_update(&context, text.size(), reinterpret_cast<const uint8_t*>(text.data()));
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context, sizeof digest, digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < sizeof digest; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

LoadResult load_string(const std::string& text, const std::string& name) {
  if (const auto binary = yaml::not_text(text)) {
    LoadResult result;
    result.diagnostics.push_back(
        whole_file_error(name, binary->line, binary->column, binary->message));
    return result;
  }
  YAML::Node document;
  std::optional<Location> second;
  try {
    document = YAML::Load(text);  // the first document; an empty file has none (all defaults)
    second = second_document(text);
  } catch (const YAML::ParserException& e) {
    LoadResult result;
    const std::string yaml_says = "YAML syntax error: " + e.msg;
    if (const auto plain = yaml::explain_syntax_error(text)) {
      result.diagnostics.push_back(whole_file_error(name, plain->line, plain->column,
                                                    plain->message + " (" + yaml_says + ")"));
    } else {
      result.diagnostics.push_back(
          whole_file_error(name, e.mark.line + 1, e.mark.column + 1, yaml_says));
    }
    return result;
  }
  if (second) {
    LoadResult result;
    result.diagnostics.push_back(whole_file_error(
        name, second->line, second->column,
        "a second YAML document: roced.yaml holds one (remove the '---' separator)"));
    return result;
  }
  LoadResult result = load_document(document, name);
  if (result.config) result.config->sha256 = sha256_hex(text);
  return result;
}

LoadResult load_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    LoadResult result;
    result.diagnostics.push_back(
        whole_file_error(path, 0, 0, "cannot read the file: it is a directory"));
    return result;
  }
  std::ifstream file(path);
  if (!file) {
    LoadResult result;
    result.diagnostics.push_back(
        whole_file_error(path, 0, 0, std::string("cannot read the file: ") + std::strerror(errno)));
    return result;
  }
  std::stringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    LoadResult result;
    result.diagnostics.push_back(whole_file_error(path, 0, 0, "cannot read the file"));
    return result;
  }
  return load_string(text.str(), path);
}

}  // namespace roced::config
