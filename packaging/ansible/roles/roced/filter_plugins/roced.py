# SPDX-License-Identifier: Apache-2.0
"""Filters that read rocectl's JSON (docs/plan-json.md, docs/dbus.md) for the roced role."""

import json


def _document(text):
    """The JSON document, or {} when rocectl printed none (it failed before it could)."""
    if not isinstance(text, str):
        return text or {}
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return {}


def roced_plan_lines(plan_json):
    """One line per change, unsupported setting and warning of `rocectl apply --check --json`."""
    plan = _document(plan_json)
    lines = []
    for port in plan.get("ports", []):
        name = port["netdev"]
        if port.get("error"):
            lines.append(f"{name}: cannot be planned: {port['error']}")
        for change in port.get("changes", []):
            line = f"{name}: {change['setting']}: {change['now']} -> {change['wanted']}"
            if change.get("disruptive"):
                line += f" (disruptive: {change.get('disruption') or 'traffic stops briefly'})"
            lines.append(line)
        for unsupported in port.get("unsupported", []):
            lines.append(f"{name}: {unsupported['setting']} unsupported: {unsupported['reason']}")
        for warning in port.get("warnings", []):
            lines.append(f"{name}: warning: {warning}")
    for missing in plan.get("not_found", []):
        lines.append(f"{missing}: named by the configuration but not on this node")
    return lines


def roced_plan_disruptive_lines(plan_json):
    """The plan's changes that take a link down (PFC priorities, MTU), one line each."""
    plan = _document(plan_json)
    lines = []
    for port in plan.get("ports", []):
        for change in port.get("changes", []):
            if change.get("disruptive"):
                lines.append(f"{port['netdev']}: {change['setting']}: {change['now']} -> "
                             f"{change['wanted']} ({change.get('disruption') or 'disruptive'})")
    return lines


def roced_idle(status_json):
    """Whether roced answered and runs idle: its file names no port (rocectl status --json)."""
    status = _document(status_json)
    return (status.get("answered_by") == "roced" and not status.get("ports")
            and str((status.get("daemon") or {}).get("status", "")).startswith("idle"))


def roced_ports_not_in_sync(status_json, allow_idle=False):
    """Why roced's own view (rocectl status --json, answered over D-Bus) is not healthy: one line
    per port that is not in-sync; empty when every port it manages is, or, with allow_idle, when
    roced runs idle because its file names no port."""
    status = _document(status_json)
    if status.get("answered_by") != "roced":
        return ["roced did not answer on D-Bus (rocectl read the ports itself): is it running?"]
    if allow_idle and roced_idle(status):
        return []
    problems = []
    for port in status.get("ports", []):
        if port.get("condition") == "in-sync":
            continue
        detail = ", ".join(d["setting"] for d in port.get("drift", []))
        if port.get("condition") == "held":
            # In the storm watchdog's safe state: lossy (or pausing less) until it is released.
            detail = "; ".join(port.get("warnings", []))
        apply = port.get("last_apply") or {}
        if apply.get("error"):
            detail = (detail + "; " if detail else "") + apply["error"]
        elif port.get("error"):
            detail = (detail + "; " if detail else "") + port["error"]
        problems.append(f"{port['netdev']}: {port.get('condition')}" + (f" ({detail})" if detail else ""))
    if not status.get("ports"):
        problems.append("roced manages no port" + (
            "" if allow_idle else " (roced_allow_idle is false)"))
    return problems


class FilterModule:
    def filters(self):
        return {
            "roced_plan_lines": roced_plan_lines,
            "roced_plan_disruptive_lines": roced_plan_disruptive_lines,
            "roced_idle": roced_idle,
            "roced_ports_not_in_sync": roced_ports_not_in_sync,
        }
