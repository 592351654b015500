#!/usr/bin/env python3
"""pktbench's benchmark suite: one command, one table.

    Benchmarks/run.py [--runs 3] [--large] [--data DIR]

Builds pktbench (release), writes the synthetic captures once (reused after;
see generate.py), then times each decode mode on each capture and, where
installed, tcpdump and tshark on the same files. Every figure is the median
of --runs runs, with min and max beside it; peak RSS comes from
/usr/bin/time. Then `decode` of four files with one job and with one per core, and
last the fuzz runner's executions per second per target, on one core and with --jobs
as many as the machine has.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKTBENCH = os.path.join(ROOT, ".build", "release", "pktbench")


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def warm(path):
    """Reads `path` once, so that a timed run reads it from the page cache. This
    machine's memory reclaim (DAMON) drops a file's pages within minutes, and the
    first mode timed on each file used to pay for the disk: `--stats` on the
    mixed session took 0.58 s cold and 0.33 s warm."""
    with open(path, "rb") as f:
        while f.read(1 << 24):
            pass


def timed(cmd, runs, path):
    """(median s, min s, max s, peak RSS MB) of `cmd` with stdout to /dev/null,
    `path` read into the page cache before each run."""
    walls, rss = [], []
    for _ in range(runs):
        warm(path)
        start = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        walls.append(time.monotonic() - start)
        numbers = re.findall(r"^(\d+)\s*$", proc.stderr, re.M)
        rss.append(int(numbers[-1]) / 1024 if numbers else float("nan"))
    return statistics.median(walls), min(walls), max(walls), max(rss)


def records(path):
    out = subprocess.run([PKTBENCH, "decode", path, "--stats", "--format", "json"], capture_output=True,
                         text=True).stdout
    return int(re.search(r'"records":(\d+)', out).group(1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--large", action="store_true", help="also the 10M-packet Rider capture")
    parser.add_argument("--data", default=os.path.join(ROOT, "Benchmarks", ".data"))
    parser.add_argument("--fuzz-seconds", type=int, default=10)
    args = parser.parse_args()

    if not os.path.exists("/usr/bin/time"):
        sh(["apt-get", "install", "-y", "-qq", "time"], stdout=subprocess.DEVNULL)
    sh([os.path.join(ROOT, "scripts", "bootstrap.sh")])
    sh(["swift", "build", "-c", "release", "--package-path", ROOT, "--product", "pktbench"],
       stdout=subprocess.DEVNULL)
    os.makedirs(args.data, exist_ok=True)
    files = [("rider", 1_000_000, "rider-1m.pcap"), ("mixed", 300, "mixed-300.pcap"),
             ("mixed-deflate", 300, "mixed-deflate-300.pcap"), ("btsnoop", 1_000_000, "legctrl-1m.btsnoop")]
    if args.large:
        files.insert(1, ("rider", 10_000_000, "rider-10m.pcap"))
    for kind, count, name in files:
        path = os.path.join(args.data, name)
        if not os.path.exists(path):
            print(f"generating {name} …", file=sys.stderr)
            sh([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), kind, str(count), path])

    rows = []
    tcpdump, tshark = shutil.which("tcpdump"), shutil.which("tshark")
    for _, _, name in files:
        path = os.path.join(args.data, name)
        n = records(path)
        mb = os.path.getsize(path) / 1e6
        modes = [("pktbench --stats", [PKTBENCH, "decode", path, "--stats"]),
                 ("pktbench summary", [PKTBENCH, "decode", path]),
                 ("pktbench ndjson", [PKTBENCH, "decode", path, "--format", "ndjson"]),
                 ("pktbench -V", [PKTBENCH, "decode", path, "-V"])]
        if not name.endswith(".btsnoop") and tcpdump:
            modes.append(("tcpdump -nn", [tcpdump, "-r", path, "-nn"]))
        limit = []
        if tshark:
            # tshark is slow and large: its -T modes run on the first 100,000 records.
            limit = ["-c", "100000"] if n > 100_000 else []
            # Like for like: tshark decodes the JSON pktbench decodes. Without these it leaves UDP 5005 and
            # WebSocket text as bytes, and a "JSON" field (json.value.number) comes out empty on every packet.
            as_json = ["-d", "udp.port==5005,json", "-o", "websocket.text_type:As json"]
            fields = ["-e", "btatt.handle", "-e", "btatt.value"] if name.endswith(".btsnoop") else \
                ["-e", "json.member_with_value"]
            modes.append(("tshark", [tshark, "-r", path] + as_json))
            modes.append(("tshark -T fields", [tshark, "-r", path, "-T", "fields", "-e", "frame.number"] + fields
                          + as_json + limit))
            modes.append(("tshark -T json", [tshark, "-r", path, "-T", "json"] + as_json + limit))
        for label, cmd in modes:
            median, low, high, rss = timed(cmd, args.runs, path)
            counted = min(n, 100_000) if (label.startswith("tshark -T") and limit) else n
            rows.append((name, label, counted, median, low, high, counted / median, mb * counted / n / median, rss))
            print(f"  {name:24} {label:34} {median:7.2f} s", file=sys.stderr)

    print(f"\n{'capture':24} {'tool':34} {'records':>9} {'median s':>9} {'min':>7} {'max':>7} "
          f"{'records/s':>11} {'MB/s':>8} {'peak RSS MB':>12}  ratio")
    for name, label, n, median, low, high, rate, mbps, rss in rows:
        base = next((r for r in rows if r[0] == name and r[1] == "pktbench summary"), None)
        ratio = f"{base[6] / rate:5.1f}x" if base and not label.startswith("pktbench") else ""
        print(f"{name:24} {label:34} {n:9d} {median:9.2f} {low:7.2f} {high:7.2f} {rate:11,.0f} {mbps:8.1f} "
              f"{rss:12.1f}  {ratio}")
    print("(ratio: pktbench summary lines' records/s over that tool's; tshark -T modes on the first 100k records)")

    # decode over several files: four names for the 1M Rider capture, one job against one per core.
    cores = os.cpu_count() or 1
    if cores > 1:
        several = []
        for i in range(4):
            link = os.path.join(args.data, f"rider-1m-copy{i}.pcap")
            if not os.path.lexists(link):
                os.symlink("rider-1m.pcap", link)
            several.append(link)
        print(f"\ndecode of 4 files (the 1M Rider capture four times), median (min–max) of {args.runs} runs:")
        print(f"  {'mode':18} {'--jobs 1':>22} {f'--jobs {cores}':>22}  speed-up")
        for label, flags in [("--stats", ["--stats"]), ("summary", []), ("ndjson", ["--format", "ndjson"])]:
            times = [timed([PKTBENCH, "decode"] + several + flags + ["--jobs", str(j)], args.runs, several[0])
                     for j in (1, cores)]
            cells = [f"{t[0]:.2f} s ({t[1]:.2f}–{t[2]:.2f})" for t in times]
            print(f"  {label:18} {cells[0]:>22} {cells[1]:>22}  {times[0][0] / times[1][0]:.2f}x")

    def fuzz_rates(jobs):
        """{target: [executions/s of each run]} over --runs runs."""
        rates = {}
        for _ in range(args.runs):
            out = subprocess.run([PKTBENCH, "fuzz", "--time", f"{args.fuzz_seconds}s", "--seed", "1", "--jobs",
                                  str(jobs), "--crashes", os.path.join(args.data, "crashes")],
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if parts and parts[0] != "target" and len(parts) > 3 and parts[3].isdigit():
                    rates.setdefault(parts[0], []).append(int(parts[3]))
        return rates

    def spread(runs):
        return f"{statistics.median(runs):>11,.0f} ({min(runs):,}–{max(runs):,})"

    one = fuzz_rates(1)
    every = fuzz_rates(cores) if cores > 1 else {}
    print(f"\nfuzz runner, executions/s, median (min–max) of {args.runs} runs "
          f"(seed 1, {args.fuzz_seconds} s shared by all targets):")
    print(f"  {'target':10} {'one core':>30}" + (f" {f'--jobs {cores}':>30}" if every else ""))
    for name, runs in one.items():
        print(f"  {name:10} {spread(runs):>30}" + (f" {spread(every.get(name, [0])):>30}" if every else ""))

if __name__ == "__main__":
    main()
