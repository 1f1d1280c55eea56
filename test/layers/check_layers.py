#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layers run one way (docs/ARCHITECTURE.md): every #include of the product goes to a lower
layer, the product never includes the simulator, and the roced and rocectl binaries hold no
simulator code (they load it only for --sim).

Usage: check_layers.py SOURCE_DIR [BUILD_DIR]. Exit 1 and one line per violation."""
import pathlib
import re
import subprocess
import sys

# Lowest first. A folder may include its own files and any folder of a lower rank, nothing else.
RANKS = [
    ["util"],
    ["os", "finding"],
    ["dcb", "devlink", "driver", "ethtool", "link", "rdma"],
    ["lldp"],
    ["port", "sampling"],
    ["health", "probe", "telemetry", "watchdog", "write"],
    ["qualify"],
    ["daemon/yaml", "daemon/log"],
    ["daemon/settings"],
    ["daemon/config"],
    ["daemon/module"],
    ["daemon/plan"],
    ["daemon/apply"],
    ["daemon/reconcile"],
    ["daemon/health", "daemon/probe", "daemon/watchdog", "daemon/lldp"],
    ["daemon/dbus", "daemon/service"],
    ["daemon/telemetry", "daemon/findings"],
    ["daemon", "cli"],
]
# The simulator's folders: they meet the product only at the kernel's interfaces, except its
# transports, which implement the OS seam's interfaces.
SIMULATOR = {
    "sim/model": {"sim/model"},
    "sim/server": {"sim/model", "sim/server"},
    "sim/transport": {"sim/transport", "os"},
    "sim/inprocess": {"sim/inprocess", "sim/model", "sim/server", "sim/transport", "os", "util"},
}
RANK = {folder: rank for rank, folders in enumerate(RANKS) for folder in folders}


def folder_of(path: str) -> str:
    parts = path.split("/")
    if parts[0] in ("daemon", "sim") and len(parts) > 2:
        return "/".join(parts[:2])
    return parts[0]


def include_violations(root: pathlib.Path) -> list[str]:
    problems = []
    for source in sorted(root.rglob("*")):
        relative = source.relative_to(root).as_posix()
        if source.suffix not in (".cpp", ".hpp", ".c", ".h") or relative.startswith(
                ("build", "test/", "bench/", "fuzz/", ".git")):
            continue
        here = folder_of(relative)
        for number, line in enumerate(source.read_text().splitlines(), 1):
            match = re.match(r'\s*#\s*include\s+"([^"]+/[^"]+)"', line)
            if not match:
                continue
            there = folder_of(match.group(1))
            if here == there:
                continue
            if here in SIMULATOR:
                allowed = there in SIMULATOR[here]
            elif here in RANK:
                allowed = there in RANK and RANK[there] < RANK[here]
            else:
                continue  # packaging, systemd, scripts: no C++ layers
            if not allowed:
                problems.append(f"{relative}:{number}: {here} includes {match.group(1)} ({there})")
    return problems


def binary_violations(build: pathlib.Path) -> list[str]:
    problems = []
    for binary in ("bin/roced", "bin/rocectl"):
        symbols = subprocess.run(["nm", "-C", str(build / binary)], check=True,
                                 capture_output=True, text=True).stdout
        found = sorted({line.split()[-1] for line in symbols.splitlines()
                        if "roce_sim" in line})
        if found:
            problems.append(f"{binary}: holds simulator code: {', '.join(found[:5])}")
    if not (build / "lib/roced/roce-sim-system.so").exists():
        problems.append("lib/roced/roce-sim-system.so: not built (--sim could not load it)")
    return problems


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    problems = include_violations(root)
    if len(sys.argv) > 2:
        problems += binary_violations(pathlib.Path(sys.argv[2]))
    for problem in problems:
        print(problem)
    if not problems:
        print("layers: every include runs downward; roced and rocectl hold no simulator code")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
