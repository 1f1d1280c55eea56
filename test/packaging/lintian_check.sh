#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# lintian_check.sh DEBDIR: lintian on the built packages fails on any error or warning. A warning
# kept on purpose is an override in debian/*.lintian-overrides with its reason beside it.
set -euo pipefail
DEBS=$1
changes=("$DEBS"/*.changes)
[[ -e ${changes[0]} ]] || { echo "no .changes in $DEBS (package.build first)"; exit 1; }
echo "lintian $(lintian --version | awk '{print $2}') on ${changes[*]}"
rc=0
lintian --fail-on error,warning --tag-display-limit 0 --show-overrides "${changes[@]}" || rc=$?
echo "lintian exit $rc"
exit "$rc"
