#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks packaging/prometheus/roced-alerts.yml beyond what promtool does: every alert is named
Roce*/Roced*, has a severity (critical/warning/info) and summary and description annotations,
reads only metrics docs/metrics.md lists (or `up`; a histogram through its _bucket, _sum and
_count series), links its section of runbook.md (which has one section per alert and no other)
by a runbook_url on the alerting roced, and roced-alerts.test.yml has for each alert
at least one case where it fires and one where it must stay silent. Stdlib only, so it reads the
block layout these two files use (one `- alert:` per rule, `expr:` inline or as a `|` block)
rather than arbitrary YAML; promtool check rules validates the YAML itself."""

import argparse
import re
import sys

import promql_names

_ALERT = re.compile(r"^\s*- alert:\s*(\S+)\s*$")
_GROUP = re.compile(r"^\s*- name:")
_KEY = re.compile(r"^(\s*)(expr|severity|summary|description|runbook_url):\s*(.*?)\s*$")
_ALERT_NAME = re.compile(r"^Roced?[A-Z][A-Za-z0-9]+$")
SEVERITIES = {"critical", "warning", "info"}
_SECTION = re.compile(r"^## (\S+)\s*$")


def runbook_url(alert):
    """Where an alert's runbook_url points: the section under the external label
    roced_runbook_base when Prometheus has one, else the one roced serves on the alerting node."""
    return ("{{ with $externalLabels.roced_runbook_base }}{{ . }}{{ else }}"
            "http://{{ $labels.instance }}/runbook{{ end }}/" + alert)


def runbook_sections(lines):
    """{alert name: line number} of every `## Name` section of runbook.md."""
    return {m.group(1): index + 1 for index, line in enumerate(lines)
            if (m := _SECTION.match(line))}


def indent(line):
    return len(line) - len(line.lstrip(" "))


def parse_rules(lines):
    """[(alert name, first line number, {key: value})] for every `- alert:` block."""
    alerts = []
    current = None
    index = 0
    while index < len(lines):
        line = lines[index]
        alert = _ALERT.match(line)
        if alert:
            current = (alert.group(1), index + 1, {})
            alerts.append(current)
        elif _GROUP.match(line):
            current = None
        elif current:
            key = _KEY.match(line)
            if key:
                value = key.group(3)
                if value in ("|", "|-", ">", ">-"):
                    # A block scalar: every following line indented deeper than its key.
                    block = []
                    while index + 1 < len(lines) and (
                            not lines[index + 1].strip() or
                            indent(lines[index + 1]) > len(key.group(1))):
                        index += 1
                        block.append(lines[index].strip())
                    value = " ".join(part for part in block if part)
                current[2][key.group(2)] = value.strip("'\"")
        index += 1
    return alerts


def parse_test_cases(lines):
    """{alert name: set of 'fires'/'silent'} from alert_rule_test entries."""
    cases = {}
    alertname = None
    for index, line in enumerate(lines):
        name = re.match(r"^\s*alertname:\s*(\S+)\s*$", line)
        if name:
            alertname = name.group(1)
            continue
        expected = re.match(r"^\s*exp_alerts:\s*(.*?)\s*$", line)
        if expected and alertname:
            if expected.group(1) == "[]":
                kind = "silent"
            elif expected.group(1) == "" and index + 1 < len(lines) and \
                    re.match(r"^\s*- exp_labels:", lines[index + 1]):
                kind = "fires"
            else:
                kind = None
            if kind:
                cases.setdefault(alertname, set()).add(kind)
            alertname = None
    return cases


def check(rules_path, rules_lines, tests_path, tests_lines, known, runbook_path, runbook_lines):
    """known: the documented metrics, as promql_names.known_series gives them (or a set)."""
    known = set(promql_names.as_series(known))
    errors = []
    alerts = parse_rules(rules_lines)
    if not alerts:
        errors.append(f"{rules_path}: no `- alert:` rules found")
    cases = parse_test_cases(tests_lines)
    sections = runbook_sections(runbook_lines)
    seen = set()
    for name, line, fields in alerts:
        where = f"{rules_path}:{line}: {name}"
        if name in seen:
            errors.append(f"{where}: alert name used twice")
        seen.add(name)
        if not _ALERT_NAME.match(name):
            errors.append(f"{where}: name is not CamelCase with the Roce/Roced prefix")
        if fields.get("severity") not in SEVERITIES:
            errors.append(f"{where}: severity {fields.get('severity')!r} is not one of "
                          f"{sorted(SEVERITIES)}")
        for annotation in ("summary", "description"):
            if not fields.get(annotation):
                errors.append(f"{where}: no {annotation} annotation")
        expr = fields.get("expr", "")
        if not expr:
            errors.append(f"{where}: no expr")
        if name not in sections:
            errors.append(f"{where}: {runbook_path} has no section '## {name}'")
        # absent() keeps no labels: there is no instance whose roced could serve the page.
        wanted = None if expr.startswith("absent(") else runbook_url(name)
        if fields.get("runbook_url") != wanted:
            errors.append(f"{where}: runbook_url is {fields.get('runbook_url')!r}, "
                          f"expected {wanted!r}")
        if promql_names.name_matchers(expr):
            errors.append(f"{where}: selects by __name__; name metrics explicitly")
        for metric in sorted(promql_names.metric_names(expr) - known):
            errors.append(f"{where}: metric {metric} is not in docs/metrics.md")
        for kind in ("fires", "silent"):
            if kind not in cases.get(name, set()):
                errors.append(f"{tests_path}: {name}: no test case where it {kind} "
                              f"({'exp_alerts with exp_labels' if kind == 'fires' else 'exp_alerts: []'})")
    for name in sorted(set(sections) - seen):
        errors.append(f"{runbook_path}:{sections[name]}: section for {name}, which "
                      f"{rules_path} does not define")
    for name in sorted(set(cases) - seen):
        errors.append(f"{tests_path}: tests alert {name}, which {rules_path} does not define")
    return errors, len(alerts)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("rules")
    parser.add_argument("tests")
    parser.add_argument("metrics_doc")
    parser.add_argument("runbook")
    args = parser.parse_args()
    try:
        known = promql_names.known_series(args.metrics_doc)
    except (OSError, ValueError) as error:
        print(error, file=sys.stderr)
        return 1
    try:
        with open(args.rules, encoding="utf-8") as rules, open(args.tests, encoding="utf-8") as tests, \
                open(args.runbook, encoding="utf-8") as runbook:
            rules_lines, tests_lines = rules.read().splitlines(), tests.read().splitlines()
            runbook_lines = runbook.read().splitlines()
    except OSError as error:
        print(error, file=sys.stderr)
        return 1
    errors, count = check(args.rules, rules_lines, args.tests, tests_lines, known, args.runbook,
                          runbook_lines)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(f"{args.rules}: OK ({count} alerts, each fires and stays silent in {args.tests})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
