#!/usr/bin/env python3
"""Hostile captures for the files pktbench writes and the display filter
(issue 34), built with plain struct packing from the pcap, pcapng and
btsnoop formats, independent of pktbench.

  make_hostile_files.py KIND OUT

writes OUT and prints one JSON line of facts about what it wrote:

  regex-ids        a FalconEye session whose camera frames are named
                   "f-0001", then 25 × "a" + "!" (which `^(a+)+$` takes
                   exponential time to refuse), then "f-0002"
  regex-many       2,000 camera frames named 25 × "a" + "!"
  jpeg-names       camera frames named 200 CJK characters, with a
                   right-to-left override, with C1 controls and an ANSI
                   escape, with a path, and one name twice
  jpeg-many        20,000 camera frames all named "a"
  pcapng-negative  20 Rider datagrams in a pcapng whose interface has an
                   if_tsoffset of -4e9 s (times before 1970)
  pcapng-far       the same with if_tsresol 1 s and one timestamp of
                   2^64 - 1 s
  btsnoop-far      Captures/ble/legctrl-session.btsnoop with its last
                   records stamped near 2^63 µs
  damaged          Rider datagrams that are all bad JSON, and DNS queries
                   cut short (tshark marks those malformed)
"""

import base64
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analyze"))
sys.path.insert(0, HERE)
import make_analyze_captures as analyze  # noqa: E402
import make_hostile as hostile  # noqa: E402
import wire  # noqa: E402  (Captures/scripts, put on the path by the import above)

T0 = hostile.T0
JPEG = b"\xff\xd8" + bytes(range(64)) + b"\xff\xd9"


def camera_session(frame_ids):
    cap, conn = hostile.falconeye_session()
    frames = []
    for frame_id in frame_ids:
        inner = {"frameId": frame_id, "timestamp": round(conn.t, 6), "imageData": base64.b64encode(JPEG).decode(),
                 "devicePose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 "intrinsics": {"fx": 1000.0, "fy": 1000.0, "cx": 640.0, "cy": 480.0, "width": 1280,
                                "height": 960}}
        frames.append(conn.send("cameraFrame", inner, dt=0.033))
    return cap, frames


def regex_ids(path):
    ids = ["f-0001", "a" * 25 + "!", "f-0002"]
    cap, frames = camera_session(ids)
    hostile.write_pcap(path, cap.records)
    return {"ids": ids, "frames": frames}


def regex_many(path):
    cap, frames = camera_session(["a" * 25 + "!"] * 2000)
    hostile.write_pcap(path, cap.records)
    return {"frames": len(frames)}


def jpeg_names(path):
    ids = ["漢" * 200, "invoice\u202Egpj.exe", "bell\u0085\u009b31m\x1b[31mred", "../../etc/passwd", "twice", "twice"]
    cap, frames = camera_session(ids)
    hostile.write_pcap(path, cap.records)
    return {"ids": ids, "frames": frames, "jpeg_bytes": len(JPEG)}


def jpeg_many(path):
    count = 20000
    cap, frames = camera_session(["a"] * count)
    hostile.write_pcap(path, cap.records)
    return {"count": count, "jpeg_bytes": len(JPEG)}


def rider_frames():
    frames = []
    for index in range(20):
        payload = wire.rider_drive(40, -40, round(T0 + index * 0.05, 3))
        frames.append(hostile.ethernet(0x0800, hostile.ipv4(
            "10.0.0.2", "10.0.0.7", 17, hostile.udp("10.0.0.2", "10.0.0.7", 40000, 5005, payload), ident=index)))
    return frames


def pcapng_block(kind, body):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def pcapng(path, options, stamps):
    """One Ethernet interface with `options` (code, bytes); one EPB per stamp (in the interface's units)."""
    out = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    body = struct.pack("<HHI", 1, 0, 65535)
    for code, value in options:
        body += struct.pack("<HH", code, len(value)) + value + b"\0" * ((4 - len(value) % 4) % 4)
    body += struct.pack("<HH", 0, 0)
    out += pcapng_block(1, body)
    for stamp, frame in zip(stamps, rider_frames()):
        out += pcapng_block(6, struct.pack("<IIIII", 0, stamp >> 32, stamp & 0xFFFFFFFF, len(frame), len(frame))
                            + frame)
    with open(path, "wb") as handle:
        handle.write(out)


def pcapng_negative(path):
    offset = -4_000_000_000
    # if_tsresol 6 (µs), if_tsoffset 14 (signed seconds added to every stamp).
    stamps = [int((100 + i * 0.05) * 1e6) for i in range(20)]
    pcapng(path, [(9, bytes([6])), (14, struct.pack("<q", offset))], stamps)
    return {"records": 20, "first_time": offset + 100}


def pcapng_far(path):
    # if_tsresol 0: stamps count seconds. The last is 2^64 - 1 s.
    stamps = [int(T0) + i for i in range(19)] + [(1 << 64) - 1]
    pcapng(path, [(9, bytes([0]))], stamps)
    return {"records": 20, "far_frame": 20}


def btsnoop_far(path):
    source = os.path.join(HERE, "..", "..", "..", "Captures", "ble", "legctrl-session.btsnoop")
    with open(source, "rb") as handle:
        blob = bytearray(handle.read())
    offset, count = 16, 0
    while offset + 24 <= len(blob):
        included = struct.unpack(">I", blob[offset + 4:offset + 8])[0]
        offset += 24 + included
        count += 1
    # Restamp the last five records near the largest signed 64-bit count of microseconds.
    offset, index = 16, 0
    while offset + 24 <= len(blob):
        included = struct.unpack(">I", blob[offset + 4:offset + 8])[0]
        if index >= count - 5:
            blob[offset + 16:offset + 24] = struct.pack(">q", (1 << 63) - 1 - (count - index))
        offset += 24 + included
        index += 1
    with open(path, "wb") as handle:
        handle.write(bytes(blob))
    return {"records": count, "far_records": 5}


def damaged(path):
    records = []
    for index in range(10):
        payload = b'{"left": 40, "right": ' + bytes([0x30 + index])  # cut mid-object
        records.append((T0 + index * 0.05, hostile.ethernet(0x0800, hostile.ipv4(
            "10.0.0.2", "10.0.0.7", 17, hostile.udp("10.0.0.2", "10.0.0.7", 40000, 5005, payload), ident=index))))
    for index in range(3):
        query = struct.pack("!HHHHHH", 0x1000 + index, 0x0100, 1, 0, 0, 0) + b"\x07exam"  # a name cut short
        records.append((T0 + 1 + index * 0.05, hostile.ethernet(0x0800, hostile.ipv4(
            "10.0.0.2", "10.0.0.53", 17, hostile.udp("10.0.0.2", "10.0.0.53", 40001 + index, 53, query),
            ident=100 + index))))
    hostile.write_pcap(path, records)
    return {"rider": 10, "dns": 3}


KINDS = {
    "regex-ids": regex_ids, "regex-many": regex_many, "jpeg-names": jpeg_names, "jpeg-many": jpeg_many, "pcapng-negative": pcapng_negative,
    "pcapng-far": pcapng_far, "btsnoop-far": btsnoop_far, "damaged": damaged,
}


if __name__ == "__main__":
    hostile.main(KINDS)
