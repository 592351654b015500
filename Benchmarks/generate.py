#!/usr/bin/env python3
"""Writes large synthetic captures for the benchmarks, once; reused after.

  Benchmarks/generate.py rider 1000000 out.pcap     # Rider drive commands, UDP 5005, 20 Hz clock
  Benchmarks/generate.py falconeye-poses 5000 out.pcap   # pose broadcasts over one WebSocket, 30 Hz

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


def pcap_header(out) -> None:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))


def pcap_record(out, t: float, frame: bytes) -> None:
    sec = int(t)
    out.write(struct.pack("<IIII", sec, int(round((t - sec) * 1e6)), len(frame), len(frame)))
    out.write(frame)


def tcp_frame(payload: bytes, src: int, dst: int, sport: int, dport: int, seq: int, ack: int,
              flags: int, ident: int) -> bytes:
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags,
                      65535, 0, 0) + payload
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ident & 0xFFFF, 0x4000, 64, 6, 0,
                         bytes([10, 0, 0, src]), bytes([10, 0, 0, dst]))
    header = header[:10] + struct.pack("!H", ipv4_checksum(header)) + header[12:]
    return bytes.fromhex("020000000007" "020000000002" "0800") + header + tcp


def ws_frame(payload: bytes, masked: bool, rsv1: bool = False, opcode: int = 1) -> bytes:
    head = bytes([0x80 | (0x40 if rsv1 else 0) | opcode])
    n = len(payload)
    bit = 0x80 if masked else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 65536:
        head += bytes([bit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([bit | 127]) + struct.pack("!Q", n)
    if not masked:
        return head + payload
    key = bytes([0x37, 0xFA, 0x21, 0x3D])
    repeated = (key * (n // 4 + 1))[:n]
    masked_payload = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big") if n else b""
    return head + key + masked_payload


def envelope(kind: str, inner: dict, t: float) -> bytes:
    import base64
    payload = base64.b64encode(json.dumps(inner, separators=(",", ":")).encode()).decode()
    return json.dumps({"type": kind, "timestamp": t, "payload": payload}, separators=(",", ":")).encode()


def mixed(frames: int, path: str, deflate: bool = False) -> None:
    """All four codecs: Rider 20 Hz, LegCtrl 50 Hz + telemetry 10 Hz, Rallie every 3 s over UDP,
    and one WebSocket connection carrying FalconEye camera frames of 200-400 KB at 30 fps."""
    import base64
    import random
    import zlib
    rng = random.Random(7)
    start = 1_700_000_000.0
    events = []  # (time, frame bytes)
    duration = frames / 30.0
    ident = 0
    for i in range(int(duration * 20)):
        t = start + i * 0.05
        events.append((t, udp_frame(json.dumps({"left": 40, "right": -40, "timestamp": t}).encode(), 50000, 5005, i)))
    for i in range(int(duration * 50)):
        events.append((start + i * 0.02, udp_frame(bytes.fromhex("01030200dc05"), 50001, 9000, i)))
    for i in range(int(duration * 10)):
        events.append((start + i * 0.1, udp_frame(bytes.fromhex("0110080001000a00e81c0000"), 9000, 50001, i)))
    for i in range(int(duration / 3) + 1):
        events.append((start + i * 3, udp_frame(bytes.fromhex("5aa58332322d2d32004e"), 50002, 9100, i)))
    # The WebSocket connection: handshake, then camera frames, segmented at 65483 bytes.
    cseq, sseq = 1000, 5000
    t = start + 0.001
    request = (b"GET /ws/connect/BENCH-DEVICE HTTP/1.1\r\nHost: 10.0.0.7:8000\r\nUpgrade: websocket\r\n"
               b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
               + (b"Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else b"") + b"\r\n")
    response = (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
                + (b"Sec-WebSocket-Extensions: permessage-deflate\r\n" if deflate else b"") + b"\r\n")
    events.append((t, tcp_frame(b"", 2, 7, 40000, 8000, cseq - 1, 0, 0x02, 0)))
    events.append((t, tcp_frame(b"", 7, 2, 8000, 40000, sseq - 1, cseq, 0x12, 0)))
    events.append((t, tcp_frame(request, 2, 7, 40000, 8000, cseq, sseq, 0x18, 1)))
    cseq += len(request)
    events.append((t, tcp_frame(response, 7, 2, 8000, 40000, sseq, cseq, 0x18, 1)))
    sseq += len(response)
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    jpeg = b"\xff\xd8" + bytes(rng.getrandbits(8) for _ in range(300_000)) + b"\xff\xd9"
    for i in range(frames):
        t = start + 0.01 + i / 30.0
        size = 200_000 + (i * 7919) % 150_000
        image = base64.b64encode(jpeg[:size] + b"\xff\xd9").decode()
        inner = {"frameId": f"f-{i:05d}", "timestamp": t, "imageData": image,
                 "devicePose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 "intrinsics": {"fx": 1000.0, "fy": 1000.0, "cx": 960.0, "cy": 720.0, "width": 1920, "height": 1440}}
        text = envelope("cameraFrame", inner, t)
        if deflate:
            data = compressor.compress(text) + compressor.flush(zlib.Z_SYNC_FLUSH)
            wire = ws_frame(data[:-4], masked=True, rsv1=True)
        else:
            wire = ws_frame(text, masked=True)
        for offset in range(0, len(wire), 65483):
            chunk = wire[offset:offset + 65483]
            ident += 1
            events.append((t, tcp_frame(chunk, 2, 7, 40000, 8000, cseq, sseq, 0x18, ident)))
            cseq += len(chunk)
        events.append((t + 0.0001, tcp_frame(b"", 7, 2, 8000, 40000, sseq, cseq, 0x10, ident)))
    events.sort(key=lambda e: e[0])
    with open(path, "wb", buffering=1 << 22) as out:
        pcap_header(out)
        for t, frame in events:
            pcap_record(out, t, frame)


def falconeye_poses(count: int, path: str) -> None:
    """One WebSocket connection from the Aerie server to the app: pose broadcasts at 30 Hz (one to
    three people, thirteen joints each, timestamps as Swift writes them: up to 17 digits), a
    heartbeat pong every second. Each message in its own TCP segment: one record per message."""
    import random
    rng = random.Random(11)
    start = 1_795_625_457.4498959
    joints = ["head", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist",
              "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"]
    with open(path, "wb", buffering=1 << 22) as out:
        pcap_header(out)
        cseq, sseq = 1000, 5000
        request = (b"GET /ws/connect/BENCH-DEVICE HTTP/1.1\r\nHost: 10.0.0.7:8000\r\nUpgrade: websocket\r\n"
                   b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   b"Sec-WebSocket-Version: 13\r\n\r\n")
        response = (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        pcap_record(out, start, tcp_frame(request, 2, 7, 40000, 8000, cseq, sseq, 0x18, 0))
        cseq += len(request)
        pcap_record(out, start, tcp_frame(response, 7, 2, 8000, 40000, sseq, cseq, 0x18, 0))
        sseq += len(response)
        for i in range(count - 2):
            t = start + (i + 1) / 30.0
            if i % 30 == 29:
                text = envelope("heartbeat", {"pong": True}, t)
            else:
                poses = [{"personId": f"person-{p + 1}",
                          "joints": [{"type": name,
                                      "position": [round(rng.uniform(-2, 2), 6), round(rng.uniform(0, 2), 6),
                                                   round(rng.uniform(1, 5), 6)],
                                      "confidence": round(rng.uniform(0.5, 1), 3)} for name in joints],
                          "sourceDevice": "aerie", "confidence": round(rng.uniform(0.5, 1), 3)}
                         for p in range(1 + i % 3)]
                text = envelope("poseBroadcast", {"timestamp": t, "poses": poses}, t)
            wire = ws_frame(text, masked=False)
            pcap_record(out, t, tcp_frame(wire, 7, 2, 8000, 40000, sseq, cseq, 0x18, i))
            sseq += len(wire)


def btsnoop_legctrl(count: int, path: str) -> None:
    """A btsnoop (datalink 1002) LegCtrl session: LE connection, then ATT Write Commands
    (SET_SERVO_CH0) at 50 Hz and notifications (TELEMETRY) at 10 Hz on handle 0x0040."""
    epoch = 0x00DCDDB30F2F8000
    start_us = 1_700_000_000 * 1_000_000
    with open(path, "wb", buffering=1 << 22) as out:
        out.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
        def record(data: bytes, flags: int, t_us: int) -> None:
            out.write(struct.pack(">IIIIq", len(data), len(data), flags, 0, t_us + epoch))
            out.write(data)
        record(bytes.fromhex("043e13010040000000" "3c715ec40a24" "1800000000f40100"), 3, start_us)
        for i in range(count - 1):
            t = start_us + (i + 1) * 20_000 // (1 if i % 6 else 1)
            if i % 6 == 5:
                att = bytes.fromhex("1b1400") + bytes.fromhex("011008000100") + struct.pack("<HHH", 14, 7400, 0)
                flags = 1
            else:
                att = bytes.fromhex("521200") + bytes.fromhex("01030200") + struct.pack("<H", 1000 + i % 1000)
                flags = 0
            l2cap = struct.pack("<HH", len(att), 4) + att
            acl = bytes([0x02]) + struct.pack("<HH", 0x0040 | (0x2 << 12), len(l2cap)) + l2cap
            record(acl, flags, t)


if __name__ == "__main__":
    kind, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    {
        "rider": rider,
        "mixed": mixed,
        "mixed-deflate": lambda n, p: mixed(n, p, deflate=True),
        "btsnoop": btsnoop_legctrl,
        "falconeye-poses": falconeye_poses,
    }[kind](count, path)
