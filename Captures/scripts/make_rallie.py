#!/usr/bin/env python3
"""rallie-udp.pcap: Rallie v0.3 (docs/protocols.md §3) over UDP, app
127.0.0.1:40003 → machine :9100, one command every 2 s (the app's minimum):
4 commands with the XOR check (accepted, accepted, rejected, completed), then
2 with the MODBUS-low check (accepted, completed)."""

import os
import sys

import pcaplib
import scenarios
import wire

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
APP_PORT = 40003


def main():
    wire.self_test()
    path = os.path.join(CAPTURES, "rallie-udp.pcap")
    with pcaplib.Recorder(path, f"udp port 9100 and udp port {APP_PORT}"):
        sent = scenarios.rallie_traffic(APP_PORT, scenarios.RALLIE_SESSION)
    pcaplib.match_udp(path, sent)
    fx = pcaplib.write_fixture(os.path.join(CAPTURES, "expected", "rallie-udp.json"), "rallie-udp.pcap", path, sent,
                               made_by="scripts/make_rallie.py",
                               notes=["Rallie is BLE in the field; here the same bytes ride UDP so a capture can "
                                      "carry them. The machine side is a Python model: out-of-range → rejected, "
                                      "start → accepted, stop → completed, same check variant as the command.",
                                      "UDP checksums are partial (loopback offload); normal for lo."])
    print(f"rallie-udp.pcap: {fx['records']} records, {len(fx['messages'])} messages")


if __name__ == "__main__":
    sys.exit(main())
