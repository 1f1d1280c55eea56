#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks packaging/grafana/roced.json: it parses, every panel queries the ${datasource} variable
and has a target, every expression reads only metrics docs/metrics.md lists (or `up`; a histogram
through its _bucket, _sum and _count series), uses only the dashboard's variables, rate()s over
$__rate_interval, every documented metric is on some panel, and the template variables are the
agreed ones. Prints one line per problem (file: panel "title": target X: what) and exits 1."""

import argparse
import json
import re
import sys

import promql_names

DATASOURCE_UID = "${datasource}"
VARIABLES = ["datasource", "job", "instance", "netdev", "priority"]
JOB_QUERY = "label_values(roced_build_info, job)"
INSTANCE_QUERY = 'label_values(roced_build_info{job=~"$job"}, instance)'
NETDEV_QUERY = 'label_values(roce_port_info{job=~"$job", instance=~"$instance"}, netdev)'
# The counters RoceLosslessDiscards (roced-alerts.yml) fires on: a panel that counts discards on
# the lossless priorities counts all of them, or it shows 0 while the alert fires.
LOSSLESS_DISCARDS = ("roce_priority_discards_total", "roce_priority_buffer_discards_total",
                     "roce_priority_congestion_discards_total")
_SELECTOR = re.compile(r"\{[^{}]*\}")
# Variables an expression may use: the dashboard's own and Grafana's range helpers.
EXPR_VARIABLES = {"job", "instance", "netdev", "priority", "__rate_interval", "__range"}
RATE_RANGES = {"rate": {"$__rate_interval"}, "irate": {"$__rate_interval"},
               "increase": {"$__rate_interval", "$__range"}}
_RANGE_CALL = re.compile(r"\b(rate|irate|increase)\s*\(")
_RANGE_ARG = re.compile(r"\s*[A-Za-z_:][\w:]*\s*(?:\{[^}]*\})?\s*\[([^\]]+)\]\s*\)")


def all_panels(panels):
    """Panels in layout order; a collapsed row keeps its panels inside it."""
    for panel in panels:
        yield panel
        yield from all_panels(panel.get("panels", []))


def check_expr(expr, known, where, errors):
    """known: {series name: documented metric} (promql_names.known_series)."""
    if promql_names.name_matchers(expr):
        errors.append(f"{where}: selects by __name__; name metrics explicitly so they can be checked")
    histograms = set(known.values()) - set(known)
    for name in sorted(promql_names.metric_names(expr) - set(known)):
        if name in histograms:
            errors.append(f"{where}: metric {name} is a histogram: query its _bucket, _sum or "
                          f"_count series")
        else:
            errors.append(f"{where}: metric {name} is not in docs/metrics.md")
    for variable in re.findall(r"\$\{?(\w+)", expr):
        if variable not in EXPR_VARIABLES:
            errors.append(f"{where}: unknown variable ${variable}")
    if "$instance" not in expr:
        errors.append(f"{where}: does not filter on $instance")
    # Two jobs may scrape one address (a staging Prometheus job, a second port): the node is the
    # job and the instance together.
    for selector in _SELECTOR.findall(expr):
        if "$instance" in selector and 'job=~"$job"' not in selector:
            errors.append(f"{where}: selector {selector} filters on $instance but not $job")
    names = promql_names.metric_names(expr)
    if "roce_config_lossless_priority" in names and names & set(LOSSLESS_DISCARDS):
        for name in LOSSLESS_DISCARDS:
            if name not in names:
                errors.append(f"{where}: counts lossless discards without {name} "
                              f"(RoceLosslessDiscards counts it)")
    for call in _RANGE_CALL.finditer(expr):
        argument = _RANGE_ARG.match(expr, call.end())
        function = call.group(1)
        if not argument:
            errors.append(f"{where}: {function}() of something other than a plain range selector")
        elif argument.group(1) not in RATE_RANGES[function]:
            allowed = " or ".join(sorted(RATE_RANGES[function]))
            errors.append(f"{where}: {function}() over [{argument.group(1)}], use [{allowed}]")


def datasource_uid(node):
    source = node.get("datasource")
    return source.get("uid") if isinstance(source, dict) else source


def check_panels(dashboard, known, errors):
    """Panel structure and queries; returns the metric names the panels read."""
    ids = set()
    used = set()
    panel_count = 0
    for panel in all_panels(dashboard.get("panels", [])):
        title = panel.get("title", "?")
        where = f'panel "{title}"'
        panel_id = panel.get("id")
        if not isinstance(panel_id, int) or panel_id in ids:
            errors.append(f"{where}: id {panel_id!r} missing or not unique")
        ids.add(panel_id)
        grid = panel.get("gridPos", {})
        if not all(isinstance(grid.get(k), int) for k in ("h", "w", "x", "y")) or \
                grid.get("x", 0) + grid.get("w", 0) > 24:
            errors.append(f"{where}: gridPos {grid} is not a valid 24-column position")
        if panel.get("type") == "row":
            continue
        panel_count += 1
        if datasource_uid(panel) != DATASOURCE_UID:
            errors.append(f"{where}: datasource is not {DATASOURCE_UID}")
        targets = panel.get("targets") or []
        if not targets:
            errors.append(f"{where}: no target")
        for target in targets:
            target_where = f"{where}: target {target.get('refId', '?')}"
            if "datasource" in target and datasource_uid(target) != DATASOURCE_UID:
                errors.append(f"{target_where}: datasource is not {DATASOURCE_UID}")
            expr = target.get("expr", "")
            if not expr.strip():
                errors.append(f"{target_where}: empty expr")
                continue
            check_expr(expr, known, target_where, errors)
            used |= {known.get(name, name) for name in promql_names.metric_names(expr)}
    if panel_count == 0:
        errors.append("no panels")
    return used


def variable_query(variable):
    query = variable.get("query", "")
    return query.get("query", "") if isinstance(query, dict) else query


def variable_metrics(query):
    """Metric names of a label_values(selector, label) query (its last argument is a label)."""
    match = re.fullmatch(r"\s*label_values\((.*?)(?:,\s*\w+)?\)\s*", query)
    return promql_names.metric_names(match.group(1)) if match else promql_names.metric_names(query)


def check_variables(dashboard, known, errors):
    known = set(known)
    variables = dashboard.get("templating", {}).get("list", [])
    names = [v.get("name") for v in variables]
    if names != VARIABLES:
        errors.append(f"template variables are {names}, expected {VARIABLES}")
    by_name = {v.get("name"): v for v in variables}

    source = by_name.get("datasource", {})
    if source.get("type") != "datasource" or source.get("query") != "prometheus":
        errors.append('variable datasource: must be type datasource, query "prometheus"')

    for name, query, multi in (("job", JOB_QUERY, None), ("instance", INSTANCE_QUERY, None),
                              ("netdev", NETDEV_QUERY, True)):
        variable = by_name.get(name, {})
        if variable.get("type") != "query" or variable_query(variable) != query:
            errors.append(f"variable {name}: must be a query variable on {query}")
        if datasource_uid(variable) != DATASOURCE_UID:
            errors.append(f"variable {name}: datasource is not {DATASOURCE_UID}")
        if multi and not (variable.get("multi") and variable.get("includeAll")):
            errors.append(f"variable {name}: must be multi-value with All")
        for metric in sorted(variable_metrics(variable_query(variable)) - known):
            errors.append(f"variable {name}: metric {metric} is not in docs/metrics.md")

    priority = by_name.get("priority", {})
    if priority.get("type") == "custom":
        values = [v.strip() for v in variable_query(priority).split(",")]
        if values != [str(p) for p in range(8)]:
            errors.append(f"variable priority: custom values {values}, expected 0..7")
    elif priority.get("type") != "query" or \
            variable_metrics(variable_query(priority)) - known:
        errors.append("variable priority: must be custom 0..7 or a label_values query on roced metrics")
    if not priority.get("multi"):
        errors.append("variable priority: must be multi-value")
    current = priority.get("current", {}).get("value")
    if current not in ("3", ["3"]):
        errors.append(f"variable priority: default is {current!r}, expected 3")


def check_dashboard(dashboard, known):
    """known: the documented metrics, as promql_names.known_series gives them (a plain set of
    names also does, for metrics that are not histograms)."""
    known = promql_names.as_series(known)
    errors = []
    if not isinstance(dashboard, dict):
        return ["the top level is not an object"]
    if not isinstance(dashboard.get("schemaVersion"), int) or dashboard["schemaVersion"] < 36:
        errors.append(f"schemaVersion {dashboard.get('schemaVersion')!r}, expected 36 or later")
    for key in ("title", "uid"):
        if not dashboard.get(key):
            errors.append(f"no {key}")
    check_variables(dashboard, known, errors)
    used = check_panels(dashboard, known, errors)
    # The dashboard shows the whole contract: a metric added to docs/metrics.md needs a panel.
    for name in sorted(set(known.values()) - used - promql_names.PROMETHEUS_METRICS):
        errors.append(f"metric {name} from docs/metrics.md is on no panel")
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dashboard")
    parser.add_argument("metrics_doc")
    args = parser.parse_args()
    try:
        known = promql_names.known_series(args.metrics_doc)
    except (OSError, ValueError) as error:
        print(error, file=sys.stderr)
        return 1
    try:
        with open(args.dashboard, encoding="utf-8") as source:
            dashboard = json.load(source)
    except (OSError, json.JSONDecodeError) as error:
        print(f"{args.dashboard}: {error}", file=sys.stderr)
        return 1
    errors = check_dashboard(dashboard, known)
    for error in errors:
        print(f"{args.dashboard}: {error}", file=sys.stderr)
    if errors:
        return 1
    panels = sum(1 for p in all_panels(dashboard["panels"]) if p.get("type") != "row")
    print(f"{args.dashboard}: OK ({panels} panels, {len(set(known.values()))} metric names known)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
