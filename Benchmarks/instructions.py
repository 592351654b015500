#!/usr/bin/env python3
"""Instructions per record and per fuzz execution, counted by callgrind.

    Benchmarks/instructions.py [--binary PATH] [--data DIR]

Wall time on this machine drifts by up to a fifth within half an hour, so a
change of a few per cent cannot be told from the weather by timing alone.
Instruction counts repeat exactly. They are not time (a mispredicted branch
or a cache miss costs more than an instruction), so a change should win on
both: fewer instructions here, and faster in alternated timings (run.py).

Each figure is a difference of two runs, which cancels what does not grow
with the input (start-up, the codec registry, the report):

- decode: (instructions on 100,000 records - on 10,000) / 90,000, for each
  output mode, on the first records of the benchmark's Rider and btsnoop
  captures (written by generate.py, the same generator as run.py's files),
  and (on 5,000 - on 1,000) / 4,000 for FalconEye pose broadcasts over a
  WebSocket (generate.py falconeye-poses: nested JSON, 17-digit timestamps);
- fuzz: (instructions for 2N iterations - for N) / N per target, seed 1.

valgrind 3.19 cannot read the DWARF the Swift toolchain writes ("possibly
corrupted debuginfo"), so the binary is measured through a copy without it
(objcopy --strip-debug); the symbols stay, so callgrind_annotate still names
functions when run by hand on the same copy.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Fuzz iterations per target (N; the run with 2N is the other): about a
# tenth of a second of native work each.
FUZZ_ITERATIONS = {"rider": 10_000, "legctrl": 40_000, "rallie": 40_000, "falconeye": 2_000,
                   "pcap": 5_000, "websocket": 10_000, "hci": 20_000, "btsnoop": 20_000}


def instructions(cmd):
    """Instructions callgrind counts for `cmd` (its output discarded)."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if not found:
        sys.exit(f"callgrind gave no count for {' '.join(cmd)}:\n{proc.stderr[-2000:]}")
    return int(found.group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "pktbench"),
                        help="the pktbench to measure (default: the release build; built when missing)")
    parser.add_argument("--data", default=os.path.join(ROOT, "Benchmarks", ".data"))
    parser.add_argument("--skip-fuzz", action="store_true")
    parser.add_argument("--spec", action="append", default=[],
                        help="also measure the btsnoop LegCtrl log with this spec replacing the built-in codec "
                             "(Specs/legctrl.ksy), row by row beside it")
    args = parser.parse_args()

    if not shutil.which("valgrind"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "valgrind"], check=True, stdout=subprocess.DEVNULL)
    if not os.path.exists(args.binary):
        subprocess.run(["swift", "build", "-c", "release", "--package-path", ROOT, "--product", "pktbench"],
                       check=True, stdout=subprocess.DEVNULL)
    os.makedirs(args.data, exist_ok=True)
    measured = os.path.join(args.data, "pktbench-without-dwarf")
    subprocess.run(["objcopy", "--strip-debug", args.binary, measured], check=True)

    print(f"{'capture':22} {'mode':18} {'instructions/record':>20}")
    # Pose broadcasts are some 3 KB of nested JSON each: fewer of them.
    for kind, suffix, counts in [("rider", "pcap", (10_000, 100_000)), ("btsnoop", "btsnoop", (10_000, 100_000)),
                                 ("falconeye-poses", "pcap", (1_000, 5_000))]:
        paths = []
        for count in counts:
            path = os.path.join(args.data, f"{kind}-{count // 1000}k.{suffix}")
            if not os.path.exists(path):
                subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), kind, str(count),
                                path], check=True)
            paths.append(path)
        for label, flags in [("--stats", ["--stats"]), ("summary", []), ("ndjson", ["--format", "ndjson"]),
                             ("-V", ["-V"])]:
            small = instructions([measured, "decode", paths[0]] + flags)
            large = instructions([measured, "decode", paths[1]] + flags)
            print(f"{kind:22} {label:18} {(large - small) / (counts[1] - counts[0]):20,.0f}", flush=True)
            if kind != "btsnoop":
                continue
            for spec in args.spec:
                spec_flags = flags + ["--spec", os.path.join(ROOT, spec)]
                small = instructions([measured, "decode", paths[0]] + spec_flags)
                large = instructions([measured, "decode", paths[1]] + spec_flags)
                name = f"  {os.path.basename(spec)}"
                print(f"{name:22} {label:18} {(large - small) / (counts[1] - counts[0]):20,.0f}", flush=True)

    if args.skip_fuzz:
        return
    print(f"\n{'fuzz target':22} {'iterations':>10} {'instructions/execution':>24}")
    for target, n in FUZZ_ITERATIONS.items():
        runs = []
        for iterations in (n, 2 * n):
            runs.append(instructions([measured, "fuzz", "--codec", target, "--iterations", str(iterations),
                                      "--seed", "1", "--crashes", os.path.join(args.data, "crashes")]))
        print(f"{target:22} {n:10,} {(runs[1] - runs[0]) / n:24,.0f}", flush=True)


if __name__ == "__main__":
    main()
