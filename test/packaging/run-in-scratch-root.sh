#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# run-in-scratch-root.sh CMD [ARGS...]: in-scratch-root.sh with a fresh scratch folder on tmpfs,
# removed afterwards (the overlay is gone with the namespace when CMD ends).
set -euo pipefail
SCRATCH=$(mktemp -d /dev/shm/roced-scratch.XXXXXX)
trap 'rm -rf "$SCRATCH"' EXIT
"$(dirname "${BASH_SOURCE[0]}")/in-scratch-root.sh" "$SCRATCH" -- "$@"
