// SPDX-License-Identifier: Apache-2.0
// rocectl validate: check a configuration file the way roced --check-config does (same loader),
// as text on stderr or as one JSON document.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/load_config.hpp"
#include "daemon/config/summary.hpp"

namespace roced::cli {
namespace {

// The validate document's version, its first key.
constexpr const char* kValidateSchema = "roced.validate/v1";

constexpr const char* kValidateUsage =
    "usage: rocectl validate [--json] FILE|-\n"
    "\n"
    "Checks a roced configuration file (docs/config.md): YAML syntax, every key and value, and\n"
    "the rules that tie settings together. Prints every problem as file:line:column: field:\n"
    "message; warnings do not make the file invalid. Changes nothing and talks to no NIC.\n"
    "FILE - reads standard input.\n"
    "\n"
    "options:\n"
    "  --json      print one JSON document: {schema, file, valid, selection, diagnostics: "
    "[{severity,\n"
    "              file, line, column, field, message}]} (docs/config.md)\n"
    "  -h, --help  show this help\n"
    "\n"
    "exit status: 0 valid (warnings allowed), 1 invalid or unreadable.\n";

using Json = nlohmann::ordered_json;

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }
Json place_or_null(int place) { return place > 0 ? Json(place) : Json(nullptr); }

// docs/config.md, "Checking a file".
Json to_json(const std::string& file, const config::LoadResult& loaded) {
  Json diagnostics = Json::array();
  for (const auto& d : loaded.diagnostics) {
    diagnostics.push_back({
        {"severity", config::kSeverityNames.name(d.severity)},
        {"file", d.file},
        {"line", place_or_null(d.line)},
        {"column", place_or_null(d.column)},
        {"field", text_or_null(d.field)},
        {"message", d.message},
    });
  }
  return {{"schema", kValidateSchema},
          {"file", file},
          {"valid", loaded.ok()},
          {"selection", loaded.config ? Json(config::describe_selection(*loaded.config)) : Json()},
          {"diagnostics", std::move(diagnostics)}};
}

}  // namespace

int validate_command(const Context& /*context*/, Args args) {
  bool json = false;
  std::optional<std::string> file;
  while (!args.done()) {
    if (args.flag("-h") || args.flag("--help")) {
      std::cout << kValidateUsage;
      return kExitOk;
    }
    if (args.flag("--json")) {
      json = true;
    } else if (args.peek().size() > 1 && args.peek()[0] == '-') {
      return usage_error("unknown option \"" + args.peek() + "\" for validate", kValidateUsage);
    } else if (file) {
      return usage_error("validate takes one file", kValidateUsage);
    } else {
      file = args.take();
    }
  }
  if (!file) return usage_error("validate needs a file", kValidateUsage);

  if (json) {
    const config::LoadResult loaded = read_config(*file);
    std::cout << to_json(*file == "-" ? "<stdin>" : *file, loaded).dump(2) << "\n";
    return loaded.ok() ? kExitOk : kExitError;
  }
  const auto config = load_config(*file, "rocectl validate FILE checks another file");
  if (!config) return kExitError;
  std::cout << (*file == "-" ? "<stdin>" : *file) << ": valid ("
            << config::describe_selection(*config) << ")\n";
  return kExitOk;
}

}  // namespace roced::cli
