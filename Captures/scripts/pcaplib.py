"""Recording on lo and reading the result back, for the sample generators.

Recording uses tcpdump (pcap) or dumpcap (pcapng). Reading uses a small
reader written here (pcap and pcapng, Ethernet/SLL/raw IPv4) so the
generators can turn "what I sent" into "which record carried it" without
pktbench; verify.py then re-checks every fixture with tshark.
"""

import collections
import json
import os
import signal
import struct
import subprocess
import threading
import time

LOOPBACK = "127.0.0.1"


class Recorder:
    """Context manager: start a capture on lo, wait until it is live, stop it
    after the traffic and check that the kernel dropped nothing."""

    def __init__(self, path, bpf, pcapng=False):
        self.path, self.bpf, self.pcapng = path, bpf, pcapng
        self.stderr_lines = []

    def __enter__(self):
        if os.path.exists(self.path):
            os.remove(self.path)
        if self.pcapng:
            cmd = ["dumpcap", "-i", "lo", "-f", self.bpf, "-w", self.path]
            ready = "Capturing on"
        else:
            cmd = ["tcpdump", "-i", "lo", "-U", "--immediate-mode", "-w", self.path, self.bpf]
            ready = "listening on"
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 15
        for line in self.proc.stderr:
            self.stderr_lines.append(line.rstrip())
            if ready in line:
                break
            if time.monotonic() > deadline:
                raise RuntimeError("capture did not start: " + " | ".join(self.stderr_lines))
        else:
            raise RuntimeError("capture exited: " + " | ".join(self.stderr_lines))
        self.drain = threading.Thread(target=self._drain, daemon=True)
        self.drain.start()
        time.sleep(0.5)  # the socket is bound; give the BPF filter a moment
        return self

    def _drain(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.rstrip())

    def __exit__(self, *exc):
        time.sleep(0.5)  # let the last packets reach the capture file
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=15)
        self.drain.join(timeout=5)
        try:  # tcpdump writes as its own user, dumpcap 0600: make the sample ordinary
            os.chown(self.path, os.getuid(), os.getgid())
            os.chmod(self.path, 0o644)
        except OSError:
            pass
        text = "\n".join(self.stderr_lines)
        for line in self.stderr_lines:
            if "dropped by kernel" in line and not line.strip().startswith("0 "):
                raise RuntimeError("capture dropped packets:\n" + text)
        return False


# ------------------------------------------------------------------ reading

Record = collections.namedtuple("Record", "frame time linktype data orig_len")


def read_records(path):
    """All records of a pcap or pcapng file (1-based frame numbers)."""
    with open(path, "rb") as f:
        blob = f.read()
    magic = blob[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        return list(_read_pcapng(blob))
    return list(_read_pcap(blob))


def _read_pcap(blob):
    magic = struct.unpack("<I", blob[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    nano = struct.unpack(endian + "I", blob[:4])[0] == 0xA1B23C4D
    linktype = struct.unpack(endian + "I", blob[20:24])[0] & 0x0FFFFFFF
    offset, frame = 24, 0
    while offset + 16 <= len(blob):
        sec, frac, incl, orig = struct.unpack(endian + "IIII", blob[offset:offset + 16])
        data = blob[offset + 16:offset + 16 + incl]
        if len(data) < incl:
            return  # cut short: the damaged samples do this on purpose
        frame += 1
        yield Record(frame, sec + frac / (1e9 if nano else 1e6), linktype, data, orig)
        offset += 16 + incl


def _read_pcapng(blob):
    offset, frame, endian = 0, 0, "<"
    interfaces = []
    while offset + 12 <= len(blob):
        block_type = struct.unpack(endian + "I", blob[offset:offset + 4])[0]
        if block_type == 0x0A0D0D0A:
            endian = "<" if blob[offset + 8:offset + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            interfaces = []
        length = struct.unpack(endian + "I", blob[offset + 4:offset + 8])[0]
        body = blob[offset + 8:offset + length - 4]
        if block_type == 1:  # IDB: link type, and if_tsresol (option 9) if present
            resolution, opt = 1e6, 8
            while opt + 4 <= len(body):
                code, size = struct.unpack(endian + "HH", body[opt:opt + 4])
                if code == 0:
                    break
                if code == 9 and size >= 1:
                    v = body[opt + 4]
                    resolution = 2 ** (v & 0x7F) if v & 0x80 else 10 ** v
                opt += 4 + (size + 3) // 4 * 4
            interfaces.append((struct.unpack(endian + "H", body[:2])[0], resolution))
        elif block_type == 6:  # EPB
            iface, hi, lo, incl, orig = struct.unpack(endian + "IIIII", body[:20])
            frame += 1
            linktype, resolution = interfaces[iface]
            yield Record(frame, ((hi << 32) | lo) / resolution, linktype, body[20:20 + incl], orig)
        offset += length


Packet = collections.namedtuple("Packet", "frame time proto src dst payload seq flags")


def parse_packet(record):
    """IPv4 UDP/TCP of one record, or None. src/dst are "ip:port"."""
    data, lt = record.data, record.linktype
    if lt == 1:  # Ethernet
        if len(data) < 14 or data[12:14] != b"\x08\x00":
            return None
        ip = data[14:]
    elif lt == 113:  # Linux cooked v1
        ip = data[16:]
    elif lt == 276:  # Linux cooked v2
        ip = data[20:]
    elif lt in (101, 228):
        ip = data
    else:
        return None
    if len(ip) < 20 or ip[0] >> 4 != 4:
        return None
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    proto = ip[9]
    src_ip, dst_ip = ".".join(map(str, ip[12:16])), ".".join(map(str, ip[16:20]))
    l4 = ip[ihl:total]
    if proto == 17:
        sport, dport = struct.unpack("!HH", l4[:4])
        return Packet(record.frame, record.time, "udp", f"{src_ip}:{sport}", f"{dst_ip}:{dport}", l4[8:], None, None)
    if proto == 6:
        sport, dport, seq = struct.unpack("!HHI", l4[:8])
        doff = (l4[12] >> 4) * 4
        return Packet(record.frame, record.time, "tcp", f"{src_ip}:{sport}", f"{dst_ip}:{dport}", l4[doff:], seq, l4[13])
    return None


def packets(path):
    return [p for p in (parse_packet(r) for r in read_records(path)) if p is not None]


def match_udp(path, sent):
    """Give each sent UDP entry the frame/time of the record that carried it.

    `sent` entries carry "src", "dst" and "_payload" (bytes). Matching is per
    (src, dst, payload) in order; loopback keeps per-socket order."""
    queues = collections.defaultdict(collections.deque)
    for p in packets(path):
        if p.proto == "udp":
            queues[(p.src, p.dst, bytes(p.payload))].append(p)
    for entry in sent:
        if entry["transport"] != "udp":
            continue
        queue = queues[(entry["src"], entry["dst"], entry["_payload"])]
        if not queue:
            raise RuntimeError(f"sent datagram not captured: {entry['src']}->{entry['dst']} {entry['_payload'][:40]!r}")
        p = queue.popleft()
        entry["frame"], entry["time"] = p.frame, round(p.time, 6)


def write_fixture(path, capture_name, capture_path, messages, **extra):
    """Fixture JSON: messages sorted by frame, without private (_) keys."""
    clean = []
    for m in sorted(messages, key=lambda m: (m["frame"], m.get("_order", 0))):
        out = {"frame": m["frame"], "time": m.get("time")}
        for key in ("transport", "src", "dst", "codec", "message", "fields"):
            out[key] = m.get(key)
        for key, value in m.items():
            if not key.startswith("_") and key not in out:
                out[key] = value
        clean.append(out)
    fixture = {
        "capture": capture_name,
        "format": "pcapng" if capture_path.endswith(".pcapng") else "pcap",
        "link_type": "EN10MB (Linux loopback, zero MAC addresses)",
        "records": len(read_records(capture_path)),
        **extra,
        "messages": clean,
    }
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    return fixture
