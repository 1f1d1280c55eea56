# SPDX-License-Identifier: Apache-2.0
"""The numbers of sim/scenarios/telemetry.yaml the assertions follow from, read from the file
itself so the test and the scenario cannot disagree in silence. (A few regular expressions over
the flow-style lines the file uses; Python's standard library has no YAML reader.)

The telemetry test plays that scenario's traffic from the start and injects its events, with one
PFC storm added, once roced and Prometheus are ready (for_injection); storm() reads the storm back
from the document injected."""
import re
from dataclasses import dataclass

from harness import Failure

_UNITS = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _seconds(text):
    match = re.fullmatch(r"([0-9.]+)(ms|s)", text)
    if not match:
        raise Failure(f"telemetry scenario: cannot read duration {text!r}")
    return float(match.group(1)) * (1e-3 if match.group(2) == "ms" else 1)


def _rate(text):
    match = re.fullmatch(r"([0-9.]+)([kMGT])", text)
    if not match:
        raise Failure(f"telemetry scenario: cannot read rate {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _fields(line):
    return dict(re.findall(r"(\w+):\s*([^,}\s]+)", line))


@dataclass
class Telemetry:
    port: str  # the congested port
    priority: str
    start_s: float
    duration_s: float
    pause_ratio: float
    ecn_mark_ratio: float
    cnp_rate: float
    tx_bps: float  # offered on the congested port and priority
    rx_bps: float
    packet_size: int


@dataclass
class Storm:
    port: str
    priority: str
    direction: str
    start_s: float
    duration_s: float


def for_injection(path, played_path, injected_path, storm_event, delay_s):
    """Splits the scenario at `path` in two: `played_path`, the scenario without its events (what
    the node plays from the start), and `injected_path`, a document for `roce-sim inject` with
    `storm_event` (one flow-style pfc_storm line, `{at: 0s, kind: pfc_storm, ...}`) first and the
    scenario's events after it, the first of them `delay_s` after the injection and the others
    as far apart as in the scenario."""
    with open(path) as f:
        text = f.read()
    # The events block: from `events:` to the next top-level key or the end.
    block = re.search(r"^events:\n(?:(?:[ \t-].*)?\n)*", text, re.M)
    if not block:
        raise Failure(f"{path}: no `events:` block")
    events = re.findall(r"\{at:[^}]*\}", block.group(0), re.S)
    if not events or re.search(r"kind:\s*pfc_storm", block.group(0)):
        raise Failure(f"{path}: expected events and no pfc_storm among them")
    first = min(_seconds(_fields(event)["at"]) for event in events)

    def shifted(event):
        at = _seconds(_fields(event)["at"]) - first + delay_s
        return re.sub(r"^\{at:\s*[^,]+,", f"{{at: {at:g}s,", event)

    with open(played_path, "w") as f:
        f.write(text[:block.start()] + text[block.end():])
    with open(injected_path, "w") as f:
        f.write("events:\n" + "".join(f"  - {event}\n" for event in
                                      [storm_event] + [shifted(e) for e in events]))


def storm(path):
    """The one pfc_storm event of the scenario at `path`."""
    with open(path) as f:
        text = f.read()
    events = re.findall(r"\{at:[^}]*kind:\s*pfc_storm[^}]*\}", text, re.S)
    if len(events) != 1:
        raise Failure(f"{path}: expected exactly one pfc_storm event, found {len(events)}")
    event = _fields(events[0])
    if event.get("ignores_remediation", "false") != "false":
        raise Failure(f"{path}: the test expects a storm the NIC handles normally")
    return Storm(port=event["port"], priority=event["priority"], direction=event["direction"],
                 start_s=_seconds(event["at"]), duration_s=_seconds(event["duration"]))


def read(path):
    with open(path) as f:
        text = f.read()
    speed = re.search(r"clock:\s*\{speed:\s*([0-9.]+)\}", text)
    if not speed or float(speed.group(1)) != 1:
        # Rates below are per simulated second; at another speed every expected rate (not the
        # totals) would scale by it. The test is written for real time.
        raise Failure(f"{path}: the test expects clock: {{speed: 1}}")
    events = re.findall(r"\{at:[^}]*kind:\s*congestion[^}]*\}", text, re.S)
    if len(events) != 1:
        raise Failure(f"{path}: expected exactly one congestion event, found {len(events)}")
    event = _fields(events[0])
    flows = {}
    for line in re.findall(r"\{port:[^}]*rate:[^}]*\}", text):
        flow = _fields(line)
        if flow["port"] == event["port"] and flow["priority"] == event["priority"]:
            flows[flow["direction"]] = flow
    if set(flows) != {"tx", "rx"}:
        raise Failure(f"{path}: expected a tx and an rx flow on the congested priority")
    sizes = {flows[d].get("packet_size", "4096") for d in flows}
    if len(sizes) != 1:
        raise Failure(f"{path}: the test expects one packet size on the congested priority")
    return Telemetry(port=event["port"], priority=event["priority"],
                     start_s=_seconds(event["at"]), duration_s=_seconds(event["duration"]),
                     pause_ratio=float(event["pause_ratio"]),
                     ecn_mark_ratio=float(event["ecn_mark_ratio"]),
                     cnp_rate=float(event["cnp_rate"]), tx_bps=_rate(flows["tx"]["rate"]),
                     rx_bps=_rate(flows["rx"]["rate"]), packet_size=int(sizes.pop()))
