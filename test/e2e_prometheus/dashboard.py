# SPDX-License-Identifier: Apache-2.0
"""The PromQL of a Grafana dashboard JSON, with its template variables substituted the way
Grafana would for one chosen port, so each query can be run against Prometheus."""
import json
import re

from harness import Failure

# $name, ${name}, ${name:format} and the deprecated [[name]].
_VARIABLE = re.compile(r"\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)(?::[^\]]*)?\]\]")


def _panels(panels):
    """Every panel, rows' nested panels included (collapsed rows keep theirs inside)."""
    for panel in panels or []:
        yield panel
        yield from _panels(panel.get("panels"))


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise Failure(f"dashboard {path}: {e}")
    except json.JSONDecodeError as e:
        raise Failure(f"dashboard {path}:{e.lineno}:{e.colno}: not JSON: {e.msg}")


def queries(dashboard):
    """[(panel title, refId, expr)] of every Prometheus target, in panel order."""
    out = []
    rows = dashboard.get("rows") or []  # the pre-5.0 layout
    for panel in list(_panels(dashboard.get("panels"))) + \
            [p for row in rows for p in _panels(row.get("panels"))]:
        for target in panel.get("targets") or []:
            expr = target.get("expr")
            if expr is None:
                continue  # not a Prometheus target
            out.append((panel.get("title", "(untitled)"), target.get("refId", "?"), expr))
    return out


def variables(dashboard):
    """[(name, type, query)] of the dashboard's template variables."""
    out = []
    for var in (dashboard.get("templating") or {}).get("list") or []:
        query = var.get("query")
        if isinstance(query, dict):  # newer Grafana: {"query": "...", "refId": ...}
            query = query.get("query")
        out.append((var.get("name"), var.get("type"), query))
    return out


def substitute(expr, values):
    """expr with every variable replaced; Failure naming any variable not in `values`."""
    unknown = []

    def replace(match):
        name = match.group(1) or match.group(2) or match.group(3)
        if name not in values:
            unknown.append(name)
            return match.group(0)
        return values[name]

    text = _VARIABLE.sub(replace, expr)
    if unknown:
        raise Failure(f"template variable(s) {sorted(set(unknown))} in {expr!r} have no test value")
    return text


_LABEL_VALUES = re.compile(r"^\s*label_values\(\s*(?:(.*),\s*)?(\w+)\s*\)\s*$", re.S)
_QUERY_RESULT = re.compile(r"^\s*query_result\((.*)\)\s*$", re.S)


def variable_promql(query):
    """The PromQL behind a Grafana variable query, and the label whose values it offers
    (None for query_result); (None, None) when the query is not one of Grafana's forms."""
    if not query:
        return None, None
    match = _LABEL_VALUES.match(query)
    if match:
        return (match.group(1) or "{__name__=~\".+\"}"), match.group(2)
    match = _QUERY_RESULT.match(query)
    if match:
        return match.group(1), None
    return None, None
