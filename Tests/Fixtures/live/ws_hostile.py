#!/usr/bin/env python3
"""Hostile WebSocket clients for `listen ws:`/`wss:` and `emulate falconeye`
(issue 34), over raw sockets: the bytes on the wire are exactly these
(RFC 6455 framing written here, not by a WebSocket library). Every wait is
bounded. Prints one JSON line of what happened.

  ws_hostile.py MODE PORT [ARGS...]

  ping-flood PORT MB            upgrade, send MB of masked pings, read nothing;
                                say how far it got and how the server ended it
  heartbeat-flood PORT MB       the same with FalconEye heartbeats (after an
                                authRequest) to `emulate falconeye`
  silent PORT N SECONDS         N TCP connections that send nothing; after
                                SECONDS, how many the server has closed
  idle PORT N SECONDS           N upgraded connections that send nothing, the
                                first with a 1 MB frame begun and never
                                finished; the close code each got within SECONDS
  connect PORT N                N upgrades one after another, each held open;
                                how many were upgraded, refused or left hanging
  close-payload PORT HEX        send a close frame with this payload; the
                                server's close code
  text PORT HEX                 send a text frame with this payload; the
                                server's close code, or "open"
  fragments PORT HEX HEX        a text message in two fragments
"""

import base64
import json
import os
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "Captures", "scripts"))
import wire  # noqa: E402

DEVICE_ID = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"


def connect(port, timeout=15):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def upgrade(s, path="/ws/connect/" + DEVICE_ID):
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n" % (path, key)).encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            return None
        head += chunk
    return head.split(b"\r\n")[0].decode()


def masked(first, payload):
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    n = len(payload)
    if n <= 125:
        length = bytes([0x80 | n])
    elif n <= 0xFFFF:
        length = bytes([0x80 | 126]) + struct.pack("!H", n)
    else:
        length = bytes([0x80 | 127]) + struct.pack("!Q", n)
    return bytes([first]) + length + mask + body


def read_frames(s, seconds):
    """The server's frames until it closes or the time is up: (opcode, payload) pairs."""
    s.settimeout(max(0.1, seconds))
    end = time.monotonic() + seconds
    data, frames = b"", []
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except (socket.timeout, BlockingIOError):
            break
        except OSError:
            break
        if not chunk:
            frames.append(("eof", b""))
            break
        data += chunk
        while len(data) >= 2:
            n = data[1] & 0x7F
            at = 2
            if n == 126:
                if len(data) < 4:
                    break
                n, at = struct.unpack("!H", data[2:4])[0], 4
            elif n == 127:
                if len(data) < 10:
                    break
                n, at = struct.unpack("!Q", data[2:10])[0], 10
            if len(data) < at + n:
                break
            frames.append((data[0] & 0x0F, data[at:at + n]))
            data = data[at + n:]
        if any(op == 8 for op, _ in frames):
            break
    return frames


def close_code(frames):
    for op, payload in frames:
        if op == 8:
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else "empty"
        if op == "eof":
            return "eof"
    return "open"


def flood(port, megabytes, frame, first=b""):
    """Sends `first`, then `frame` over and over, reading nothing, until MB
    are sent or the server has stopped taking them for 5 s."""
    s = connect(port)
    if upgrade(s) is None:
        return {"error": "not upgraded"}
    s.sendall(first)
    s.settimeout(5)
    sent, stalled = 0, False
    target = megabytes * 1_000_000
    batch = frame * max(1, 65536 // len(frame))
    while sent < target:
        try:
            s.sendall(batch)
            sent += len(batch)
        except socket.timeout:
            stalled = True  # the server stopped reading: back-pressure
            break
        except OSError:
            break
    # What the server says next, if it closes: a short look, since a server
    # that only holds back sends nothing and the read would wait it out.
    frames = read_frames(s, 2)
    s.close()
    return {"sent": sent, "stalled": stalled, "close": close_code(frames)}


def heartbeat_flood(port, megabytes):
    """An authRequest, then heartbeats (each answered with a pong the client never reads)."""
    token, _ = wire.auth_token("hostile-secret", DEVICE_ID, int(time.time()))
    inner = {"deviceId": DEVICE_ID, "token": token,
             "deviceInfo": {"model": "iPhone16,1", "osVersion": "17.5.1", "hasLiDAR": True}}
    auth = masked(0x81, wire.envelope("authRequest", time.time(), wire.inner_json(inner)).encode())
    heartbeat = masked(0x81, wire.envelope("heartbeat", time.time(), wire.inner_json({})).encode())
    return flood(port, megabytes, heartbeat, first=auth)


def silent(port, count, seconds):
    sockets = [connect(port) for _ in range(count)]
    time.sleep(seconds)
    closed = 0
    for s in sockets:
        s.setblocking(False)
        try:
            if s.recv(1) == b"":
                closed += 1
        except BlockingIOError:
            pass
        except OSError:
            closed += 1
        s.close()
    return {"connections": count, "closed": closed}


def idle(port, count, seconds):
    sockets = []
    for index in range(count):
        s = connect(port)
        if upgrade(s) is None:
            s.close()
            continue
        sockets.append(s)
    # A 1 MB binary frame begun (its header and the first 1000 bytes) and never finished.
    big = masked(0x82, os.urandom(1_000_000))
    sockets[0].sendall(big[:1014])
    start = time.monotonic()
    codes = [close_code(read_frames(s, max(0.1, seconds - (time.monotonic() - start)))) for s in sockets]
    for s in sockets:
        s.close()
    return {"upgraded": len(sockets), "codes": codes, "after": round(time.monotonic() - start, 1)}


def connect_many(port, count):
    held, outcomes = [], {"upgraded": 0, "refused": 0, "hanging": 0}
    for _ in range(count):
        try:
            s = connect(port, timeout=5)
            status = upgrade(s)
        except (socket.timeout, OSError):
            outcomes["hanging"] += 1
            continue
        if status and status.startswith("HTTP/1.1 101"):
            outcomes["upgraded"] += 1
            held.append(s)
        else:
            outcomes["refused"] += 1
            outcomes.setdefault("statuses", [])
            if status not in outcomes["statuses"]:
                outcomes["statuses"].append(status)
            s.close()
    for s in held:
        s.close()
    return outcomes


def send_frames(port, frames):
    s = connect(port)
    if upgrade(s) is None:
        return {"error": "not upgraded"}
    for frame in frames:
        s.sendall(frame)
    return {"close": close_code(read_frames(s, 5))}


def main():
    mode, port, args = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    if mode == "ping-flood":
        result = flood(port, int(args[0]), masked(0x89, b"p" * 125))
    elif mode == "heartbeat-flood":
        result = heartbeat_flood(port, int(args[0]))
    elif mode == "silent":
        result = silent(port, int(args[0]), float(args[1]))
    elif mode == "idle":
        result = idle(port, int(args[0]), float(args[1]))
    elif mode == "connect":
        result = connect_many(port, int(args[0]))
    elif mode == "close-payload":
        result = send_frames(port, [masked(0x88, bytes.fromhex(args[0]))])
    elif mode == "text":
        result = send_frames(port, [masked(0x81, bytes.fromhex(args[0]))])
    elif mode == "fragments":
        result = send_frames(port, [masked(0x01, bytes.fromhex(args[0])), masked(0x80, bytes.fromhex(args[1]))])
    else:
        sys.exit("unknown mode " + mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
