#!/usr/bin/env python3
"""falconeye-ws.pcap (no compression, client port 40004) and, with
--deflate, falconeye-ws-deflate.pcap (permessage-deflate, client port 40005):
a real WebSocket session on 127.0.0.1:8000 — authRequest, authResponse,
heartbeat both ways, 3 cameraFrames carrying real ~230 KB JPEGs (the third
sent as a fragmented message of 3 frames), a poseBroadcast, close 1000."""

import argparse
import os
import sys

import falconeye
import pcaplib
import wire
import wsstream

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--deflate", action="store_true")
    args = ap.parse_args()
    wire.self_test()
    name = "falconeye-ws-deflate" if args.deflate else "falconeye-ws"
    port = 40005 if args.deflate else 40004
    path = os.path.join(CAPTURES, name + ".pcap")
    with pcaplib.Recorder(path, f"tcp port 8000 and tcp port {port}"):
        sent, device_id = falconeye.falconeye_session(port, "deflate" if args.deflate else None)
    events = wsstream.match_websocket(path, sent)
    fx = pcaplib.write_fixture(
        os.path.join(CAPTURES, "expected", name + ".json"), name + ".pcap", path, sent,
        made_by="scripts/make_falconeye.py" + (" --deflate" if args.deflate else ""),
        websocket_port=8000, device_id=device_id, events=events,
        notes=["frame = the record carrying the first byte of the message's (first) WebSocket frame header; "
               "websocket.last_frame = the record that completes it (where tshark shows it).",
               "The third cameraFrame is one text message sent as 3 parts: websockets writes them as a Text frame "
               "and 2 Continuation frames with FIN 0, then an EMPTY Continuation frame with FIN 1 (4 frames).",
               "Client frames are masked, server frames are not. "
               + ("permessage-deflate was negotiated (websockets' defaults): every data message is compressed "
                  "(RSV1), with context takeover." if args.deflate else "No extension was negotiated."),
               "cameraFrame fields leave out imageData; jpeg_bytes and jpeg_sha256 describe the decoded JPEG.",
               "token_signing: the token is base64(HMAC-SHA256(secret, signed)); the server never checks it "
               "(docs/protocols.md §4).",
               "TCP checksums are partial (loopback offload); normal for lo, not damage."])
    print(f"{name}.pcap: {fx['records']} records, {len(fx['messages'])} messages, {len(events)} events")


if __name__ == "__main__":
    sys.exit(main())
