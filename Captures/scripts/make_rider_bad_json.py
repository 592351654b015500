#!/usr/bin/env python3
"""damaged/rider-bad-json.pcap: Rider datagrams really sent (app
127.0.0.1:40006 → robot :5005, 20 Hz) with broken or odd JSON between good
ones. Each fixture entry says what docs/protocols.md §1a makes of it:
"ok", "warning" (decodes, with a diagnostic) or "error" (a decode error)."""

import json
import os
import socket
import sys
import time

import pcaplib
import scenarios
import wire

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
APP_PORT = 40006


def datagrams(ts):
    """(payload, message, expect, fields, why) — fields only where they are certain."""
    good = lambda l, r: (wire.rider_drive(l, r, ts), "drive", "ok", {"left": l, "right": r, "timestamp": ts}, None)
    return [
        good(20, 20),
        (b'{"left":30,"right":3', None, "error", None, "unparseable JSON: the datagram ends inside the object"),
        (json.dumps({"left": "50", "right": 50, "timestamp": ts}, separators=(",", ":")).encode(), "drive", "error",
         None, "left is a string: the robot ignores the datagram (§1a: non-number left/right is a decode error)"),
        good(25.5, 24.75),
        (json.dumps({"left": None, "right": 10, "timestamp": ts}, separators=(",", ":")).encode(), "drive", "error",
         None, "left is null: a decode error"),
        (json.dumps({"left": True, "right": False, "timestamp": ts}, separators=(",", ":")).encode(), "drive",
         "warning", {"left": True, "right": False, "timestamp": ts},
         "booleans pass the robot's number check (Python bool is an int): decode with a warning"),
        (json.dumps({"right": 40, "timestamp": ts}, separators=(",", ":")).encode(), "drive", "warning",
         {"left": 0, "right": 40, "timestamp": ts}, "left missing: the robot takes 0; decode as 0 with a warning"),
        (json.dumps({"left": 10, "right": 10, "timestamp": ts, "speedMode": "turbo"}, separators=(",", ":")).encode(),
         "drive", "ok", {"left": 10, "right": 10, "timestamp": ts},
         "an extra key: ignored by the robot, kept by the decoder as an unknown key with a note"),
        (json.dumps({"left": 150, "right": -120, "timestamp": ts}, separators=(",", ":")).encode(), "drive", "warning",
         {"left": 150, "right": -120, "timestamp": ts}, "outside −100…100: structurally fine, decoded with a warning"),
        (b"[10,10]", None, "error", None, "a JSON array, not an object"),
        (json.dumps({"left": {"v": 1}, "right": 0, "timestamp": ts}, separators=(",", ":")).encode(), "drive",
         "error", None, "left is an object: a decode error"),
        (b'{"left":1\xff,"right":1,"timestamp":1}', None, "error", None, "byte 0xFF at offset 9: not UTF-8, not JSON"),
        (b"", None, "error", None, "an empty datagram"),
        (wire.rider_drive(5, 5, ts) + b"xyz", None, "error", None, "trailing bytes after the JSON object"),
        (b'{"left":5,"left":50,"right":5,"timestamp":1}', "drive", "warning", None,
         "duplicate key left: the robot's Python json uses the last (50); a strict decoder should warn"),
        good(0, 0),
    ]


def main():
    wire.self_test()
    path = os.path.join(CAPTURES, "damaged", "rider-bad-json.pcap")
    robot, app = scenarios.udp_socket(5005), scenarios.udp_socket(APP_PORT)
    sent = []
    with pcaplib.Recorder(path, f"udp port 5005 and udp port {APP_PORT}"):
        t0 = time.monotonic()
        for i, (payload, message, expect, fields, why) in enumerate(datagrams(time.time())):
            scenarios.pace(t0, i, 0.05)
            app.sendto(payload, ("127.0.0.1", 5005))
            e = scenarios.entry("rider", message, APP_PORT, 5005, payload, fields, expect=expect,
                                payload_hex=payload.hex())
            if why:
                e["why"] = why
            sent.append(e)
        time.sleep(0.1)
        robot.setblocking(False)
        received = []
        while True:
            try:
                received.append(robot.recv(2048))
            except BlockingIOError:
                break
        assert len(received) == len(sent), (len(received), len(sent))
    pcaplib.match_udp(path, sent)
    fx = pcaplib.write_fixture(os.path.join(CAPTURES, "expected", "rider-bad-json.json"), "damaged/rider-bad-json.pcap",
                               path, sent, made_by="scripts/make_rider_bad_json.py",
                               damage=[{"frame": m["frame"], "expect": m["expect"], "what": m["why"]}
                                       for m in sorted(sent, key=lambda m: m["frame"]) if m["expect"] != "ok" or "why" in m],
                               notes=["'message' is null where the bytes do not say which Rider message they are.",
                                      "'fields' is null where the decoded values are not certain (decode errors, "
                                      "the duplicate key).",
                                      "Every datagram uses one timestamp taken when the burst started."])
    print(f"rider-bad-json.pcap: {fx['records']} records, {len(fx['messages'])} messages")


if __name__ == "__main__":
    sys.exit(main())
