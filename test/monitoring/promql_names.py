# SPDX-License-Identifier: Apache-2.0
"""Shared by the monitoring checks: the metric names docs/metrics.md promises, and the metric
names a PromQL expression reads (stdlib only, no PromQL parser packaged for Debian)."""

import re

# The first two cells of a metrics table row: | `roce_link_up` | gauge | ... |; or a recording
# rule's, level:metric:operations (| `roced:probe_loss_ratio:group` | `group` | ... |), typed
# "recorded".
_DOC_ROW = re.compile(r"^\|\s*`((?:roced?|process)_[a-z0-9_]+|roced:[a-z0-9_:]+)`\s*\|\s*([a-z]*)")

# The series Prometheus stores for a histogram X: X_bucket{le=...}, X_sum, X_count. A query names
# these, never X itself (which selects nothing).
HISTOGRAM_SERIES = ("_bucket", "_sum", "_count")

# Names PromQL gives a meaning of its own; they are neither functions nor metrics.
_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
             "group_right", "bool", "offset", "atan2", "inf", "nan"}

# Prometheus adds `up` itself for every target.
PROMETHEUS_METRICS = {"up"}


def documented_types(doc_path):
    """{metric name: type} of docs/metrics.md's tables (first column backticked, second the type's
    first word: counter, gauge, histogram)."""
    types = {}
    with open(doc_path, encoding="utf-8") as doc:
        for line in doc:
            match = _DOC_ROW.match(line)
            if match:
                recorded = ":" in match.group(1)
                types[match.group(1)] = "recorded" if recorded else match.group(2)
    if not types:
        raise ValueError(f"{doc_path}: no metric table rows found (| `roce_...` | ...)")
    return types


def documented_metrics(doc_path):
    """The metric names in docs/metrics.md's tables (first column, backticked)."""
    return set(documented_types(doc_path))


def series_families(types):
    """{name a query may select: the documented metric it belongs to}. A histogram X is queried
    through X_bucket, X_sum and X_count (X itself is no series); every other metric is its own."""
    series = {}
    for name, kind in types.items():
        if kind == "histogram":
            series.update({name + suffix: name for suffix in HISTOGRAM_SERIES})
        else:
            series[name] = name
    return series


def known_series(doc_path):
    """series_families of docs/metrics.md, plus the metrics Prometheus adds itself."""
    series = series_families(documented_types(doc_path))
    series.update({name: name for name in PROMETHEUS_METRICS})
    return series


def as_series(known):
    """known as {series name: metric}; a plain set of names stands for metrics of their own."""
    return dict(known) if isinstance(known, dict) else {name: name for name in known}


def metric_names(expr):
    """Every metric name an expression selects. Strings, label matchers, ranges and the label
    lists of by/without/on/ignoring/group_* go first; what is left that is not a function call,
    a keyword or a number is a metric name."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"'(?:[^'\\]|\\.)*'", "''", text)
    text = re.sub(r"`[^`]*`", "``", text)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w:.$])([A-Za-z_:][\w:]*)(\s*\()?", text):
        word, call = match.group(1), match.group(2)
        if call or word.lower() in _KEYWORDS:
            continue
        names.add(word)
    return names


def name_matchers(expr):
    """True when the expression selects by __name__, which would hide its metric names."""
    return re.search(r"__name__", expr) is not None
