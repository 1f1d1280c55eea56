#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Parses every expression of packaging/grafana/roced.json with promtool: the Grafana variables
are replaced by values of their kind ($instance by a regex, $__rate_interval by a duration), each
expression becomes a recording rule in a temporary rules file, and `promtool check rules` must
accept it. Catches PromQL typos the name check cannot see (a missing paren, a bad operator)."""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import check_dashboard

# Stand-ins with the shape Grafana substitutes: multi-value variables become regex alternations.
SUBSTITUTES = {"$__rate_interval": "1m", "$__range": "1h", "$instance": "node1:9879|node2:9879",
               "$netdev": "lan3|lan4", "$priority": "3"}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("promtool")
    parser.add_argument("dashboard")
    args = parser.parse_args()
    try:
        with open(args.dashboard, encoding="utf-8") as source:
            dashboard = json.load(source)
    except (OSError, json.JSONDecodeError) as error:
        print(f"{args.dashboard}: {error}", file=sys.stderr)
        return 1
    rules = []
    for panel in check_dashboard.all_panels(dashboard.get("panels", [])):
        for target in panel.get("targets", []):
            expr = target.get("expr", "")
            for variable, value in SUBSTITUTES.items():
                expr = expr.replace(variable, value)
            rules.append({"record": f"dashboard:panel_{panel.get('id')}_{target.get('refId')}",
                          "expr": expr})
    if not rules:
        print(f"{args.dashboard}: no expressions", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as directory:
        # JSON is YAML: promtool reads this file as a rules file.
        path = os.path.join(directory, "dashboard-rules.yml")
        with open(path, "w", encoding="utf-8") as out:
            json.dump({"groups": [{"name": "dashboard", "rules": rules}]}, out, indent=1)
        result = subprocess.run([args.promtool, "check", "rules", path], capture_output=True,
                                text=True, check=False)
    if result.returncode != 0:
        # promtool names the rule: dashboard:panel_<id>_<refId>.
        print(result.stdout + result.stderr, file=sys.stderr)
        return 1
    print(f"{args.dashboard}: promtool parsed all {len(rules)} expressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
