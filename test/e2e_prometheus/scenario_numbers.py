# SPDX-License-Identifier: Apache-2.0
"""The numbers of sim/scenarios/telemetry.yaml the assertions follow from, read from the file
itself so the test and the scenario cannot disagree in silence. (A few regular expressions over
the flow-style lines the file uses; Python's standard library has no YAML reader.)

The telemetry test plays that scenario with one PFC storm added (with_storm); storm() reads the
storm back from the file played."""
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


def with_storm(path, out_path, event):
    """Copies the scenario at `path` to `out_path` with `event` (one flow-style pfc_storm line,
    `{at: 7s, kind: pfc_storm, ...}`) as its first event, unless it already plays a storm."""
    with open(path) as f:
        text = f.read()
    if not re.search(r"kind:\s*pfc_storm", text):
        text, count = re.subn(r"^events:\n", lambda m: f"{m.group(0)}  - {event}\n", text,
                              flags=re.M)
        if count != 1:
            raise Failure(f"{path}: no `events:` line to add the storm to")
    with open(out_path, "w") as f:
        f.write(text)
    return out_path


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
