// SPDX-License-Identifier: Apache-2.0
#pragma once
// `roce-sim inject`: scenario documents played into a running node through DIR/inject
// (docs/sim-formats.md). The client renames a request NAME.yaml into place and waits for
// NAME.result; the server (server.cpp) claims a request by renaming it to a dot-file, and a client
// that gives up withdraws its request the same way, so exactly one of them gets it.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace roce_sim::server {

// A request's optional first line names the document in error messages ("storm.yaml:4:37: ..."):
// the lines after it are the document's own, so line numbers stay right.
inline constexpr std::string_view kInjectSourcePrefix = "# roce-sim inject: ";
// How long the client waits for the server's answer.
inline constexpr std::chrono::seconds kInjectTimeout{5};

struct InjectRequest {
  std::string source;    // the name for error messages
  std::string document;  // the scenario document
};

// Splits the source line off a request's text; without one, the source is `file_name`.
InjectRequest parse_inject_request(std::string text, const std::string& file_name);

// "NAME" for a request file "NAME.yaml" (or .yml); nullopt for anything else: dot-files (work in
// progress, claimed requests) and results.
std::optional<std::string> inject_request_stem(const std::string& file_name);

// The client: plays `document` (known as `source`) into the node running in `dir`. Prints what
// went wrong on stderr; returns the exit code (0 accepted, 1 refused or no answer).
int inject(const std::filesystem::path& dir, const std::string& source,
           const std::string& document);

}  // namespace roce_sim::server
