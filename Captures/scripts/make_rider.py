#!/usr/bin/env python3
"""rider-20hz.pcap: 60 Rider `drive` datagrams at 20 Hz (a joystick sweep),
then 2 `move` and 2 `legacy` datagrams, app 127.0.0.1:40001 → robot :5005."""

import os
import sys

import pcaplib
import scenarios
import wire

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
APP_PORT = 40001


def main():
    wire.self_test()
    path = os.path.join(CAPTURES, "rider-20hz.pcap")
    with pcaplib.Recorder(path, f"udp port 5005 and udp port {APP_PORT}"):
        sent = scenarios.rider_traffic(APP_PORT)
    pcaplib.match_udp(path, sent)
    fx = pcaplib.write_fixture(os.path.join(CAPTURES, "expected", "rider-20hz.json"), "rider-20hz.pcap", path, sent,
                               made_by="scripts/make_rider.py",
                               notes=["UDP checksums are partial (loopback checksum offload): every one looks wrong "
                                      "to a validator; that is normal for lo, not damage."])
    print(f"rider-20hz.pcap: {fx['records']} records, {len(fx['messages'])} messages")


if __name__ == "__main__":
    sys.exit(main())
