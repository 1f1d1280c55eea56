# SPDX-License-Identifier: Apache-2.0
# Embeds sim/nodes/default.yaml into roce_sim_model as a raw string literal, so default_node()
# parses the very file that documents the default node (one source of truth).
# include() this after add_library(roce_sim_model ...) in sim/model/CMakeLists.txt.
set(ROCE_SIM_DEFAULT_NODE_FILE ${CMAKE_CURRENT_LIST_DIR}/../nodes/default.yaml)
set(ROCE_SIM_GENERATED_DIR ${CMAKE_CURRENT_BINARY_DIR}/generated)
file(READ ${ROCE_SIM_DEFAULT_NODE_FILE} roce_sim_default_node_text)
string(FIND "${roce_sim_default_node_text}" ")roce_sim_yaml\"" roce_sim_delimiter_at)
if(NOT roce_sim_delimiter_at EQUAL -1)
  message(FATAL_ERROR "${ROCE_SIM_DEFAULT_NODE_FILE} contains the raw string delimiter")
endif()
# Re-run CMake (and so regenerate the header) whenever default.yaml changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ROCE_SIM_DEFAULT_NODE_FILE})
file(CONFIGURE OUTPUT ${ROCE_SIM_GENERATED_DIR}/roce_sim_default_node.hpp
  CONTENT "#pragma once
// Generated from sim/nodes/default.yaml by sim/model/embed_default_node.cmake. Do not edit.
namespace roce_sim::embedded {
inline constexpr const char* kDefaultNodeYaml = R\"roce_sim_yaml(@roce_sim_default_node_text@)roce_sim_yaml\";
}  // namespace roce_sim::embedded
"
  @ONLY)
if(TARGET roce_sim_model)
  target_include_directories(roce_sim_model PRIVATE ${ROCE_SIM_GENERATED_DIR})
endif()
