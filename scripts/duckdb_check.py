#!/usr/bin/env python3
"""Loads pktbench's ndjson and csv of captures into DuckDB, as the README's
fleet example does, and checks that each codec's lines have one schema:
DuckDB infers one type per key across all of a codec's lines (with every
line sampled), falling back to JSON only where a key's types clash, so a
JSON type anywhere in a codec's columns is a type surprise. A query per
codec (messages counted by name) must agree with Python's count of the same
lines; the csv must load with numeric frame, time and length columns and the
same rows.

Transport events (no codec) have fields of their own per event: their
lines are checked per event name instead.

usage: duckdb_check.py [--known CODEC.KEY]... PKTBENCH CAPTURE...
exit 0 when all hold, 1 with what failed, 77 when the duckdb module is
missing (the caller skips). --known names a clash already reported, which
is then listed but not failed on.
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import duckdb
except ImportError:
    print("duckdb is not installed (python3 -m pip install duckdb)")
    sys.exit(77)

arguments = sys.argv[1:]
known = set()
while arguments[:1] == ["--known"]:
    known.add(arguments[1])
    arguments = arguments[2:]
binary, captures = arguments[0], arguments[1:]
failures = []
work = tempfile.mkdtemp(prefix="pktbench-duckdb-")
by_codec = collections.defaultdict(list)
con = duckdb.connect()


def decode(capture, fmt):
    out = subprocess.run([binary, "decode", capture, "--format", fmt], capture_output=True)
    if out.returncode not in (0, 1):  # 1: a damaged capture, decoded up to the damage
        failures.append(f"{capture}: pktbench exited {out.returncode}: {out.stderr.decode()}")
    return out.stdout


def column_types(source):
    return {row[0]: row[1] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}


for index, capture in enumerate(captures):
    lines = decode(capture, "ndjson").decode().splitlines()
    records = [json.loads(line) for line in lines]
    for line, record in zip(lines, records):
        by_codec[record.get("codec") or "event " + str(record.get("message") or "(none: no codec)")].append(line)
    csv_path = os.path.join(work, f"{index}.csv")
    with open(csv_path, "wb") as f:
        f.write(decode(capture, "csv"))
    if not records:
        continue
    table = f"read_csv_auto('{csv_path}', header = true, sample_size = -1)"
    types = column_types(table)
    for name, wanted in (("frame", "BIGINT"), ("time", "DOUBLE"), ("length", "BIGINT")):
        if types.get(name) != wanted:
            failures.append(f"{capture} csv: {name} is {types.get(name)}, not {wanted}")
    rows = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    if rows != len(records):
        failures.append(f"{capture} csv: {rows} rows, {len(records)} ndjson lines")
    counted = dict(con.execute(
        f"SELECT coalesce(codec, ''), count(*) FROM {table} GROUP BY ALL").fetchall())
    expected = collections.Counter(r.get("codec") or "" for r in records)
    if counted != dict(expected):
        failures.append(f"{capture} csv: per codec {counted}, ndjson {dict(expected)}")

for codec, lines in sorted(by_codec.items()):
    path = os.path.join(work, f"{codec}.ndjson")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    table = f"read_ndjson_auto('{path}', sample_size = -1)"
    types = column_types(table)
    # Members DuckDB could give no one type: `name JSON` inside a STRUCT, or a JSON column.
    clashes = {name for name, kind in types.items() if kind == "JSON"}
    for kind in types.values():
        clashes |= {m.strip('"') for m in re.findall(r'("[^"]+"|\w+) JSON\b', kind)}
    for clash in sorted(clashes):
        if f"{codec}.{clash}" in known:
            print(f"{codec}: {clash} changes type across lines (known)")
        else:
            failures.append(f"{codec}: {clash} changes type across lines: {types}")
    for name, wanted in (("frame", "BIGINT"), ("time", "DOUBLE"), ("length", "BIGINT")):
        if types.get(name) != wanted:
            failures.append(f"{codec}: {name} is {types.get(name)}, not {wanted}")
    counted = dict(con.execute(f"SELECT message, count(*) FROM {table} GROUP BY message").fetchall())
    expected = collections.Counter(json.loads(line)["message"] for line in lines)
    if counted != dict(expected):
        failures.append(f"{codec}: DuckDB counts {counted}, Python {dict(expected)}")
    print(f"{codec}: {len(lines)} lines, {len(counted)} messages, fields {types.get('fields', '-')[:160]}")

if failures:
    print("\n".join(failures))
    sys.exit(1)
