#!/usr/bin/env python3
"""Hostile captures for the capture layer's bounds (issue 26), built with
plain struct packing from the RFCs, independent of pktbench.

  make_floods.py ipv6-fragments COUNT OUT   # COUNT abandoned IPv6 first fragments, distinct ids
  make_floods.py syn-flood COUNT OUT        # a FalconEye WebSocket session, COUNT SYNs, the session again
  make_floods.py data-flood COUNT OUT       # the same, but each flooding connection carries a byte

Each writes a pcap (Ethernet, microsecond stamps) and prints one JSON line
of facts about it, taken from how it was made: how many fragments, which
frames carry the session's messages after the flood.
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
import make_analyze_captures as analyze  # noqa: E402

START = 1795500000.0


class Writer:
    """Streams records to a pcap so a million-record flood needs no memory."""

    def __init__(self, path):
        self.out = open(path, "wb", buffering=1 << 20)
        self.out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        self.count = 0

    def add(self, time, frame):
        seconds = int(time)
        micros = int(round((time - seconds) * 1e6))
        if micros == 1_000_000:
            seconds, micros = seconds + 1, 0
        self.out.write(struct.pack("<IIII", seconds, micros, len(frame), len(frame)) + frame)
        self.count += 1
        return self.count

    def close(self):
        self.out.close()


def ipv6_fragments(count, path):
    """RFC 8200 §4.5: each record is the first fragment (offset 0, M=1) of a
    datagram whose other fragments never come, each with its own id."""
    writer = Writer(path)
    src = bytes.fromhex("20010db8000000000000000000000001")
    dst = bytes.fromhex("20010db8000000000000000000000002")
    body = struct.pack("!HHHH", 40000, 5005, 8 + 1400, 0) + b"\x42" * 64
    for index in range(count):
        fragment = struct.pack("!BBHI", 17, 0, 0x0001, index + 1)  # next header UDP, offset 0, M=1
        payload = fragment + body
        ipv6 = struct.pack("!IHBB", 0x60000000, len(payload), 44, 64) + src + dst + payload
        frame = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x86\xdd" + ipv6
        writer.add(START + index * 1e-5, frame)
    writer.close()
    return {"records": writer.count, "first_fragments": count}


class Capture:
    """The analyze scripts' Capture, writing through a Writer."""

    def __init__(self, writer):
        self.writer = writer
        self.ip_id = 1

    def tcp(self, time, src, sport, dst, dport, seq, ack, flags, payload=b""):
        header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags,
                             65535, 0, 0)
        pseudo = (analyze.ip_bytes(src) + analyze.ip_bytes(dst)
                  + struct.pack("!BBH", 0, 6, len(header) + len(payload)))
        header = header[:16] + struct.pack("!H", analyze.checksum(pseudo + header + payload)) + header[18:]
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(header) + len(payload), self.ip_id & 0xFFFF,
                         0x4000, 64, 6, 0, analyze.ip_bytes(src), analyze.ip_bytes(dst))
        self.ip_id += 1
        ip = ip[:10] + struct.pack("!H", analyze.checksum(ip)) + ip[12:]
        return self.writer.add(time, b"\0" * 12 + b"\x08\x00" + ip + header + payload)


def session_flood(count, path, with_data):
    """A FalconEye session (handshake, auth, one heartbeat answered), then
    `count` other connections from 10.9.x.y, then two more heartbeats, each
    answered: a capture layer that lost the session would show these as
    undecoded TCP, and analyze would call them unanswered."""
    writer = Writer(path)
    cap = Capture(writer)
    conn = analyze.Connection(cap, 40031, START)
    conn.open()
    analyze.auth_request(conn)
    conn.send("authResponse", {"success": True, "sessionId": "6B29FC40-CA47-1067-B31D-00DD010662DA"}, False)
    conn.send("heartbeat", {})
    conn.send("heartbeat", {"pong": True}, False)
    t = conn.t
    for index in range(count):
        t += 1e-5
        src = f"10.9.{index // 250 % 250}.{index % 250 + 1}"
        port = 1024 + index // 62500
        cap.tcp(t, src, port, analyze.DEVICE, 8000, 7000 + index, 0, 0x02)
        if with_data:
            t += 1e-5
            cap.tcp(t, src, port, analyze.DEVICE, 8000, 7001 + index, 0, 0x18, b"x")
    conn.t = t + 1.0
    after = []
    for _ in range(2):
        after.append(conn.send("heartbeat", {}))
        after.append(conn.send("heartbeat", {"pong": True}, False))
    writer.close()
    return {"records": writer.count, "heartbeats_after_flood": after}


def main():
    kind, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind == "ipv6-fragments":
        facts = ipv6_fragments(count, path)
    elif kind == "syn-flood":
        facts = session_flood(count, path, with_data=False)
    elif kind == "data-flood":
        facts = session_flood(count, path, with_data=True)
    else:
        sys.exit(f"unknown kind {kind}")
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
