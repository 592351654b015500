"""Encoders for the four wire formats of docs/protocols.md.

Written from docs/protocols.md alone (pktbench is not used to make the samples).
Every golden vector docs/protocols.md gives is asserted by `self_test()`, which
every generator runs before it sends anything.
"""

import base64
import hashlib
import hmac
import json
import struct

# ---------------------------------------------------------------- 1. Rider


def _number(value):
    """A JSON number the way the app's JSONSerialization writes a Double:
    integral values without a fraction, others as the shortest repr."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def rider_drive(left, right, timestamp):
    """§1a `drive`: {"left":…, "right":…, "timestamp":…}, compact JSON."""
    obj = {"left": _number(left), "right": _number(right), "timestamp": timestamp}
    return json.dumps(obj, separators=(",", ":")).encode()


def rider_move(command, speed, direction, timestamp):
    """§1c `move` variant."""
    obj = {"command": command, "speed": speed, "direction": direction, "timestamp": timestamp}
    return json.dumps(obj, separators=(",", ":")).encode()


def rider_legacy(left, right, direction):
    """§1b `legacy` text: ASCII "left,right,direction", integers."""
    return f"{int(left)},{int(right)},{int(direction)}".encode("ascii")


def joystick_mix(x, y):
    """§1a mixing: left = 100y + 100x, right = 100y − 100x, scaled together
    so the larger magnitude is at most 100."""
    left, right = 100 * y + 100 * x, 100 * y - 100 * x
    biggest = max(abs(left), abs(right))
    if biggest > 100:
        left, right = left * 100 / biggest, right * 100 / biggest
    return left, right


# --------------------------------------------------------------- 2. LegCtrl

LEGCTRL_TYPES = {0x01: "arm", 0x02: "disarm", 0x03: "set_servo_ch0", 0x04: "ping", 0x10: "telemetry"}
LEGCTRL_STATES = {0: "DISARMED", 1: "ARMED", 2: "FAULT"}
LEGCTRL_ERRORS = {0: "NONE", 1: "DEADMAN_TIMEOUT", 2: "LOW_BATTERY", 3: "I2C_FAULT", 4: "INVALID_CMD", 0xFF: "UNKNOWN"}


def legctrl(msg_type, payload=b""):
    """4-byte header (version 01, msg_type, payload_len, reserved 00) + payload."""
    return bytes([0x01, msg_type, len(payload), 0x00]) + payload


def legctrl_arm():
    return legctrl(0x01)


def legctrl_disarm():
    return legctrl(0x02)


def legctrl_ping():
    return legctrl(0x04)


def legctrl_set_servo_ch0(pulse_us):
    return legctrl(0x03, struct.pack("<H", pulse_us))


def legctrl_telemetry(state, error_code, last_cmd_age_ms, battery_mv, reserved=0):
    age = min(last_cmd_age_ms, 0xFFFF)
    return legctrl(0x10, struct.pack("<BBHHH", state, error_code, age, battery_mv, reserved))


# ---------------------------------------------------------------- 3. Rallie


def xor_check(data):
    value = 0
    for byte in data:
        value ^= byte
    return value


def modbus16lo_check(data):
    """Low byte of CRC-16/MODBUS (init FFFF, reflected poly A001)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc & 0xFF


CHECKS = {"xor": xor_check, "modbus16lo": modbus16lo_check}
RALLIE_CODES = {0: "rejected", 1: "accepted", 2: "completed"}


def rallie_command(upper_wheel, lower_wheel, pitch, yaw, feed, control, check_variant="xor"):
    body = bytes([0x5A, 0xA5, 0x83, upper_wheel, lower_wheel, pitch, yaw, feed, control])
    return body + bytes([CHECKS[check_variant](body)])


def rallie_response(code, check_variant="xor"):
    body = bytes([0x5A, 0xA5, 0x82, code])
    return body + bytes([CHECKS[check_variant](body)])


# ------------------------------------------------------------- 4. FalconEye


def inner_json(obj):
    """The inner message as Swift's JSONEncoder writes it (compact)."""
    return json.dumps(obj, separators=(",", ":")).encode()


def envelope(kind, timestamp, inner_bytes):
    """{"type":kind,"timestamp":unix s,"payload":base64(inner JSON)}."""
    obj = {"type": kind, "timestamp": timestamp, "payload": base64.b64encode(inner_bytes).decode("ascii")}
    return json.dumps(obj, separators=(",", ":"))


def auth_token(secret, device_id, timestamp):
    """The client document's token: base64(HMAC-SHA256(secret, "<deviceId>:<timestamp>"))."""
    message = f"{device_id}:{timestamp}"
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii"), message


# ----------------------------------------------------------- golden vectors


def self_test():
    # §2 LegCtrl
    assert legctrl_set_servo_ch0(1500) == bytes.fromhex("01030200DC05")
    assert legctrl_arm() == bytes.fromhex("01010000")
    assert legctrl_disarm() == bytes.fromhex("01020000")
    assert legctrl_ping() == bytes.fromhex("01040000")
    assert legctrl_telemetry(0, 0, 0, 7400) == bytes.fromhex("011008000000" "0000E81C0000")
    assert legctrl_telemetry(2, 1, 200, 7400) == bytes.fromhex("011008000201" "C800E81C0000")
    # §3 Rallie
    vector = bytes.fromhex("5AA58332322D2D3200")
    assert xor_check(vector) == 0x4E
    assert modbus16lo_check(vector) == 0x41
    assert rallie_command(0x32, 0x32, 0x2D, 0x2D, 0x32, 0) == vector + b"\x4e"
    assert rallie_command(0x32, 0x32, 0x2D, 0x2D, 0x32, 0, "modbus16lo") == vector + b"\x41"
    for code, x, m in ((0, 0x7D, 0x62), (1, 0x7C, 0xA3), (2, 0x7F, 0xE3)):
        assert rallie_response(code)[4] == x, code
        assert rallie_response(code, "modbus16lo")[4] == m, code
    # §1 Rider mixing: full right stick spins in place, diagonal is scaled.
    assert joystick_mix(1, 0) == (100, -100)
    assert joystick_mix(1, 1) == (100, 0)
    assert rider_legacy(50, -50, 2) == b"50,-50,2"
    # §4 envelope: payload is standard padded base64 of the inner JSON.
    env = json.loads(envelope("heartbeat", 1.5, b"{}"))
    assert env == {"type": "heartbeat", "timestamp": 1.5, "payload": "e30="}


if __name__ == "__main__":
    self_test()
    print("wire.py: all docs/protocols.md vectors pass")
