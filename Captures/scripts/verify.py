#!/usr/bin/env python3
"""Re-read every sample capture with tshark (not with the generators' own
reader, not with pktbench) and check its fixture in ../expected/: record
count, that each message's frame exists and carries what the fixture says,
and that the listed damage is what tshark sees. Exit status 1 on any failure."""

import base64
import glob
import json
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
    return condition


def tshark(path, fields, *extra):
    """Rows of {field: value}, several occurrences joined with "|" (JSON
    output, so texts with tabs or newlines cannot shift the columns)."""
    cmd = ["tshark", "-n", "-r", path, "-d", "tcp.port==8000,http", *extra, "-T", "json"]
    for f in fields:
        cmd += ["-e", f]
    run = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    rows = []
    for packet in json.loads(run.stdout or "[]"):
        layers = packet["_source"]["layers"]
        rows.append({f: "|".join(layers[f]) for f in fields if f in layers})
    return rows, run.returncode, run.stderr


# ------------------------------------------------------------ payload kinds


def rider_ok(m, payload):
    if "payload_hex" in m:
        return payload.hex() == m["payload_hex"]
    if m["message"] == "legacy":
        f = m["fields"]
        return payload.decode() == f"{f['left']},{f['right']},{f['direction']}"
    obj = json.loads(payload)
    return all(obj.get(k) == v for k, v in m["fields"].items())


def legctrl_ok(m, p):
    kinds = {"arm": 1, "disarm": 2, "set_servo_ch0": 3, "ping": 4, "telemetry": 0x10}
    if len(p) < 4 or p[0] != 1 or p[1] != kinds[m["message"]] or len(p) != 4 + p[2] or p[3] != 0:
        return False
    f = m["fields"]
    if m["message"] == "set_servo_ch0":
        return struct.unpack("<H", p[4:6])[0] == f["pulse_us"]
    if m["message"] == "telemetry":
        states = ["DISARMED", "ARMED", "FAULT"]
        errors = {0: "NONE", 1: "DEADMAN_TIMEOUT", 2: "LOW_BATTERY", 3: "I2C_FAULT", 4: "INVALID_CMD", 255: "UNKNOWN"}
        state, error, age, mv = struct.unpack("<BBHH", p[4:10])
        return (states[state], errors[error], age, mv) == (f["state"], f["error_code"], f["last_cmd_age_ms"],
                                                            f["battery_mv"])
    return len(p) == 4


def rallie_check(data, variant):
    if variant == "xor":
        value = 0
        for b in data:
            value ^= b
        return value
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc & 0xFF


def rallie_ok(m, p):
    f = m["fields"]
    if m["message"] == "command":
        values = [f["upper_wheel"], f["lower_wheel"], f["pitch"], f["yaw"], f["feed"], 1 if f["control"] == "start" else 0]
        return (len(p) == 10 and p[:3] == b"\x5a\xa5\x83" and list(p[3:9]) == values and p[9] == f["check"]
                and rallie_check(p[:9], f["check_variant"]) == p[9])
    codes = {"rejected": 0, "accepted": 1, "completed": 2}
    return (len(p) == 5 and p[:3] == b"\x5a\xa5\x82" and p[3] == codes[f["code"]] and p[4] == f["check"]
            and rallie_check(p[:4], f["check_variant"]) == p[4])


UDP_KINDS = {"rider": rider_ok, "legctrl": legctrl_ok, "rallie": rallie_ok}


# ---------------------------------------------------------------- checks


def verify_udp(name, fx, frames):
    for m in (m for m in fx["messages"] if m["transport"] == "udp"):
        row = frames.get(m["frame"])
        where = f"{name} frame {m['frame']} ({m['message']})"
        if not check(row is not None and row.get("udp.srcport"), f"{where}: no UDP record"):
            continue
        check(f"{row['ip.src']}:{row['udp.srcport']}" == m["src"] and f"{row['ip.dst']}:{row['udp.dstport']}" == m["dst"],
              f"{where}: endpoints differ")
        check(abs(float(row["frame.time_epoch"]) - m["time"]) < 2e-6, f"{where}: time differs")
        payload = bytes.fromhex(row.get("udp.payload", ""))
        try:
            ok = UDP_KINDS[m["codec"]](m, payload)
        except Exception as exc:  # a malformed payload where a good one was expected
            ok = False
            where += f" ({exc})"
        check(ok, f"{where}: payload is not the expected {m['codec']} {m['message']}")


def ws_messages(path, server_port=8000):
    """Per (src, dst): the data messages tshark sees, each as the frames of
    its fragments, plus every control frame."""
    fields = ["frame.number", "ip.src", "tcp.srcport", "ip.dst", "tcp.dstport", "websocket.opcode", "websocket.fin",
              "websocket.rsv", "websocket.mask", "websocket.payload.text", "websocket.payload.close.status_code"]
    rows, _, _ = tshark(path, fields, "-Y", "websocket")
    messages, controls, current = {}, [], {}
    for r in rows:
        key = (f"{r['ip.src']}:{r['tcp.srcport']}", f"{r['ip.dst']}:{r['tcp.dstport']}")
        opcodes, fins = r["websocket.opcode"].split("|"), r["websocket.fin"].split("|")
        rsvs, masks = r["websocket.rsv"].split("|"), r["websocket.mask"].split("|")
        texts = [r["websocket.payload.text"]] if r.get("websocket.payload.text") else []
        for i, op in enumerate(opcodes):
            frame = int(r["frame.number"])
            if int(op) >= 8:
                controls.append({"frame": frame, "key": key, "opcode": int(op),
                                 "code": r.get("websocket.payload.close.status_code") or None})
                continue
            if int(op) != 0:
                current[key] = {"frames": [], "compressed": int(rsvs[i], 16) & 4 != 0,
                                "masked": masks[i] in ("1", "True"), "text": None}
                if texts and int(fins[i]) == 1:
                    current[key]["text"] = r["websocket.payload.text"] if len(opcodes) == 1 else None
            msg = current.get(key)
            if msg is None:
                continue
            msg["frames"].append(frame)
            if fins[i] in ("1", "True"):
                messages.setdefault(key, []).append(current.pop(key))
    return messages, controls


def verify_websocket(name, path, fx, frames):
    wanted = [m for m in fx["messages"] if m["transport"] == "websocket"]
    if not wanted:
        return
    seen, controls = ws_messages(path)
    texts_checked = 0
    per_key = {}
    for m in wanted:
        per_key.setdefault((m["src"], m["dst"]), []).append(m)
    for key, fixture_msgs in per_key.items():
        got = seen.get(key, [])
        damaged = [m for m in fixture_msgs if m.get("expect") == "error"]
        if not damaged:
            check(len(got) == len(fixture_msgs), f"{name} {key}: tshark sees {len(got)} messages, fixture {len(fixture_msgs)}")
        got_by_last = {g["frames"][-1]: g for g in got}
        for m in fixture_msgs:
            where = f"{name} frame {m['frame']} ({m['message']})"
            row = frames.get(m["frame"], {})
            check(f"{row.get('ip.src')}:{row.get('tcp.srcport')}" == m["src"] and int(row.get("tcp.len") or 0) > 0,
                  f"{where}: the first record carries no TCP payload from {m['src']}")
            check(abs(float(row.get("frame.time_epoch", 0)) - m["time"]) < 2e-6, f"{where}: time differs")
            if m.get("expect") == "error":
                lost = tshark(path, ["frame.number"], "-Y", f"tcp.analysis.lost_segment and tcp.srcport=={m['src'].split(':')[1]}")[0]
                lost_frames = [int(r["frame.number"]) for r in lost]
                check(any(m["frame"] < f <= m["websocket"]["last_frame"] for f in lost_frames),
                      f"{where}: tshark reports no lost segment inside the damaged message")
                continue
            g = got_by_last.get(m["websocket"]["last_frame"])
            if not check(g is not None, f"{where}: tshark has no message ending in frame {m['websocket']['last_frame']}"):
                continue
            check(len(g["frames"]) == m["websocket"]["fragments"], f"{where}: fragment count differs")
            check(g["compressed"] == m["websocket"]["compressed"], f"{where}: RSV1 differs")
            check(g["masked"] == m["websocket"]["masked"], f"{where}: mask differs")
            check(g["frames"][0] >= m["frame"], f"{where}: tshark's first fragment precedes the fixture's frame")
            if g["text"] and not g["text"].startswith("Decompression"):
                texts_checked += 1
                verify_envelope(where, g["text"], m)
    check(texts_checked >= 1, f"{name}: tshark showed no WebSocket text to check")
    for e in fx.get("events", []):
        if e["event"] == "close":
            match = [c for c in controls if c["frame"] == e["frame"] and c["key"] == (e["src"], e["dst"])]
            check(match and match[0]["opcode"] == 8 and int(match[0]["code"]) == e["code"],
                  f"{name} frame {e['frame']}: no close {e['code']} there")


def verify_envelope(where, text, m):
    """The text tshark shows is an envelope of the right kind; where it is
    complete, the inner JSON carries the fixture's fields."""
    check(text.startswith('{"type":"%s"' % m["message"]), f"{where}: envelope type differs: {text[:40]}")
    if len(text) >= 262144:  # tshark cuts long strings: check the start of the inner JSON only
        head = json.loads(text[:text.index('"payload":"')] + '"x":0}')
        b64 = text[text.index('"payload":"') + 11:][:400]
        inner_head = base64.b64decode(b64[:len(b64) // 4 * 4]).decode("utf-8", "replace")
        check('"frameId":"%s"' % m["fields"].get("frameId") in inner_head, f"{where}: frameId differs")
        return
    env = json.loads(text)
    inner = json.loads(base64.b64decode(env["payload"], validate=True))
    for k, v in m["fields"].items():
        check(inner.get(k) == v, f"{where}: inner {k} differs")


def verify_checksums(name, path, fx):
    rows, _, _ = tshark(path, ["frame.number", "ip.checksum.status", "udp.checksum.status"],
                        "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE")
    expected = {r["frame.number"]: ("1", "1") for r in rows}
    for d in fx["damage"]:
        ip, udp = expected[str(d["frame"])]
        if d["layer"] == "ipv4":
            ip = "0"
        elif d.get("is_error") is False:
            udp = "3"  # "not present"
        else:
            udp = "0"
        expected[str(d["frame"])] = (ip, udp)
    for r in rows:
        check((r["ip.checksum.status"], r["udp.checksum.status"]) == expected[r["frame.number"]],
              f"{name} frame {r['frame.number']}: checksum status {r['ip.checksum.status']}/{r['udp.checksum.status']}")


def verify(fixture_path):
    fx = json.load(open(fixture_path))
    name = fx["capture"]
    path = os.path.join(CAPTURES, name)
    fields = ["frame.number", "frame.time_epoch", "ip.src", "ip.dst", "udp.srcport", "udp.dstport", "tcp.srcport",
              "tcp.dstport", "tcp.len", "udp.payload"]
    rows, status, stderr = tshark(path, fields)
    frames = {int(r["frame.number"]): r for r in rows}
    check(len(rows) == fx["records"], f"{name}: tshark reads {len(rows)} records, fixture says {fx['records']}")
    if "cut short" in stderr:
        check(any("ends inside record" in d["what"] for d in fx.get("damage", [])), f"{name}: unexpectedly cut short")
    else:
        check(status == 0, f"{name}: tshark failed: {stderr.strip()}")
    if any(d.get("layer") for d in fx.get("damage", [])):
        verify_checksums(name, path, fx)
    verify_udp(name, fx, frames)
    verify_websocket(name, path, fx, frames)
    return name, fx


def main():
    fixtures = sorted(glob.glob(os.path.join(CAPTURES, "expected", "*.json")))
    captures = sorted(glob.glob(os.path.join(CAPTURES, "*.pcap*")) + glob.glob(os.path.join(CAPTURES, "damaged", "*.pcap*")))
    named = {json.load(open(f))["capture"] for f in fixtures}
    for c in captures:
        check(os.path.relpath(c, CAPTURES) in named, f"{c}: no fixture")
    for f in fixtures:
        before = len(FAILURES)
        name, fx = verify(f)
        state = "ok" if len(FAILURES) == before else "FAILED"
        print(f"{state:6} {name}: {fx['records']} records, {len(fx['messages'])} messages")
    for failure in FAILURES:
        print("  -", failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
