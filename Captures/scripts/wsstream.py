"""TCP reassembly and WebSocket (RFC 6455 + RFC 7692) parsing of a capture,
so the generator can say which record first carried each message and check
that the bytes on the wire decode to exactly what it sent."""

import struct
import zlib

from pcaplib import packets


class Direction:
    """One direction of one TCP connection, reassembled by sequence number."""

    def __init__(self):
        self.isn = None
        self.segments = []  # (seq, payload, frame)
        self.data = bytearray()
        self.owners = []  # (stream offset start, end, frame)
        self.gaps = []  # (stream offset start, end)

    def build(self):
        if self.isn is None:
            self.isn = min(s[0] for s in self.segments) - 1 if self.segments else 0
        next_off = 0
        for seq, payload, frame in sorted(self.segments, key=lambda s: ((s[0] - self.isn - 1) % 2**32, s[2])):
            off = (seq - self.isn - 1) % 2**32
            if off + len(payload) <= next_off:
                continue  # retransmission of bytes we already have
            if off > next_off:
                self.gaps.append((next_off, off))
                self.data.extend(b"\0" * (off - next_off))
                next_off = off
            skip = next_off - off
            self.owners.append((next_off, off + len(payload), frame))
            self.data.extend(payload[skip:])
            next_off = off + len(payload)

    def frame_at(self, offset):
        for start, end, frame in self.owners:
            if start <= offset < end:
                return frame
        return None

    def frames_between(self, start, end):
        return sorted({f for s, e, f in self.owners if s < end and e > start})

    def gap_in(self, start, end):
        return [(s, e) for s, e in self.gaps if s < end and e > start]


def connections(path, server_port):
    """{client "ip:port": {"c2s": Direction, "s2c": Direction}} for TCP to server_port."""
    conns = {}
    for p in packets(path):
        if p.proto != "tcp":
            continue
        if p.dst.endswith(f":{server_port}"):
            client, key = p.src, "c2s"
        elif p.src.endswith(f":{server_port}"):
            client, key = p.dst, "s2c"
        else:
            continue
        d = conns.setdefault(client, {"c2s": Direction(), "s2c": Direction()})[key]
        if p.flags & 0x02:  # SYN
            d.isn = p.seq
        if p.payload:
            d.segments.append((p.seq, bytes(p.payload), p.frame))
    for dirs in conns.values():
        dirs["c2s"].build()
        dirs["s2c"].build()
    return conns


def _extensions_header(response_head):
    """The server's Sec-WebSocket-Extensions value, or None."""
    for line in response_head.split(b"\r\n"):
        if line.lower().startswith(b"sec-websocket-extensions:"):
            return line.split(b":", 1)[1].strip().decode()
    return None


def parse_direction(d, deflate, reset_each_message):
    """Messages and control frames of one direction after its HTTP head."""
    head_end = d.data.find(b"\r\n\r\n") + 4
    out = {"head": bytes(d.data[:head_end]), "head_frame": d.frame_at(0), "messages": [], "control": []}
    inflater = zlib.decompressobj(-15)
    pos, current = head_end, None
    while pos + 2 <= len(d.data):
        start = pos
        b0, b1 = d.data[pos], d.data[pos + 1]
        fin, rsv1, opcode, masked, length = b0 >> 7, (b0 >> 6) & 1, b0 & 0x0F, b1 >> 7, b1 & 0x7F
        pos += 2
        if length == 126:
            length = struct.unpack("!H", d.data[pos:pos + 2])[0]
            pos += 2
        elif length == 127:
            length = struct.unpack("!Q", d.data[pos:pos + 8])[0]
            pos += 8
        key = d.data[pos:pos + 4] if masked else None
        pos += 4 if masked else 0
        body = bytes(d.data[pos:pos + length])
        pos += length
        if key:
            mask = (bytes(key) * (len(body) // 4 + 1))[:len(body)]
            body = (int.from_bytes(body, "big") ^ int.from_bytes(mask, "big")).to_bytes(len(body), "big")
        frame_info = {"first_frame": d.frame_at(start), "frames": d.frames_between(start, pos),
                      "gaps": d.gap_in(start, pos), "stream_offset": start, "wire_bytes": pos - start,
                      "masked": bool(masked)}
        if opcode >= 8:
            ctl = dict(frame_info, opcode=opcode)
            if opcode == 8 and len(body) >= 2:
                ctl["code"] = struct.unpack("!H", body[:2])[0]
                ctl["reason"] = body[2:].decode("utf-8", "replace")
            out["control"].append(ctl)
            continue
        if opcode != 0:
            current = dict(frame_info, opcode=opcode, compressed=bool(rsv1), fragments=0, parts=[],
                           wire_bytes=0, frames=[], gaps=[])
        elif current is None:
            continue  # a continuation whose start we never saw
        current["fragments"] += 1
        current["parts"].append(body)
        current["wire_bytes"] += frame_info["wire_bytes"]
        current["frames"] = sorted(set(current["frames"]) | set(frame_info["frames"]))
        current["gaps"] += frame_info["gaps"]
        if fin:
            payload = b"".join(current.pop("parts"))
            if current["gaps"]:
                current["data"] = None
            elif deflate and current["compressed"]:
                if reset_each_message:
                    inflater = zlib.decompressobj(-15)
                current["data"] = inflater.decompress(payload + b"\x00\x00\xff\xff")
            else:
                current["data"] = payload
            out["messages"].append(current)
            current = None
    return out


def websocket_sessions(path, server_port):
    """{client: {"c2s": parsed, "s2c": parsed, "extensions": set}}."""
    sessions = {}
    for client, dirs in connections(path, server_port).items():
        s2c_head = bytes(dirs["s2c"].data[:dirs["s2c"].data.find(b"\r\n\r\n")])
        header = _extensions_header(s2c_head)
        params = {p.strip().split("=")[0] for p in header.split(";")} if header else set()
        deflate = "permessage-deflate" in params
        sessions[client] = {
            "extensions": header,
            "c2s": parse_direction(dirs["c2s"], deflate, "client_no_context_takeover" in params),
            "s2c": parse_direction(dirs["s2c"], deflate, "server_no_context_takeover" in params),
        }
    return sessions


def match_websocket(path, entries, server_port=8000):
    """Give each sent WebSocket entry the record that first carried it, after
    checking the wire bytes decode (unmask, reassemble, inflate) to exactly
    the text that was sent. Returns the connection events (upgrade, close)."""
    from pcaplib import read_records

    times = {r.frame: round(r.time, 6) for r in read_records(path)}
    events = []
    for client, session in websocket_sessions(path, server_port).items():
        for direction in ("c2s", "s2c"):
            parsed = session[direction]
            sent = [e for e in entries if e["transport"] == "websocket" and e["_dir"] == direction
                    and client in (e["src"], e["dst"])]
            if not sent:
                continue
            assert len(sent) == len(parsed["messages"]), (client, direction, len(sent), len(parsed["messages"]))
            for e, m in zip(sent, parsed["messages"]):
                assert m["data"] is not None and m["data"].decode() == e["_text"], (client, direction, e["message"])
                e["frame"], e["time"], e["_order"] = m["first_frame"], times[m["first_frame"]], m["stream_offset"]
                e["websocket"] = {"opcode": "text" if m["opcode"] == 1 else m["opcode"], "masked": m["masked"],
                                  "fragments": m["fragments"], "compressed": m["compressed"],
                                  "last_frame": m["frames"][-1], "records": len(m["frames"]),
                                  "wire_bytes": m["wire_bytes"], "text_bytes": len(m["data"])}
            src, dst = (client, f"127.0.0.1:{server_port}")
            if direction == "s2c":
                src, dst = dst, src
            head = parsed["head"].split(b"\r\n")[0].decode()
            events.append({"frame": parsed["head_frame"], "time": times[parsed["head_frame"]], "src": src, "dst": dst,
                           "event": "http-upgrade-request" if direction == "c2s" else "http-upgrade-response",
                           "line": head})
            if direction == "s2c":
                events[-1]["extensions"] = session["extensions"]
            for c in parsed["control"]:
                events.append({"frame": c["first_frame"], "time": times[c["first_frame"]], "src": src, "dst": dst,
                               "event": {8: "close", 9: "ping", 10: "pong"}.get(c["opcode"], c["opcode"]),
                               "code": c.get("code"), "masked": c["masked"]})
    return sorted(events, key=lambda e: e["frame"])
