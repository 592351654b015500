"""LegCtrl (§2) and Rallie (§3) application payloads for the BLE captures,
written from docs/protocols.md alone (not from pktbench, and not
shared with the UDP generators' wire.py, so the two stay independent
checks of each other). self_test() asserts every golden vector of §2/§3."""

import struct

# ------------------------------------------------------------------ LegCtrl

LEGCTRL_SERVICE = "12345678-1234-1234-1234-123456789abc"
LEGCTRL_COMMAND = "12345678-1234-1234-1234-123456789abd"  # write without response
LEGCTRL_TELEMETRY = "12345678-1234-1234-1234-123456789abe"  # notify

LEGCTRL_TYPES = {"arm": 0x01, "disarm": 0x02, "set_servo_ch0": 0x03, "ping": 0x04, "telemetry": 0x10}
LEGCTRL_STATES = {0: "DISARMED", 1: "ARMED", 2: "FAULT"}
LEGCTRL_ERRORS = {0: "NONE", 1: "DEADMAN_TIMEOUT", 2: "LOW_BATTERY", 3: "I2C_FAULT", 4: "INVALID_CMD",
                  0xFF: "UNKNOWN"}


def legctrl(message, payload=b""):
    return bytes([0x01, LEGCTRL_TYPES[message], len(payload), 0x00]) + payload


def legctrl_set_servo_ch0(pulse_us):
    return legctrl("set_servo_ch0", struct.pack("<H", pulse_us))


def legctrl_telemetry(state, error_code, age_ms, battery_mv):
    return legctrl("telemetry", struct.pack("<BBHHH", state, error_code, min(age_ms, 0xFFFF), battery_mv, 0))


def legctrl_fields(payload):
    """The fixture's `fields` for a LegCtrl payload this module built."""
    kind = payload[1]
    if kind == LEGCTRL_TYPES["set_servo_ch0"]:
        return {"pulse_us": struct.unpack("<H", payload[4:6])[0]}
    if kind == LEGCTRL_TYPES["telemetry"]:
        state, error, age, battery, _ = struct.unpack("<BBHHH", payload[4:12])
        return {"state": LEGCTRL_STATES[state], "error_code": LEGCTRL_ERRORS[error], "last_cmd_age_ms": age,
                "battery_mv": battery}
    return {}


def legctrl_message(payload):
    return {v: k for k, v in LEGCTRL_TYPES.items()}[payload[1]]


# ------------------------------------------------------------------- Rallie

RALLIE_SERVICE = "5833ff01-9b8b-5191-6142-22a4536ef123"
RALLIE_WRITE = "5833ff02-9b8b-5191-6142-22a4536ef123"  # write with response
RALLIE_NOTIFY = "5833ff03-9b8b-5191-6142-22a4536ef123"  # notify
RALLIE_CODES = {0: "rejected", 1: "accepted", 2: "completed"}
RALLIE_LIMITS = (100, 100, 90, 90, 100, 1)  # upper, lower, pitch, yaw, feed, control


def xor(data):
    value = 0
    for b in data:
        value ^= b
    return value


def rallie_command(upper_wheel, lower_wheel, pitch, yaw, feed, control):
    body = bytes([0x5A, 0xA5, 0x83, upper_wheel, lower_wheel, pitch, yaw, feed, control])
    return body + bytes([xor(body)])


def rallie_response(code):
    body = bytes([0x5A, 0xA5, 0x82, code])
    return body + bytes([xor(body)])


def rallie_fields(payload):
    if len(payload) == 10:
        up, low, pitch, yaw, feed, control = payload[3:9]
        return {"upper_wheel": up, "lower_wheel": low, "pitch": pitch, "yaw": yaw, "feed": feed,
                "control": "start" if control == 1 else "stop", "check": payload[9], "check_variant": "xor"}
    return {"code": RALLIE_CODES[payload[3]], "check": payload[4], "check_variant": "xor"}


def rallie_answer(command):
    """The machine model of the UDP capture (scripts/scenarios.py), for the
    same behaviour over BLE: out of range → rejected, start → accepted, stop
    → completed."""
    values = command[3:9]
    if any(v > limit for v, limit in zip(values, RALLIE_LIMITS)):
        return 0
    return 1 if values[5] == 1 else 2


def self_test():
    h = bytes.fromhex
    assert legctrl_set_servo_ch0(1500) == h("01 03 02 00 DC 05")
    assert legctrl("arm") == h("01 01 00 00")
    assert legctrl("disarm") == h("01 02 00 00")
    assert legctrl("ping") == h("01 04 00 00")
    assert legctrl_telemetry(0, 0, 0, 7400) == h("01 10 08 00 00 00 00 00 E8 1C 00 00")
    assert legctrl_telemetry(2, 1, 200, 7400) == h("01 10 08 00 02 01 C8 00 E8 1C 00 00")
    assert rallie_command(0x32, 0x32, 0x2D, 0x2D, 0x32, 0) == h("5A A5 83 32 32 2D 2D 32 00 4E")
    assert [rallie_response(c)[4] for c in (0, 1, 2)] == [0x7D, 0x7C, 0x7F]
