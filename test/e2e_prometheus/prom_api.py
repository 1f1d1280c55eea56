# SPDX-License-Identifier: Apache-2.0
"""Prometheus's HTTP API (/api/v1/query, /api/v1/query_range): PromQL in, numbers out."""
import json
import math
import urllib.parse

from harness import Failure, http_get


class PrometheusApi:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}/api/v1"

    def _get(self, path, params):
        url = f"{self.base}/{path}?{urllib.parse.urlencode(params)}"
        status, body = http_get(url)  # harness's timeout: only a hang is too slow
        try:
            reply = json.loads(body) if body else {}
        except json.JSONDecodeError:
            reply = {}
        if status != 200 or reply.get("status") != "success":
            raise Failure(f"{path} {params.get('query')!r}: HTTP {status}: "
                          f"{reply.get('errorType', '')} {reply.get('error', body[:300])}")
        return reply["data"]

    def query(self, promql, at=None):
        """An instant query: the result list ({metric, value} for a vector, {metric, values} for
        a range selector)."""
        params = {"query": promql}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self._get("query", params)["result"]

    def query_range(self, promql, start, end, step=1.0):
        return self._get("query_range", {"query": promql, "start": f"{start:.3f}",
                                         "end": f"{end:.3f}", "step": f"{step}"})["result"]

    def rules(self):
        """/api/v1/rules: the rule groups Prometheus evaluates, each rule with its health."""
        return self._get("rules", {})["groups"]

    def scalar(self, promql, at=None):
        """The value of a query that must give exactly one series; None when it gives none."""
        result = self.query(promql, at)
        if not result:
            return None
        if len(result) != 1:
            raise Failure(f"{promql!r} gave {len(result)} series, expected one: "
                          f"{[r['metric'] for r in result]}")
        return float(result[0]["value"][1])

    def values(self, promql, at=None):
        """{frozenset(labels): value} of an instant vector query."""
        return {frozenset(r["metric"].items()): float(r["value"][1])
                for r in self.query(promql, at)}

    def samples(self, selector, lookback, at=None):
        """The raw samples [(timestamp, value)] of the one series `selector` picks, over the
        last `lookback` (a PromQL duration) before `at`."""
        result = self.query(f"{selector}[{lookback}]", at)
        if len(result) != 1:
            raise Failure(f"{selector!r} gave {len(result)} series, expected one")
        return [(float(t), float(v)) for t, v in result[0]["values"]]

    def all_samples(self, selector, lookback, at=None):
        """{frozenset(labels): [(timestamp, value)]} of every series `selector` picks."""
        return {frozenset(r["metric"].items()): [(float(t), float(v)) for t, v in r["values"]]
                for r in self.query(f"{selector}[{lookback}]", at)}


def within(value, expected, tolerance):
    """value is expected ± tolerance (relative)."""
    return value is not None and not math.isnan(value) and \
        abs(value - expected) <= tolerance * abs(expected)
