#!/usr/bin/env python3
"""field-session.pcapng: all four protocols at once, recorded with dumpcap
(pcapng): Rider at 20 Hz (app :40011 → :5005), LegCtrl (app :40012 ↔ :9000),
Rallie (app :40013 ↔ :9100, one command every 2 s) and a short FalconEye
WebSocket session with one camera frame (client :40014 → :8000), each peer
in its own thread, so their packets interleave."""

import os
import sys
import threading
import time

import falconeye
import pcaplib
import scenarios
import wire
import wsstream

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
RIDER, LEGCTRL, RALLIE, WS = 40011, 40012, 40013, 40014
BPF = (f"(udp port 5005 and udp port {RIDER}) or (udp port 9000 and udp port {LEGCTRL}) or "
       f"(udp port 9100 and udp port {RALLIE}) or (tcp port 8000 and tcp port {WS})")


def main():
    wire.self_test()
    path = os.path.join(CAPTURES, "field-session.pcapng")
    results, errors = {}, []

    def run(name, fn, *args, delay=0.0, **kwargs):
        def body():
            try:
                time.sleep(delay)
                results[name] = fn(*args, **kwargs)
            except Exception as exc:  # reported after the capture stops
                errors.append((name, exc))
        return threading.Thread(target=body, name=name)

    threads = [
        run("rider", scenarios.rider_traffic, RIDER, drive_count=40, moves=1, legacies=1),
        run("legctrl", scenarios.legctrl_traffic, LEGCTRL, pulses=range(1000, 2001, 20), delay=0.1),
        run("rallie", scenarios.rallie_traffic, RALLIE, scenarios.RALLIE_SESSION[:2] + scenarios.RALLIE_SESSION[4:5],
            delay=0.2),
        run("falconeye", falconeye.falconeye_session, WS, None, frames=1, fragment_last=False, delay=0.6),
    ]
    with pcaplib.Recorder(path, BPF, pcapng=True):
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if errors:
        raise RuntimeError(errors)
    ws_sent, device_id = results["falconeye"]
    sent = results["rider"] + results["legctrl"] + results["rallie"] + ws_sent
    pcaplib.match_udp(path, sent)
    # The LegCtrl device is a model of the real firmware (docs/protocols.md §5): age 0 whenever DISARMED.
    assert all(m["fields"]["last_cmd_age_ms"] == 0 for m in results["legctrl"]
               if m["message"] == "telemetry" and m["fields"]["state"] == "DISARMED")
    events = wsstream.match_websocket(path, sent)
    fx = pcaplib.write_fixture(
        os.path.join(CAPTURES, "expected", "field-session.json"), "field-session.pcapng", path, sent,
        made_by="scripts/make_field_session.py", websocket_port=8000, device_id=device_id, events=events,
        notes=["pcapng written by dumpcap (one interface, lo, EN10MB).",
               "Four protocols interleave in time; each runs as in its own sample capture, shorter.",
               "UDP and TCP checksums are partial (loopback offload); normal for lo, not damage."])
    counts = {}
    for m in fx["messages"]:
        counts[m["codec"]] = counts.get(m["codec"], 0) + 1
    print(f"field-session.pcapng: {fx['records']} records, {len(fx['messages'])} messages {counts}")


if __name__ == "__main__":
    sys.exit(main())
