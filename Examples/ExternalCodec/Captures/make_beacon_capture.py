#!/usr/bin/env python3
"""Writes Captures/beacon.pcap: a soil sensor's readings to UDP 7070 every
10 s, the gateway's acks, and one reading with a spoiled check byte.
Independent of pktbench: the Beacon layout of ../README.md packed by hand."""
import os
import struct


def xor(data):
    out = 0
    for byte in data:
        out ^= byte
    return out


def reading(seq, moisture, tenths, battery_mv, status=0):
    body = struct.pack("<BBBhHBB", 0xB1, seq, moisture, tenths, battery_mv, status, 0)
    return body + bytes([xor(body)])


def ack(seq):
    body = bytes([0xB2, seq])
    return body + bytes([xor(body)])


def ipv4_checksum(header):
    total = sum(struct.unpack("!10H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def frame(payload, src, dst, sport, dport):
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, bytes(src), bytes(dst))
    header = header[:10] + struct.pack("!H", ipv4_checksum(header)) + header[12:]
    return bytes.fromhex("ffffffffffff02000000000a0800") + header + udp


sensor, gateway = [192, 168, 4, 20], [192, 168, 4, 1]
records = []
t = 1_795_500_000.0
for seq in range(6):
    payload = reading(seq, 40 + seq, 185 - seq * 3, 3700 - seq * 10, status=1 if seq == 5 else 0)
    if seq == 3:
        payload = payload[:-1] + bytes([payload[-1] ^ 0x5A])  # spoiled in transit
    records.append((t, frame(payload, sensor, gateway, 7070, 7070)))
    if seq != 3:
        records.append((t + 0.004, frame(ack(seq), gateway, sensor, 7070, 7070)))
    t += 10.0

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "beacon.pcap")
with open(path, "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    for time, data in records:
        out.write(struct.pack("<IIII", int(time), int(round((time % 1) * 1e6)), len(data), len(data)) + data)
print(f"{path}: {len(records)} records")
