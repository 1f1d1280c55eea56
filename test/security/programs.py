# SPDX-License-Identifier: Apache-2.0
"""The programs a security test runs, from its command line (--roce-sim, --roced, --rocectl)."""
import argparse


def parse():
    parser = argparse.ArgumentParser()
    for name in ("roce-sim", "roced", "rocectl"):
        parser.add_argument(f"--{name}", required=True)
    return parser.parse_args()  # .roce_sim, .roced, .rocectl: what harness.Stack takes
