#!/usr/bin/env python3
"""Damaged copies of two good samples, in ../damaged/ (rider-bad-json.pcap is
real traffic: see make_rider_bad_json.py):

- rider-truncated.pcap: rider-20hz.pcap cut in the middle of record 40.
- rider-bad-checksums.pcap: rider-20hz.pcap with every UDP checksum made
  right (loopback leaves them partial), then three made wrong, one set to
  0 (= "no checksum", legal for IPv4) and one IPv4 header checksum made wrong.
- falconeye-lost-segment.pcap: falconeye-ws.pcap without one TCP segment
  from the middle of the second cameraFrame (deleted with editcap).
"""

import copy
import json
import os
import struct
import subprocess
import sys

import pcaplib
import wsstream

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
DAMAGED = os.path.join(CAPTURES, "damaged")
EXPECTED = os.path.join(CAPTURES, "expected")

TRUNCATE_IN_RECORD = 40
BAD_UDP_CHECKSUM = (5, 17, 33)
ZERO_UDP_CHECKSUM = 45
BAD_IP_CHECKSUM = 50


def load(name):
    with open(os.path.join(EXPECTED, name)) as f:
        return json.load(f)


def save(name, fixture):
    with open(os.path.join(EXPECTED, name), "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")


def record_offsets(blob):
    """(record header offset, data offset, incl_len) of a little-endian pcap."""
    assert struct.unpack("<I", blob[:4])[0] == 0xA1B2C3D4
    offset, out = 24, []
    while offset + 16 <= len(blob):
        incl = struct.unpack("<I", blob[offset + 8:offset + 12])[0]
        out.append((offset, offset + 16, incl))
        offset += 16 + incl
    return out


def ones_complement_sum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def udp_checksum(ip):
    ihl = (ip[0] & 0x0F) * 4
    udp = bytearray(ip[ihl:struct.unpack("!H", ip[2:4])[0]])
    udp[6:8] = b"\0\0"
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, len(udp))
    value = 0xFFFF - ones_complement_sum(bytes(pseudo) + bytes(udp))
    return value or 0xFFFF


def ip_checksum(ip):
    header = bytearray(ip[:(ip[0] & 0x0F) * 4])
    header[10:12] = b"\0\0"
    return 0xFFFF - ones_complement_sum(bytes(header))


def truncated(good):
    blob = open(os.path.join(CAPTURES, "rider-20hz.pcap"), "rb").read()
    head, data, incl = record_offsets(blob)[TRUNCATE_IN_RECORD - 1]
    cut = data + incl // 2
    open(os.path.join(DAMAGED, "rider-truncated.pcap"), "wb").write(blob[:cut])
    fx = copy.deepcopy(good)
    fx.update(capture="damaged/rider-truncated.pcap", made_by="scripts/make_damaged.py (from rider-20hz.pcap)",
              records=TRUNCATE_IN_RECORD - 1)
    fx["messages"] = [m for m in good["messages"] if m["frame"] < TRUNCATE_IN_RECORD]
    fx["damage"] = [{"frame": TRUNCATE_IN_RECORD, "what": f"file ends inside record {TRUNCATE_IN_RECORD}: its header "
                     f"says {incl} bytes, {incl // 2} are present (file cut at byte {cut} of {len(blob)})"}]
    fx["notes"] = [f"{TRUNCATE_IN_RECORD - 1} complete records; a reader should report the cut record, not crash, "
                   "and keep what came before."]
    save("rider-truncated.json", fx)
    return fx


def bad_checksums(good):
    blob = bytearray(open(os.path.join(CAPTURES, "rider-20hz.pcap"), "rb").read())
    damage = []
    for frame, (head, data, incl) in enumerate(record_offsets(blob), start=1):
        ip_at = data + 14  # Ethernet header of lo
        ip = bytes(blob[ip_at:data + incl])
        ihl = (ip[0] & 0x0F) * 4
        sum_at = ip_at + ihl + 6
        right = udp_checksum(ip)
        stored = right
        if frame in BAD_UDP_CHECKSUM:
            stored = (right + 0x1111) & 0xFFFF or 0x1111
            damage.append({"frame": frame, "what": "UDP checksum wrong", "layer": "udp",
                           "stored": f"0x{stored:04x}", "correct": f"0x{right:04x}"})
        elif frame == ZERO_UDP_CHECKSUM:
            stored = 0
            damage.append({"frame": frame, "what": "UDP checksum 0x0000: no checksum (legal for UDP over IPv4, "
                           "not an error)", "layer": "udp", "stored": "0x0000", "correct": f"0x{right:04x}",
                           "is_error": False})
        struct.pack_into("!H", blob, sum_at, stored)
        if frame == BAD_IP_CHECKSUM:
            right_ip = ip_checksum(ip)
            wrong = right_ip ^ 0x00FF
            struct.pack_into("!H", blob, ip_at + 10, wrong)
            damage.append({"frame": frame, "what": "IPv4 header checksum wrong (the UDP checksum is right)",
                           "layer": "ipv4", "stored": f"0x{wrong:04x}", "correct": f"0x{right_ip:04x}"})
    open(os.path.join(DAMAGED, "rider-bad-checksums.pcap"), "wb").write(bytes(blob))
    fx = copy.deepcopy(good)
    fx.update(capture="damaged/rider-bad-checksums.pcap", made_by="scripts/make_damaged.py (from rider-20hz.pcap)",
              damage=damage)
    fx["notes"] = ["Every other UDP checksum was recomputed to its correct value (in rider-20hz.pcap they are "
                   "partial, as loopback offload leaves them), so only the listed frames are wrong.",
                   "The payloads are intact: every message still decodes; a tool should add a diagnostic on the "
                   "damaged frames."]
    save("rider-bad-checksums.json", fx)
    return fx


def lost_segment(good):
    src = os.path.join(CAPTURES, "falconeye-ws.pcap")
    frame_msgs = [m for m in good["messages"] if m["message"] == "cameraFrame"]
    victim = frame_msgs[1]
    carriers = [p.frame for p in pcaplib.packets(src) if p.proto == "tcp" and p.payload and p.src == victim["src"]
                and victim["frame"] <= p.frame <= victim["websocket"]["last_frame"]]
    lost = carriers[len(carriers) // 2]
    lost_packet = next(p for p in pcaplib.packets(src) if p.frame == lost)
    out = os.path.join(DAMAGED, "falconeye-lost-segment.pcap")
    subprocess.run(["editcap", src, out, str(lost)], check=True)
    renumber = lambda n: n - 1 if n > lost else n
    fx = copy.deepcopy(good)
    fx.update(capture="damaged/falconeye-lost-segment.pcap",
              made_by=f"scripts/make_damaged.py: editcap falconeye-ws.pcap out {lost}", records=good["records"] - 1)
    for item in fx["messages"] + fx["events"]:
        item["frame"] = renumber(item["frame"])
        if "websocket" in item:
            item["websocket"]["last_frame"] = renumber(item["websocket"]["last_frame"])
    for m in fx["messages"]:
        if m["fields"].get("frameId") == victim["fields"]["frameId"]:
            m["expect"] = "error"
            m["sent_fields"], m["fields"] = m["fields"], None
            m["websocket"]["records"] -= 1
            m["why"] = (f"{len(lost_packet.payload)} bytes of this message are missing (the TCP segment that was "
                        f"record {lost} of falconeye-ws.pcap); the frame header's length still says where the "
                        "next message starts")
    fx["damage"] = [{"frame_removed_from_original": lost, "lost_tcp_bytes": len(lost_packet.payload),
                     "tcp_seq_raw": lost_packet.seq, "src": lost_packet.src, "dst": lost_packet.dst,
                     "what": f"one TCP segment in the middle of cameraFrame {victim['fields']['frameId']} was "
                             f"removed; records after {lost - 1} are renumbered (n → n−1)"}]
    fx["notes"] = ["Messages after the gap are recoverable: the WebSocket frame header of the damaged message "
                   "gives its length, and TCP sequence numbers say how many bytes are missing.",
                   "tshark reports 'previous segment not captured' and 'ACKed unseen segment' around the gap."]
    # Check against the damaged file itself: same messages, only the victim has a gap.
    parsed = {m["first_frame"]: m for s in wsstream.websocket_sessions(out, 8000).values()
              for d in ("c2s", "s2c") for m in s[d]["messages"]}
    for m in fx["messages"]:
        p = parsed[m["frame"]]
        assert bool(p["gaps"]) == (m.get("expect") == "error"), m["frame"]
        assert p["frames"][-1] == m["websocket"]["last_frame"], m["frame"]
    save("falconeye-lost-segment.json", fx)
    return fx


def main():
    for fx in (truncated(load("rider-20hz.json")), bad_checksums(load("rider-20hz.json")),
               lost_segment(load("falconeye-ws.json"))):
        print(f"{fx['capture']}: {fx['records']} records, damage {json.dumps(fx['damage'])[:160]}")


if __name__ == "__main__":
    sys.exit(main())
