#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The demo's own set-up (scripts/setup.sh --demo, scripts/build.sh --demo) holds what
scripts/demo.sh runs, since a fresh machine's demo gets nothing else:

- every program of ours demo.sh runs from the build, and roce-sim's plugin and shim (--sim loads
  the one, `roce-sim exec` preloads the other), is a target build.sh --demo builds;
- every other program it runs comes with a package of setup.sh --demo (asked of dpkg -S on this
  machine, where the suite's set-up installed them all);
- the full set-up installs everything the demo's does.

  demo_setup_test.py REPO"""

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
# What demo.sh runs besides our binaries and bash's builtins; each must come with a demo package.
TOOLS = ["dcb", "ip", "ethtool", "python3", "dbus-daemon", "busctl", "curl", "cmake", "ninja",
         "g++", "pkg-config", "ccache"]


def packages(*flags):
    out = subprocess.run([str(REPO / "scripts/setup.sh"), *flags, "--list"], check=True,
                         capture_output=True, text=True).stdout
    return set(out.split())


def main():
    problems = []
    demo = (REPO / "scripts/demo.sh").read_text()
    build = (REPO / "scripts/build.sh").read_text()
    targets = set(re.search(r"--target ([^\n]+)", build).group(1).split())
    ours = set(re.search(r"for exe in ([^;]+); do", demo).group(1).split())
    for target in sorted(ours | {"roce_sim_system", "roce_sim_shim"}):
        if target not in targets:
            problems.append(f"build.sh --demo does not build {target}, which the demo needs")
    for tool in TOOLS:
        if not re.search(rf"(^|[\s\"'(]){re.escape(tool)}\s", demo) and tool not in (
                "cmake", "ninja", "g++", "pkg-config", "ccache"):
            problems.append(f"demo.sh no longer runs {tool}: drop it from this test")
    demo_packages = packages("--demo")
    # A package comes with its direct dependencies (pkg-config is pkgconf's transitional name).
    covered = set(demo_packages)
    for package in demo_packages:
        depends = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", package],
                                 capture_output=True, text=True).stdout
        covered |= {d.split()[0].split(":")[0] for d in re.split(r"[,|]", depends) if d.strip()}
    for tool in TOOLS:
        # Debian's own, not a python3 that a PATH puts first; usrmerge: dpkg may know /sbin/ip.
        path = next((f"{d}/{tool}" for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin")
                     if Path(f"{d}/{tool}").exists()), None)
        if not path:
            problems.append(f"{tool} is not installed here: cannot tell its package")
            continue
        name = Path(path).name
        owners = set()
        for candidate in [f"{d}/{name}" for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin")] + [
                str(Path(path).resolve())]:
            found = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
            owners |= {o.strip().split(":")[0] for line in found.stdout.splitlines()
                       for o in line.rsplit(": ", 1)[0].split(",")}
        if not owners & covered:
            problems.append(f"{tool} ({path}) comes with {sorted(owners) or 'no package'}, "
                            f"none of which setup.sh --demo installs")
    missing = demo_packages - packages()
    if missing:
        problems.append(f"setup.sh without --demo lacks the demo's {sorted(missing)}")
    for problem in problems:
        print("FAIL: " + problem)
    print(f"{len(problems)} problems; demo packages {len(demo_packages)}, targets {sorted(targets)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
