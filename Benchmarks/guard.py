#!/usr/bin/env python3
"""CI's speed guard: instructions per record on the hot paths, against the
thresholds kept in Benchmarks/thresholds.json, as SwiftNIO keeps its
allocation thresholds.

    Benchmarks/guard.py --binary PATH            # check; exit 1 past a threshold
    Benchmarks/guard.py --binary PATH --update   # write the thresholds measured now

Each figure is (instructions on N2 records - on N1) / (N2 - N1), counted by
callgrind on a copy of the binary without its DWARF (valgrind 3.19 cannot
read Swift's): the difference cancels start-up, and callgrind repeats
exactly for the same binary and input, so a small budget suffices. Start-up
itself (a one-record capture) is guarded too. A figure more than
`--tolerance` (4 %) above its threshold fails; one more than 4 % below it
is reported, so the threshold can be lowered to keep the gain.
"""
import argparse
import json
import os
import subprocess
import sys

from instructions import instructions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THRESHOLDS = os.path.join(ROOT, "Benchmarks", "thresholds.json")
GENERATE = os.path.join(ROOT, "Benchmarks", "generate.py")

# (capture kind, file suffix, small count, large count)
CAPTURES = [("rider", "pcap", 2_000, 12_000), ("btsnoop", "btsnoop", 2_000, 12_000),
            ("falconeye-poses", "pcap", 200, 1_200)]
MODES = [("stats", ["--stats"]), ("summary", []), ("ndjson", ["--format", "ndjson"])]


def measure(binary, data):
    measured = os.path.join(data, "pktbench-without-dwarf")
    subprocess.run(["objcopy", "--strip-debug", binary, measured], check=True)
    figures = {}
    one = os.path.join(data, "rider-1.pcap")
    if not os.path.exists(one):
        subprocess.run([sys.executable, GENERATE, "rider", "1", one], check=True)
    figures["startup"] = instructions([measured, "decode", one, "--stats"])
    for kind, suffix, small, large in CAPTURES:
        paths = []
        for count in (small, large):
            path = os.path.join(data, f"{kind}-{count}.{suffix}")
            if not os.path.exists(path):
                subprocess.run([sys.executable, GENERATE, kind, str(count), path], check=True)
            paths.append(path)
        for mode, flags in MODES:
            a = instructions([measured, "decode", paths[0]] + flags)
            b = instructions([measured, "decode", paths[1]] + flags)
            figures[f"{kind} {mode}"] = round((b - a) / (large - small))
    return figures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True, help="a release build of pktbench")
    parser.add_argument("--update", action="store_true", help="write the thresholds measured now")
    parser.add_argument("--tolerance", type=float, default=0.04)
    parser.add_argument("--data", default=os.path.join(ROOT, "Benchmarks", ".data", "guard"))
    args = parser.parse_args()
    os.makedirs(args.data, exist_ok=True)
    figures = measure(args.binary, args.data)
    if args.update:
        with open(THRESHOLDS, "w") as out:
            json.dump(figures, out, indent=2, sort_keys=True)
            out.write("\n")
        print(f"guard: wrote {len(figures)} thresholds to {os.path.relpath(THRESHOLDS, ROOT)}")
        return 0
    with open(THRESHOLDS) as source:
        thresholds = json.load(source)
    failed = False
    print(f"{'path':28} {'threshold':>11} {'measured':>11} {'change':>8}")
    for name, value in figures.items():
        limit = thresholds.get(name)
        if limit is None:
            print(f"{name:28} {'-':>11} {value:11,} {'new':>8}")
            continue
        change = (value - limit) / limit
        mark = ""
        if change > args.tolerance:
            mark, failed = "  REGRESSION", True
        elif change < -args.tolerance:
            mark = "  faster: lower the threshold (--update)"
        print(f"{name:28} {limit:11,} {value:11,} {change:+8.1%}{mark}")
    if failed:
        print(f"guard: a hot path costs more than {args.tolerance:.0%} over its threshold "
              f"(Benchmarks/thresholds.json); find the change that did it, or say why and --update")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
