#!/usr/bin/env python3
"""legctrl-udp.pcap: LegCtrl (docs/protocols.md §2) over UDP, app 127.0.0.1:40002
→ device :9000. PING, ARM, SET_SERVO_CH0 at 50 Hz for ~2 s (1000…2000 µs),
telemetry at 10 Hz, a 300 ms stall that trips the deadman (FAULT /
DEADMAN_TIMEOUT), DISARM, telemetry DISARMED. The device is a model of the
real firmware (§5, scenarios.LegCtrlDevice)."""

import os
import sys

import pcaplib
import scenarios
import wire

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURES = os.path.dirname(HERE)
APP_PORT = 40002


def main():
    wire.self_test()
    path = os.path.join(CAPTURES, "legctrl-udp.pcap")
    with pcaplib.Recorder(path, f"udp port 9000 and udp port {APP_PORT}"):
        sent = scenarios.legctrl_traffic(APP_PORT)
    pcaplib.match_udp(path, sent)
    faults = [m for m in sent if m["message"] == "telemetry" and m["fields"]["state"] == "FAULT"]
    assert faults and faults[0]["fields"]["error_code"] == "DEADMAN_TIMEOUT"
    assert faults[0]["fields"]["last_cmd_age_ms"] >= 200
    # §5: age 0 until the first command that counts (the PING in DISARMED does not) and after DISARM.
    assert all(m["fields"]["last_cmd_age_ms"] == 0 for m in sent
               if m["message"] == "telemetry" and m["fields"]["state"] == "DISARMED")
    fx = pcaplib.write_fixture(os.path.join(CAPTURES, "expected", "legctrl-udp.json"), "legctrl-udp.pcap", path, sent,
                               made_by="scripts/make_legctrl.py",
                               notes=["The device side is a Python model of the LegCtrl firmware as its own code "
                                      "behaves (docs/protocols.md §5, checked against the device-truth recordings "
                                      "by scripts/firmware_truth.py): 100 ms tick, deadman check, then "
                                      "telemetry.",
                                      "The PING before ARM is ignored in DISARMED, and DISARM resets the age: "
                                      "every DISARMED telemetry reports last_cmd_age_ms 0.",
                                      "The first telemetry is the §2 golden vector DISARMED/NONE/age 0/7400 mV.",
                                      "UDP checksums are partial (loopback offload); normal for lo."])
    print(f"legctrl-udp.pcap: {fx['records']} records, {len(fx['messages'])} messages")


if __name__ == "__main__":
    sys.exit(main())
