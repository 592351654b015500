#!/usr/bin/env python3
"""Check both Python models of the LegCtrl firmware (scenarios.LegCtrlDevice
for the UDP captures, ble_make.LegCtrlFirmware for the BLE ones) against the
recordings of the real firmware at work (a directory of captures paired
with the firmware's own logs, given as the argument; the project keeps them
beside the repository, not in it): every write the firmware logged is fed to each model at the
firmware's own uptime, and after each write and at each telemetry tick the
model must report the state, error_code, last_cmd_age_ms and servo output
the firmware did.

The models leave out the link (disconnect, reconnect) and I2C failures, which
the sample captures never show: a recording is followed up to the first
such event. Skipped, with a note, when the recordings are not there.

Run: python3 firmware_truth.py [DEVICE_TRUTH_DIR]. Other generators check
their own model with check() (Tests/Fixtures/analyze/make_analyze_captures.py
does)."""

import glob
import json
import os
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "..", "..", "shared", "device-truth", "legctrl")
NOT_MODELLED = ("link_disconnect", "link_connect", "pwm_failure")


def udp_model():
    import scenarios
    device = scenarios.LegCtrlDevice(None, None)
    # Seconds as exact fractions, so that whole milliseconds stay whole.
    return "scenarios.LegCtrlDevice", device, lambda ms: Fraction(ms, 1000), device.handle


def ble_model():
    try:
        import ble_make
    except SystemExit:  # scapy is missing
        print("firmware_truth: scapy is missing: ble_make.LegCtrlFirmware not checked")
        return None
    firmware = ble_make.LegCtrlFirmware(None, 0, None, None)
    return "ble_make.LegCtrlFirmware", firmware, lambda ms: ms * 1000, lambda data, at: firmware.write(at, data)


def replay(path, name, model, clock, write):
    """Feed one recording to one model (write(data, now) is its write
    handler, clock(ms) its time for a firmware uptime); returns the number
    of checks made and the disagreements."""
    checks, problems = 0, []
    received, pulse = None, None
    for line in open(path):
        event = json.loads(line)
        kind, ms = event["event"], event["uptime_ms"]
        if kind in NOT_MODELLED:
            break
        if kind == "log" and event["text"].startswith("CMD received: "):
            received = bytes.fromhex(event["text"][len("CMD received: "):])
        elif kind == "pwm":
            pulse = event["pulse_us"]
        elif kind == "command_done":
            assert received is not None and len(received) == event["length"], (path, event)
            write(received, clock(ms))
            got = (model.state, model.error, model.age_ms(clock(ms)), model.pulse_us)
            want = (event["state"], event["error"], event["age_ms"], pulse)
            if got != want:
                problems.append(f"{ms} ms, after {received.hex(' ')}: model {got}, firmware {want}")
            checks += 1
            received = None
        elif kind == "telemetry_sent":
            data = bytes.fromhex(event["hex"])
            got = model.tick(clock(ms)) + (model.pulse_us,)
            want = (data[4], data[5], int.from_bytes(data[6:8], "little"), pulse)
            if got != want:
                problems.append(f"{ms} ms, telemetry: model {got}, firmware {want}")
            checks += 1
    return checks, [f"{name} on {os.path.basename(path)}: {p}" for p in problems]


def check(models, folder=DEFAULT):
    """Replay every recording through fresh models: models is a list of
    functions each giving (name, model, clock, write) or None when it cannot
    be built. Prints what it found; returns 0 when all agree."""
    recordings = sorted(glob.glob(os.path.join(folder, "*.firmware.jsonl")))
    if not recordings:
        print(f"firmware_truth: no recordings in {os.path.normpath(folder)}: skipped")
        return 0
    problems, checks, names = [], 0, []
    for make in models:
        for path in recordings:
            built = make()
            if built is None:
                break
            made, found = replay(path, *built)
            problems += found
            checks += made
        if built is not None:
            names.append(built[0])
    for problem in problems[:20]:
        print("firmware_truth:", problem, file=sys.stderr)
    if problems:
        print(f"firmware_truth: {len(problems)} disagreements with the real firmware", file=sys.stderr)
        return 1
    print(f"firmware_truth: {', '.join(names)} agree with {len(recordings)} recordings ({checks} checks)")
    return 0


def main():
    sys.path.insert(0, HERE)
    return check([udp_model, ble_model], sys.argv[1] if len(sys.argv) > 1 else DEFAULT)


if __name__ == "__main__":
    sys.exit(main())
