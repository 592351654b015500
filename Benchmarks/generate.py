#!/usr/bin/env python3
"""Writes large synthetic captures for the benchmarks, once; reused after.

  Benchmarks/generate.py rider 1000000 out.pcap     # Rider drive commands, UDP 5005, 20 Hz clock

Independent of pktbench: plain struct packing of pcap, Ethernet, IPv4 and
UDP headers (with correct IPv4 header checksums; UDP checksum 0 = none).
"""
import json
import struct
import sys


def ipv4_checksum(header: bytes) -> int:
    total = sum(struct.unpack("!10H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def udp_frame(payload: bytes, src_port: int, dst_port: int, ident: int) -> bytes:
    udp = struct.pack("!HHHH", src_port, dst_port, 8 + len(payload), 0) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), ident & 0xFFFF, 0x4000, 64, 17, 0,
                         bytes([10, 0, 0, 2]), bytes([10, 0, 0, 7]))
    header = header[:10] + struct.pack("!H", ipv4_checksum(header)) + header[12:]
    ethernet = bytes.fromhex("020000000007" "020000000002" "0800")
    return ethernet + header + udp


def rider(count: int, path: str) -> None:
    start = 1_700_000_000.0
    with open(path, "wb", buffering=1 << 20) as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i in range(count):
            t = start + i * 0.05
            left = (i % 201) - 100
            right = 100 - (i % 201)
            payload = json.dumps({"left": left, "right": right, "timestamp": round(t, 3)},
                                 separators=(",", ":")).encode()
            frame = udp_frame(payload, 50000, 5005, i)
            sec = int(t)
            usec = int(round((t - sec) * 1e6))
            out.write(struct.pack("<IIII", sec, usec, len(frame), len(frame)))
            out.write(frame)


if __name__ == "__main__":
    kind, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    {"rider": rider}[kind](count, path)
