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
echo "== roles/roced/meta/main.yml against ansible-lint's own schema, trixie added"
# .ansible-lint makes schema[meta] a warning (its schema lacks trixie); this keeps it strict.
python3 - "$(python3 -c 'import sys; sys.path.insert(0, "/usr/lib/python3/dist-packages"); import importlib.util as u; print(u.find_spec("ansiblelint").submodule_search_locations[0])')/schemas/meta.json" roles/roced/meta/main.yml <<'PY'
import json
import sys

import jsonschema
import yaml

schema = json.load(open(sys.argv[1]))
enum = schema["$defs"]["DebianPlatformModel"]["properties"]["versions"]["items"]["enum"]
if "trixie" not in enum:
    enum.append("trixie")
meta = yaml.safe_load(open(sys.argv[2]))
errors = list(jsonschema.Draft7Validator(schema).iter_errors(meta))
for error in errors:
    print(f"meta/main.yml: {list(error.absolute_path)}: {error.message}")
sys.exit(1 if errors else 0)
PY
