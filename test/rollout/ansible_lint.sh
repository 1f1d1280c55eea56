#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ansible-lint over the playbook and the role, offline, on a scratch copy so that its caches never
# land in the tree: first plain `ansible-lint` in packaging/ansible, as an operator runs it (it
# finds the playbooks itself, and its default rules include run-once, which the production
# profile over named files did not report), then the strictest profile (production) on the two.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$REPO/packaging/ansible" "$WORK/"
cd "$WORK/ansible"
export HOME=$WORK ANSIBLE_HOME=$WORK/.ansible NO_COLOR=1
echo "== ansible-lint (plain)"
ansible-lint --offline --nocolor
echo "== ansible-lint --profile production site.yml roles/roced"
ansible-lint --offline --nocolor --profile production site.yml roles/roced
