// SPDX-License-Identifier: Apache-2.0
// roce-sim's node description loader (sim/model/node_file.cpp), and the node it describes built.
// Promise: bad input is a FileError naming the place, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/support/check.hpp"
#include "sim/model/node.hpp"
#include "sim/model/node_file.hpp"

using roced::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto specs = roce_sim::parse_node_yaml(text, "node.yaml");
    roce_sim::Node node(specs);
    require(node.ports().size() == specs.size(), "every port described is present");
  } catch (const roce_sim::FileError& error) {
    require(!error.message().empty(), "a FileError says what is wrong");
  }
  return 0;
}
