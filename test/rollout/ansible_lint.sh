#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ansible-lint's strictest profile (production) over the playbook and the role, offline, on a
# scratch copy so that its caches never land in the tree.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$REPO/packaging/ansible" "$WORK/"
cd "$WORK/ansible"
HOME=$WORK ANSIBLE_HOME=$WORK/.ansible NO_COLOR=1 \
  ansible-lint --offline --nocolor --profile production site.yml roles/roced
