#!/usr/bin/env python3
"""Small hostile captures for the capture layer (issue 26), one per case,
built with plain struct packing from the RFCs and the pcap/pcapng formats,
independent of pktbench.

  make_hostile.py KIND OUT

writes OUT and prints one JSON line of facts taken from how the file was
made (frames, byte ranges, offsets), which the tests compare pktbench with:

  rider-udp        20 Rider datagrams (UDP 5005), for `editcap -s 60`
  seq-jump         a FalconEye WebSocket session whose client sequence
                   numbers jump by 2^31 + 1000 mid-session
  tcp-overlap      a TCP stream where a later segment overlaps an earlier
                   one with different bytes
  ipv4-overlap     an IPv4 datagram in three fragments, the last resent
                   over the middle one with different bytes
  ipv6-overlap     an IPv6 datagram whose fragments overlap (RFC 5722)
  ws-huge-frame    a WebSocket session where one server frame claims
                   2^63 - 1 payload bytes, then normal messages
  bad-record       a pcap whose third record header claims 4 GB
  bad-block        a pcapng whose third block has a length that is not a
                   multiple of 4
  over-snaplen     a pcap with snaplen 60 holding 102-byte records
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
import make_analyze_captures as analyze  # noqa: E402
import wire  # noqa: E402  (Captures/scripts, put on the path by the import above)

T0 = 1795600000.0
APP = analyze.APP
DEVICE = analyze.DEVICE


def ethernet(ethertype, payload):
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01" + struct.pack("!H", ethertype) + payload


def ipv4(src, dst, protocol, payload, ident=1, more=False, offset=0):
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident,
                         (0x2000 if more else 0) | (offset // 8), 64, protocol, 0,
                         analyze.ip_bytes(src), analyze.ip_bytes(dst))
    header = header[:10] + struct.pack("!H", analyze.checksum(header)) + header[12:]
    return header + payload


def udp(src, dst, sport, dport, payload):
    datagram = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    pseudo = analyze.ip_bytes(src) + analyze.ip_bytes(dst) + struct.pack("!BBH", 0, 17, len(datagram))
    return datagram[:6] + struct.pack("!H", analyze.checksum(pseudo + datagram) or 0xFFFF) + datagram[8:]


def write_pcap(path, records, snaplen=65535, caplens=None):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, 1))
        for index, (time, frame) in enumerate(records):
            seconds = int(time)
            micros = int(round((time - seconds) * 1e6))
            caplen = caplens[index] if caplens else len(frame)
            out.write(struct.pack("<IIII", seconds, micros, caplen, len(frame)) + frame[:caplen])


class Capture:
    """analyze.Capture's TCP over plain records, numbered from 1."""

    def __init__(self):
        self.records = []
        self.ip_id = 1

    def tcp(self, time, src, sport, dst, dport, seq, ack, flags, payload=b""):
        header = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags,
                             65535, 0, 0)
        pseudo = (analyze.ip_bytes(src) + analyze.ip_bytes(dst)
                  + struct.pack("!BBH", 0, 6, len(header) + len(payload)))
        header = header[:16] + struct.pack("!H", analyze.checksum(pseudo + header + payload)) + header[18:]
        self.ip_id += 1
        return self.add(time, ethernet(0x0800, ipv4(src, dst, 6, header + payload, ident=self.ip_id)))

    def add(self, time, frame):
        self.records.append((time, frame))
        return len(self.records)


def rider_udp(path):
    records = []
    for index in range(20):
        t = T0 + index * 0.05
        payload = wire.rider_drive(40, -40, round(t, 3))
        records.append((t, ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17,
                                                 udp("10.0.0.2", "10.0.0.7", 40000, 5005, payload), ident=index))))
    write_pcap(path, records)
    # 14 Ethernet + 20 IPv4 + 8 UDP header bytes: a 60-byte snap length keeps 18 payload bytes.
    return {"payload_lengths": [len(frame) - 42 for _, frame in records], "kept": 60 - 42}


def falconeye_session():
    cap = Capture()
    conn = analyze.Connection(cap, 40041, T0)
    conn.open()
    analyze.auth_request(conn)
    conn.send("authResponse", {"success": True, "sessionId": "6B29FC40-CA47-1067-B31D-00DD010662DA"}, False)
    return cap, conn


def seq_jump(path):
    cap, conn = falconeye_session()
    before = conn.send("heartbeat", {})
    conn.send("heartbeat", {"pong": True}, False)
    expected = conn.c_seq
    conn.c_seq += (1 << 31) + 1000  # the client's numbers jump, further than any window
    jumped = conn.c_seq & 0xFFFFFFFF
    after = [conn.send("heartbeat", {})]
    conn.send("heartbeat", {"pong": True}, False)
    after.append(conn.send("heartbeat", {}))
    after.append(conn.send("heartbeat", {}))
    write_pcap(path, cap.records)
    return {"before": before, "jump_frame": after[0], "heartbeats_after": after, "expected": expected & 0xFFFFFFFF,
            "sequence": jumped}


def tcp_overlap(path):
    cap = Capture()
    t = T0
    cap.tcp(t, APP, 40051, DEVICE, 7000, 1000, 0, 0x02)
    cap.tcp(t + 0.001, DEVICE, 7000, APP, 40051, 5000, 1001, 0x12)
    # Stream bytes 0..9 first, then 20..29 (ahead of a hole), then 10..29 with
    # bytes 20..29 different: the buffered copy (frame 4) arrived first.
    first = cap.tcp(t + 0.002, APP, 40051, DEVICE, 7000, 1001, 5001, 0x18, b"AAAAAAAAAA")
    ahead = cap.tcp(t + 0.003, APP, 40051, DEVICE, 7000, 1021, 5001, 0x18, b"CCCCCCCCCC")
    late = cap.tcp(t + 0.004, APP, 40051, DEVICE, 7000, 1011, 5001, 0x18, b"BBBBBBBBBB" + b"XXCCCCCXCC")
    # A retransmission of bytes 0..9 with one byte changed, after they were delivered.
    resent = cap.tcp(t + 0.005, APP, 40051, DEVICE, 7000, 1001, 5001, 0x18, b"AAAAAZAAAA")
    write_pcap(path, cap.records)
    return {"first": first, "ahead": ahead, "late": late, "resent": resent,
            "late_range": [20, 28], "late_sequence": 1021, "resent_range": [5, 6], "resent_sequence": 1006,
            "stream": "AAAAAAAAAABBBBBBBBBBCCCCCCCCCC"}


def ipv4_overlap(path):
    payload = bytes(range(48)) * 2  # 96 bytes of UDP payload
    datagram = udp("10.0.0.2", "10.0.0.7", 40000, 9000, payload)  # 104 bytes
    parts = [(0, datagram[0:40], True), (40, datagram[40:80], True), (80, datagram[80:], False)]
    records = []
    for offset, data, more in parts:
        records.append((T0 + len(records) * 0.001,
                        ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17, data, ident=77, more=more, offset=offset))))
    # Frame 4 resends bytes 40..79 of the datagram with bytes 48..55 changed.
    changed = bytearray(datagram[40:80])
    for index in range(8, 16):
        changed[index] ^= 0xFF
    records.insert(2, (T0 + 0.0015, ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17, bytes(changed),
                                                           ident=77, more=True, offset=40))))
    write_pcap(path, records)
    return {"kept_frame": 2, "dropped_frame": 3, "range": [48, 56], "payload": payload.hex()}


def ipv6_overlap(path):
    src = bytes.fromhex("20010db8000000000000000000000001")
    dst = bytes.fromhex("20010db8000000000000000000000002")
    payload = b"\x55" * 56
    datagram = struct.pack("!HHHH", 40000, 9000, 8 + len(payload), 0) + payload  # 64 bytes
    pseudo = src + dst + struct.pack("!IxxxB", len(datagram), 17)
    datagram = datagram[:6] + struct.pack("!H", analyze.checksum(pseudo + datagram) or 0xFFFF) + datagram[8:]

    def fragment(offset, data, more):
        header = struct.pack("!BBHI", 17, 0, (offset // 8) << 3 | (1 if more else 0), 0x1234)
        body = header + data
        return ethernet(0x86DD, struct.pack("!IHBB", 0x60000000, len(body), 44, 64) + src + dst + body)

    # 0..32, then 24..64: bytes 24..32 overlap (with the same bytes).
    records = [(T0, fragment(0, datagram[0:32], True)), (T0 + 0.001, fragment(24, datagram[24:64], False))]
    write_pcap(path, records)
    return {"frames": [1, 2], "range": [24, 32]}


def ws_huge_frame(path):
    cap, conn = falconeye_session()
    # A server frame header claiming 2^63 - 1 bytes (127, then the 64-bit length).
    huge = conn.server(b"\x82\x7f" + struct.pack("!Q", (1 << 63) - 1))
    after = []
    for _ in range(3):
        after.append(conn.send("heartbeat", {"pong": True}, False))
    write_pcap(path, cap.records)
    return {"huge_frame": huge, "pongs_after": after}


def bad_record(path):
    frames = [ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17, udp("10.0.0.2", "10.0.0.7", 40000, 5005,
                                                                       wire.rider_drive(10, 10, 1.5))))] * 2
    write_pcap(path, [(T0, frame) for frame in frames])
    with open(path, "ab") as out:
        out.write(struct.pack("<IIII", int(T0) + 2, 0, 0xFFFFFFFF, 0xFFFFFFFF) + b"\0" * 32)
    # 24-byte file header, then 16-byte record headers.
    return {"records": 2, "bad_offset": 24 + sum(16 + len(frame) for frame in frames)}


def bad_block(path):
    def block(kind, body):
        body += b"\0" * ((4 - len(body) % 4) % 4)
        return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))

    frame = ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17, udp("10.0.0.2", "10.0.0.7", 40000, 5005,
                                                                     wire.rider_drive(10, 10, 1.5))))
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 65535))
    out += block(6, struct.pack("<IIIII", 0, 0, 0, len(frame), len(frame)) + frame)
    bad = len(out)
    out += struct.pack("<II", 6, 4099) + b"\0" * 64  # a length that is not a multiple of 4
    with open(path, "wb") as handle:
        handle.write(out)
    return {"records": 1, "bad_offset": bad}


def over_snaplen(path):
    frames = [ethernet(0x0800, ipv4("10.0.0.2", "10.0.0.7", 17, udp("10.0.0.2", "10.0.0.7", 40000, 5005,
                                                                       wire.rider_drive(n, n, 1.5))))
              for n in (11, 22)]
    write_pcap(path, [(T0 + i, frame) for i, frame in enumerate(frames)], snaplen=60)
    return {"snaplen": 60, "lengths": [len(frame) for frame in frames]}


KINDS = {
    "rider-udp": rider_udp, "seq-jump": seq_jump, "tcp-overlap": tcp_overlap, "ipv4-overlap": ipv4_overlap,
    "ipv6-overlap": ipv6_overlap, "ws-huge-frame": ws_huge_frame, "bad-record": bad_record,
    "bad-block": bad_block, "over-snaplen": over_snaplen,
}


def main(kinds=KINDS):
    """KIND OUT from the command line: writes OUT, prints the facts as one JSON line."""
    kind, path = sys.argv[1], sys.argv[2]
    if kind not in kinds:
        sys.exit(f"unknown kind {kind}; known: {', '.join(kinds)}")
    print(json.dumps(kinds[kind](path)))


if __name__ == "__main__":
    main()
