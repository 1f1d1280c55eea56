#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks JSON documents against one of roced's schemas (docs/schema/*.json) with Debian's
python3-jsonschema: check_json.py SCHEMA DOCUMENT... Prints every violation with where it is;
exit status 1 when there is one (or a document is no JSON), 0 otherwise."""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) < 3:
        print("usage: check_json.py SCHEMA DOCUMENT...", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    failed = False
    for path in argv[2:]:
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except ValueError as e:
            print(f"{path}: not JSON: {e}")
            failed = True
            continue
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            # For "any of": the alternative that came closest, not the whole value.
            error = jsonschema.exceptions.best_match([error] + list(error.context or []))
            where = "/".join(str(p) for p in error.absolute_path) or "(the document)"
            print(f"{path}: {where}: {error.message[:300]}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
