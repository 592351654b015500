"""A FalconEye session (docs/protocols.md §4) over a real WebSocket on
127.0.0.1:8000: a stand-in for the Aerie server and a HawkSight-like client,
both written with the `websockets` library, in one asyncio loop.

Returns what each side sent, one entry per message, with the exact text in
"_text" and the direction in "_dir" ("c2s" or "s2c")."""

import asyncio
import base64
import hashlib
import io
import json
import math
import random
import socket
import time
import uuid

from PIL import Image, ImageDraw
from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

import wire

HOST, PORT = "127.0.0.1", 8000
SECRET = "pktbench-sample-secret"
JOINTS = ["head", "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist"]
WIDTH, HEIGHT = 1280, 960


def make_jpeg(seed):
    """A real JPEG (quality 60) of a gradient with noise and a moving disc;
    the noise keeps it at ~230 KB, like a phone camera frame."""
    rng = random.Random(seed)
    r = Image.linear_gradient("L").resize((WIDTH, HEIGHT))
    g = Image.linear_gradient("L").transpose(Image.Transpose.ROTATE_90).resize((WIDTH, HEIGHT))
    b = Image.radial_gradient("L").resize((WIDTH, HEIGHT))
    img = Image.merge("RGB", (r, g, b))
    cx = 200 + 300 * seed
    ImageDraw.Draw(img).ellipse((cx, 300, cx + 260, 560), fill=(230, 120, 40))
    noise = Image.frombytes("RGB", (WIDTH, HEIGHT), rng.randbytes(WIDTH * HEIGHT * 3))
    img = Image.blend(img, noise, 0.3)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=60)
    data = buf.getvalue()
    assert data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9"
    return data


def device_pose(step):
    """Row-major 4×4: a small yaw and a walk along x."""
    a = 0.05 * step
    c, s = round(math.cos(a), 6) + 0.0, round(math.sin(a), 6) + 0.0  # + 0.0: never write -0.0
    return [[c, 0.0, s, round(0.1 * step, 3)],
            [0.0, 1.0, 0.0, 1.45],
            [-s + 0.0, 0.0, c, -0.5],
            [0.0, 0.0, 0.0, 1.0]]


INTRINSICS = {"fx": 1012.5, "fy": 1012.5, "cx": 640.0, "cy": 480.0, "width": WIDTH, "height": HEIGHT}


def ws_entry(direction, client, kind, text, fields, **extra):
    src, dst = (client, f"{HOST}:{PORT}") if direction == "c2s" else (f"{HOST}:{PORT}", client)
    return {"transport": "websocket", "src": src, "dst": dst, "codec": "falconeye", "message": kind,
            "fields": fields, "_text": text, "_dir": direction, **extra}


async def run_session(client_port, compression, frames, fragment_last):
    client = f"{HOST}:{client_port}"
    log = []
    done = asyncio.Event()
    device_id = str(uuid.UUID(int=random.Random(client_port).getrandbits(128), version=4)).upper()

    async def server_handler(ws):
        assert ws.request.path == f"/ws/connect/{device_id}", ws.request.path
        async for text in ws:
            kind = json.loads(text)["type"]
            if kind == "authRequest":
                inner = {"success": True, "sessionId": str(uuid.uuid4()).upper()}
                out = wire.envelope("authResponse", time.time(), wire.inner_json(inner))
                log.append(ws_entry("s2c", client, "authResponse", out, inner))
            elif kind == "heartbeat":
                raw = b'{"pong": true}'  # the real server's bytes, with the space
                out = wire.envelope("heartbeat", time.time(), raw)
                log.append(ws_entry("s2c", client, "heartbeat", out, {"pong": True}))
            elif kind == "cameraFrame":
                log.append({"_seen": 1})
                if sum(1 for e in log if "_seen" in e) < frames:
                    continue
                inner = {"timestamp": time.time(), "poses": [{
                    "personId": str(uuid.UUID(int=7, version=4)).upper(),
                    "joints": [{"type": j, "position": [round(0.2 * (i % 3) - 0.2, 3), round(1.7 - 0.15 * i, 3), 2.4],
                                "confidence": round(0.95 - 0.03 * i, 2)} for i, j in enumerate(JOINTS[:5])],
                    "sourceDevice": device_id, "confidence": 0.88}]}
                out = wire.envelope("poseBroadcast", time.time(), wire.inner_json(inner))
                log.append(ws_entry("s2c", client, "poseBroadcast", out, inner))
            else:
                continue
            await ws.send(out)

    async with serve(server_handler, HOST, PORT, compression=compression, ping_interval=None,
                     server_header="Aerie-standin (Python websockets)"):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((HOST, client_port))
        sock.connect((HOST, PORT))
        async with connect(f"ws://{HOST}:{PORT}/ws/connect/{device_id}", sock=sock, compression=compression,
                           proxy=None, ping_interval=None, user_agent_header="HawkSight-standin (Python websockets)") as ws:
            ts = int(time.time())
            token, signed = wire.auth_token(SECRET, device_id, ts)
            inner = {"deviceId": device_id, "token": token,
                     "deviceInfo": {"model": "iPhone16,1", "osVersion": "17.5.1", "hasLiDAR": True}}
            text = wire.envelope("authRequest", time.time(), wire.inner_json(inner))
            log.append(ws_entry("c2s", client, "authRequest", text, inner,
                                token_signing={"secret": SECRET, "signed": signed, "algorithm": "HMAC-SHA256, base64"}))
            await ws.send(text)
            await ws.recv()
            text = wire.envelope("heartbeat", time.time(), b"{}")
            log.append(ws_entry("c2s", client, "heartbeat", text, {}))
            await ws.send(text)
            await ws.recv()
            for n in range(frames):
                jpeg = make_jpeg(n + 1)
                ts = time.time()
                inner = {"frameId": f"frame-{n + 1:04d}", "timestamp": ts,
                         "imageData": base64.b64encode(jpeg).decode("ascii"),
                         "devicePose": device_pose(n), "intrinsics": INTRINSICS}
                text = wire.envelope("cameraFrame", ts, wire.inner_json(inner))
                fields = {k: v for k, v in inner.items() if k != "imageData"}
                fields.update(jpeg_bytes=len(jpeg), jpeg_sha256=hashlib.sha256(jpeg).hexdigest())
                log.append(ws_entry("c2s", client, "cameraFrame", text, fields))
                if fragment_last and n == frames - 1:
                    third = len(text) // 3
                    await ws.send([text[:third], text[third:2 * third], text[2 * third:]])
                else:
                    await ws.send(text)
                await asyncio.sleep(1 / 30)
            await ws.recv()  # the poseBroadcast
            await ws.close(1000)
            done.set()
    return [e for e in log if "_seen" not in e], device_id


def falconeye_session(client_port, compression=None, frames=3, fragment_last=True):
    return asyncio.run(run_session(client_port, compression, frames, fragment_last))
