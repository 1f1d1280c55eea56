# SPDX-License-Identifier: Apache-2.0
# Stands in for a monitoring test whose tool is missing: the test fails and says what to install,
# instead of being skipped in silence. Usage: cmake -DTOOL=promtool -DPACKAGE=prometheus -P this
message(FATAL_ERROR "${TOOL} not found: install the Debian package ${PACKAGE} "
                    "(scripts/setup.sh does), then re-run cmake")
