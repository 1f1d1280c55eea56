"""Shared by the monitoring checks: the metric names docs/metrics.md promises, and the metric
names a PromQL expression reads (stdlib only, no PromQL parser packaged for Debian)."""

import re

# The first cell of a metrics table row: | `roce_link_up` | gauge | ... |
_DOC_ROW = re.compile(r"^\|\s*`(roced?_[a-z0-9_]+)`\s*\|")

# Names PromQL gives a meaning of its own; they are neither functions nor metrics.
_KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
             "group_right", "bool", "offset", "atan2", "inf", "nan"}

# Prometheus adds `up` itself for every target.
PROMETHEUS_METRICS = {"up"}


def documented_metrics(doc_path):
    """The metric names in docs/metrics.md's tables (first column, backticked)."""
    names = set()
    with open(doc_path, encoding="utf-8") as doc:
        for line in doc:
            match = _DOC_ROW.match(line)
            if match:
                names.add(match.group(1))
    if not names:
        raise ValueError(f"{doc_path}: no metric table rows found (| `roce_...` | ...)")
    return names


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
