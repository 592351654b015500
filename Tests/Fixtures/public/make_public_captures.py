#!/usr/bin/env python3
"""Writes pcap files of public protocols that tshark dissects, packed with
Python's struct from the RFCs (not with pktbench), for the tests that hold
pktbench's .ksy specs to tshark's own dissectors:

    make_public_captures.py OUT_DIR

dns.pcap   DNS queries and responses (RFC 1035): A, AAAA, CNAME, MX, TXT,
           compressed names, several questions, an NXDOMAIN.
rtp.pcap   RTP (RFC 3550) on UDP 5004: CSRCs, a header extension, padding,
           the marker bit.
ntp.pcap   NTP (RFC 5905) on UDP 123: client and server, leap indicators,
           a MAC (key id and digest).
coap.pcap  CoAP (RFC 7252) on UDP 5683: confirmable GET with options
           (extended deltas and lengths), responses with payloads, a reset.
hrm.pcap   BLE Heart Rate Measurement notifications (0x2A37), HCI H4 with
           the GATT discovery that names the handle: 8- and 16-bit rates,
           energy expended, RR intervals.
"""
import os
import struct
import sys


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def udp_frame(payload, sport, dport, src="10.0.0.1", dst="10.0.0.2"):
    """Ethernet + IPv4 + UDP around `payload`, checksums right."""
    s = bytes(int(x) for x in src.split("."))
    d = bytes(int(x) for x in dst.split("."))
    length = 8 + len(payload)
    pseudo = s + d + struct.pack("!BBH", 0, 17, length)
    udp = struct.pack("!HHHH", sport, dport, length, 0) + payload
    udp = udp[:6] + struct.pack("!H", checksum(pseudo + udp) or 0xFFFF) + udp[8:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + length, 1, 0, 64, 17, 0, s, d)
    ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
    return b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00" + ip + udp


def write_pcap(path, frames, linktype=1):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for index, frame in enumerate(frames):
            out.write(struct.pack("<IIII", 1700000000 + index, 0, len(frame), len(frame)))
            out.write(frame)


# DNS

def name(text, pointers=None, offset=0):
    """A name as labels; `pointers` maps a suffix to an earlier offset."""
    out = b""
    labels = text.split(".") if text else []
    for index in range(len(labels)):
        suffix = ".".join(labels[index:])
        if pointers is not None and suffix in pointers:
            return out + struct.pack("!H", 0xC000 | pointers[suffix])
        if pointers is not None:
            pointers[suffix] = offset + len(out)
        label = labels[index].encode()
        out += bytes([len(label)]) + label
    return out + b"\0"


def dns(ident, flags, questions, answers=(), authorities=(), additionals=()):
    out = struct.pack("!HHHHHH", ident, flags, len(questions), len(answers), len(authorities), len(additionals))
    pointers = {}
    for qname, qtype, qclass in questions:
        out += name(qname, pointers, len(out)) + struct.pack("!HH", qtype, qclass)
    for section in (answers, authorities, additionals):
        for rname, rtype, rclass, ttl, rdata in section:
            out += name(rname, pointers, len(out))
            head = struct.pack("!HHIH", rtype, rclass, ttl, 0)
            start = len(out) + len(head)
            if callable(rdata):
                rdata = rdata(pointers, start)
            out += head[:-2] + struct.pack("!H", len(rdata)) + rdata
    return out


def dns_captures():
    frames = []
    frames.append(udp_frame(dns(0x1234, 0x0100, [("www.example.com", 1, 1)]), 40000, 53))
    frames.append(udp_frame(dns(0x1234, 0x8180, [("www.example.com", 1, 1)], [
        ("www.example.com", 5, 1, 300, lambda p, o: name("example.com", p, o)),
        ("example.com", 1, 1, 3600, bytes([93, 184, 216, 34])),
    ]), 53, 40000, "10.0.0.2", "10.0.0.1"))
    frames.append(udp_frame(dns(0xBEEF, 0x0120, [("ipv6.example.org", 28, 1), ("mail.example.org", 15, 1)]), 40001, 53))
    frames.append(udp_frame(dns(0xBEEF, 0x8580, [("ipv6.example.org", 28, 1), ("mail.example.org", 15, 1)], [
        ("ipv6.example.org", 28, 1, 60, bytes.fromhex("20010db8000000000000000000000001")),
        ("mail.example.org", 15, 1, 7200, lambda p, o: struct.pack("!H", 10) + name("mx1.example.org", p, o + 2)),
    ], [], [
        ("txt.example.org", 16, 1, 30, b"\x05hello\x0bworld again"),
    ]), 53, 40001, "10.0.0.2", "10.0.0.1"))
    frames.append(udp_frame(dns(0x0001, 0x8183, [("nothing.invalid", 1, 1)]), 53, 40002, "10.0.0.2", "10.0.0.1"))
    frames.append(udp_frame(dns(0x7777, 0x2810, [("status.example", 255, 255)]), 40003, 53))
    return frames


# RTP

def rtp(seq, timestamp, ssrc, payload, marker=False, payload_type=0, csrcs=(), extension=None, padding=0):
    first = 0x80 | (0x20 if padding else 0) | (0x10 if extension is not None else 0) | len(csrcs)
    out = struct.pack("!BBHII", first, (0x80 if marker else 0) | payload_type, seq, timestamp, ssrc)
    out += b"".join(struct.pack("!I", c) for c in csrcs)
    if extension is not None:
        profile, words = extension
        out += struct.pack("!HH", profile, len(words) // 4) + words
    out += payload
    if padding:
        out += b"\0" * (padding - 1) + bytes([padding])
    return out


def rtp_captures():
    frames = []
    for index in range(4):
        frames.append(udp_frame(rtp(100 + index, 160 * index, 0x11223344, bytes([index] * 20), marker=index == 0),
                                5004, 5004))
    frames.append(udp_frame(rtp(104, 640, 0x11223344, b"\xAA" * 12, payload_type=8, csrcs=(0xCAFE, 0xF00D)), 5004, 5004))
    frames.append(udp_frame(rtp(105, 800, 0x11223344, b"\xBB" * 10, payload_type=96,
                                extension=(0xBEDE, bytes.fromhex("1234567800000000"))), 5004, 5004))
    frames.append(udp_frame(rtp(106, 960, 0x11223344, b"\xCC" * 9, payload_type=0, padding=3), 5004, 5004))
    return frames


# NTP

NTP_EPOCH = 2208988800


def ntp_time(unix):
    seconds = int(unix) + NTP_EPOCH
    fraction = int((unix - int(unix)) * (1 << 32))
    return struct.pack("!II", seconds, fraction)


def ntp(li, version, mode, stratum, poll, precision, delay, dispersion, refid, times, mac=None):
    out = struct.pack("!BBbbII4s", (li << 6) | (version << 3) | mode, stratum, poll, precision, delay, dispersion, refid)
    for when in times:
        out += ntp_time(when) if when else b"\0" * 8
    if mac is not None:
        out += struct.pack("!I", mac[0]) + mac[1]
    return out


def ntp_captures():
    frames = []
    frames.append(udp_frame(ntp(0, 4, 3, 0, 6, -20, 0, 0, b"\0\0\0\0", [0, 0, 0, 1700000000.25]), 123, 123))
    frames.append(udp_frame(ntp(0, 4, 4, 2, 6, -23, 0x00000A3D, 0x00001F5C, bytes([192, 168, 1, 1]),
                                [1699999990.5, 1700000000.25, 1700000000.375, 1700000000.4375]),
                            123, 123, "10.0.0.2", "10.0.0.1"))
    frames.append(udp_frame(ntp(1, 3, 4, 1, 10, -18, 0x00010000, 0x00008000, b"GPS\0",
                                [1700000100.0, 1700000200.0, 1700000300.0, 1700000400.0]), 123, 123))
    frames.append(udp_frame(ntp(3, 4, 3, 0, 4, -6, 0, 0, b"\0\0\0\0", [0, 0, 0, 1700000500.5],
                                mac=(42, bytes(range(16)))), 123, 123))
    return frames


# CoAP

def coap_option(delta, value):
    def nibble(number):
        if number < 13:
            return number, b""
        if number < 269:
            return 13, bytes([number - 13])
        return 14, struct.pack("!H", number - 269)
    d, dext = nibble(delta)
    l, lext = nibble(len(value))
    return bytes([(d << 4) | l]) + dext + lext + value


def coap(mtype, code, mid, token, options=(), payload=b""):
    out = bytes([0x40 | (mtype << 4) | len(token), code]) + struct.pack("!H", mid) + token
    number = 0
    for option, value in options:
        out += coap_option(option - number, value)
        number = option
    if payload:
        out += b"\xFF" + payload
    return out


def coap_captures():
    frames = []
    frames.append(udp_frame(coap(0, 0x01, 0x1001, b"\x7A\x7B", [(11, b"sensors"), (11, b"temperature"), (15, b"unit=c")]),
                            50000, 5683))
    frames.append(udp_frame(coap(2, 0x45, 0x1001, b"\x7A\x7B", [(12, b"\x00")], b"21.5 C"), 5683, 50000,
                            "10.0.0.2", "10.0.0.1"))
    frames.append(udp_frame(coap(0, 0x02, 0x1002, b"", [(11, b"x" * 20), (300, b"long-delta")], b"\x01\x02"),
                            50000, 5683))
    frames.append(udp_frame(coap(3, 0x00, 0x1003, b""), 5683, 50000, "10.0.0.2", "10.0.0.1"))
    return frames


# BLE Heart Rate Measurement over HCI (pcap link type 201, H4 with direction)

HRM_HANDLE = 0x0012


def h4(direction, packet):
    return struct.pack("!I", direction) + packet


def acl(handle, l2cap_payload):
    l2cap = struct.pack("<HH", len(l2cap_payload), 0x0004) + l2cap_payload
    return b"\x02" + struct.pack("<HH", handle | 0x2000, len(l2cap)) + l2cap


def hrm_captures():
    connection = 0x0040
    frames = []
    # Read By Type request and response for characteristics (0x2803): the
    # declaration of the Heart Rate Measurement at value handle 0x0012.
    frames.append(h4(0, acl(connection, struct.pack("<BHHH", 0x08, 0x0001, 0xFFFF, 0x2803))))
    declaration = struct.pack("<HBHH", 0x0011, 0x10, HRM_HANDLE, 0x2A37)
    frames.append(h4(1, acl(connection, struct.pack("<BB", 0x09, len(declaration)) + declaration)))
    values = [
        bytes([0x00, 72]),
        bytes([0x06, 75]),
        bytes([0x01]) + struct.pack("<H", 305),
        bytes([0x0E, 80]) + struct.pack("<H", 1234),
        bytes([0x16, 81]) + struct.pack("<HH", 800, 790),
        bytes([0x1F]) + struct.pack("<HHHH", 190, 5000, 315, 320),
    ]
    for value in values:
        frames.append(h4(1, acl(connection, struct.pack("<BH", 0x1B, HRM_HANDLE) + value)))
    return frames


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    write_pcap(os.path.join(out, "dns.pcap"), dns_captures())
    write_pcap(os.path.join(out, "rtp.pcap"), rtp_captures())
    write_pcap(os.path.join(out, "ntp.pcap"), ntp_captures())
    write_pcap(os.path.join(out, "coap.pcap"), coap_captures())
    write_pcap(os.path.join(out, "hrm.pcap"), hrm_captures(), linktype=201)


if __name__ == "__main__":
    main()
