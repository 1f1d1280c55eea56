// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where the build put the programs a test runs and where the tree keeps the data it reads. Each
// target's values are compiled into one small generated source of its own (roced_build_paths()
// in cmake/build_paths.cmake), never given to every source as -D: the tests' objects are then the
// same in every clone of the tree, so ccache serves them to a fresh clone. A path a target did
// not ask for is a link error.

namespace roced::build_paths {
extern const char* const rocectl_binary;
extern const char* const roced_bad_configs;
extern const char* const roced_binary;
extern const char* const roced_dbus_policy;
extern const char* const roced_default_config;
extern const char* const roced_ethtool_fixtures;
extern const char* const roced_golden_dir;
extern const char* const roced_lldp_data;
extern const char* const roced_metrics_doc;
extern const char* const roced_rdma_test_data;
extern const char* const roced_sim_nodes;
extern const char* const roced_sim_scenarios;
extern const char* const roced_source_dir;
extern const char* const roced_unit_file;
extern const char* const roce_sim_binary;
extern const char* const roce_sim_source_dir;
extern const char* const sim_files_data_dir;
extern const char* const sim_source_dir;
}  // namespace roced::build_paths

#define ROCECTL_BINARY (::roced::build_paths::rocectl_binary)
#define ROCED_BAD_CONFIGS (::roced::build_paths::roced_bad_configs)
#define ROCED_BINARY (::roced::build_paths::roced_binary)
#define ROCED_DBUS_POLICY (::roced::build_paths::roced_dbus_policy)
#define ROCED_DEFAULT_CONFIG (::roced::build_paths::roced_default_config)
#define ROCED_ETHTOOL_FIXTURES (::roced::build_paths::roced_ethtool_fixtures)
#define ROCED_GOLDEN_DIR (::roced::build_paths::roced_golden_dir)
#define ROCED_LLDP_DATA (::roced::build_paths::roced_lldp_data)
#define ROCED_METRICS_DOC (::roced::build_paths::roced_metrics_doc)
#define ROCED_RDMA_TEST_DATA (::roced::build_paths::roced_rdma_test_data)
#define ROCED_SIM_NODES (::roced::build_paths::roced_sim_nodes)
#define ROCED_SIM_SCENARIOS (::roced::build_paths::roced_sim_scenarios)
#define ROCED_SOURCE_DIR (::roced::build_paths::roced_source_dir)
#define ROCED_UNIT_FILE (::roced::build_paths::roced_unit_file)
#define ROCE_SIM_BINARY (::roced::build_paths::roce_sim_binary)
#define ROCE_SIM_SOURCE_DIR (::roced::build_paths::roce_sim_source_dir)
#define SIM_FILES_DATA_DIR (::roced::build_paths::sim_files_data_dir)
#define SIM_SOURCE_DIR (::roced::build_paths::sim_source_dir)
