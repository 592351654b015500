#!/usr/bin/env python3
"""Captures with known faults at known times, for `pktbench analyze` tests.

Every packet is built here (Ethernet/IPv4/UDP or TCP, pcap) from the
encoders in Captures/scripts/wire.py, which assert docs/protocols.md's golden
vectors. Each scenario writes <name>.pcap and lists, in expected.json, the
findings the traffic must produce: rule, severity, the frame and time they
rest on. Those come from how the traffic was made (where a silence was put,
which response was dropped), never from pktbench's output.

Run: python3 Tests/Fixtures/analyze/make_analyze_captures.py
"""

import base64
import hashlib
import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Captures", "scripts"))
import wire  # noqa: E402

wire.self_test()

APP = "10.1.0.2"
DEVICE = "10.1.0.3"
START = 1795400000.0


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ip_bytes(address):
    return bytes(int(part) for part in address.split("."))


class Capture:
    """Records for one pcap, numbered from 1 as pktbench and Wireshark count them."""

    def __init__(self, name):
        self.name = name
        self.records = []
        self.findings = []
        self.ip_id = 1

    def _ipv4(self, src, dst, protocol, payload):
        header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), self.ip_id, 0x4000, 64, protocol, 0,
                             ip_bytes(src), ip_bytes(dst))
        self.ip_id += 1
        header = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
        return b"\0" * 12 + b"\x08\x00" + header + payload

    def udp(self, time, src, sport, dst, dport, payload):
        # Checksum 0: "no checksum", legal for UDP over IPv4.
        datagram = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
        return self.add(time, self._ipv4(src, dst, 17, datagram))

    def tcp(self, time, src, sport, dst, dport, seq, ack, flags, payload=b""):
        header = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
        pseudo = ip_bytes(src) + ip_bytes(dst) + struct.pack("!BBH", 0, 6, len(header) + len(payload))
        header = header[:16] + struct.pack("!H", checksum(pseudo + header + payload)) + header[18:]
        return self.add(time, self._ipv4(src, dst, 6, header + payload))

    def add(self, time, frame):
        self.records.append((time, frame))
        return len(self.records)

    def expect(self, rule, severity, frame, **extra):
        time = self.records[frame - 1][0]
        self.findings.append(dict(rule=rule, severity=severity, frame=frame, time=time, **extra))

    def write(self):
        path = os.path.join(HERE, self.name + ".pcap")
        with open(path, "wb") as out:
            out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
            for time, frame in self.records:
                seconds = int(time)
                micros = int(round((time - seconds) * 1e6))
                if micros == 1_000_000:
                    seconds, micros = seconds + 1, 0
                out.write(struct.pack("<IIII", seconds, micros, len(frame), len(frame)) + frame)
        return path


# ------------------------------------------------------------------ Rider


def rider_watchdog():
    """20 Hz drive, a 1.5 s silence while driving, later a 1.2 s silence while stopped."""
    cap = Capture("rider-watchdog")
    t = START
    frame = 0

    def send(left, right, timestamp=None):
        nonlocal frame
        frame = cap.udp(t, APP, 40021, DEVICE, 5005, wire.rider_drive(left, right, timestamp or (t - 0.002)))
        return frame

    for _ in range(40):
        send(50, 50)
        t += 0.05
    before = frame
    t += 1.5 - 0.05  # the next command comes 1.5 s after the last one
    after = send(50, 50)
    cap.expect("rider.watchdog-gap", "error", before, resume_frame=after, silence_s=1.5)
    t += 0.05
    for _ in range(19):
        send(50, 50)
        t += 0.05
    for _ in range(10):
        send(0, 0)
        t += 0.05
    before = frame
    t += 1.2 - 0.05
    after = send(0, 0)
    cap.expect("rider.watchdog-gap", "note", before, resume_frame=after, silence_s=1.2)
    t += 0.05
    for _ in range(9):
        send(0, 0)
        t += 0.05
    return cap


def rider_anomalies():
    """A value beyond ±100, a timestamp that steps back, a command sent late."""
    cap = Capture("rider-anomalies")
    t = START + 100
    for index in range(1, 61):
        left, right, timestamp = 40, 40, t - 0.002
        if index == 10:
            left, right = 150, 90
            cap_frame_out_of_range = index
        if index == 20:
            timestamp = t - 0.502  # the app's clock stepped back 0.5 s
        if index == 40:
            # The app stalled 0.4 s, then sent the command it made before the stall.
            timestamp = t - 0.002
            t += 0.4
        cap.udp(t, APP, 40022, DEVICE, 5005, wire.rider_drive(left, right, timestamp))
        t += 0.05
    cap.expect("rider.out-of-range", "warning", cap_frame_out_of_range)
    cap.expect("rider.timestamp-backwards", "warning", 20, frames=[19, 20])
    cap.expect("rider.stale-command", "warning", 20)
    cap.expect("rider.stale-command", "warning", 40)
    return cap


# ---------------------------------------------------------------- LegCtrl


class Firmware:
    """The LegCtrl firmware as its own code behaves (docs/protocols.md §5, checked
    against the device-truth recordings by Captures/scripts/firmware_truth.py)
    on a 100 ms tick (deadman check, then telemetry), with a switch that
    breaks the deadman on purpose.

    last_cmd is when a command last refreshed the deadman: ARM from
    DISARMED, or a servo command or PING while ARMED. It is None (age 0)
    before any such command and after DISARM."""

    def __init__(self, cap, tick_phase):
        self.cap = cap
        self.state = 0
        self.error = 0
        self.last_cmd = None
        self.pulse_us = 1500  # the servo output: centred at start-up, 0 = off
        self.next_tick = tick_phase
        self.deadman_broken = False
        self.telemetry = []  # (frame, state, error, age, time)

    def command(self, time, kind, pulse=None):
        self.advance(time)
        payload = {
            "arm": wire.legctrl_arm, "disarm": wire.legctrl_disarm, "ping": wire.legctrl_ping,
        }.get(kind)
        data = payload() if payload else wire.legctrl_set_servo_ch0(pulse)
        frame = self.cap.udp(time, APP, 40023, DEVICE, 9000, data)
        self.write(data, time)
        return frame

    def write(self, data, time):
        """One write to the command characteristic."""
        if len(data) < 4 or data[0] != 1 or len(data) != 4 + data[2]:
            return  # rejected (ATT error): no state change, no age reset; reserved != 0 is fine
        kind = data[1]
        if kind == 0x01:  # ARM, whatever payload follows
            if self.state == 0:
                self.state, self.error, self.last_cmd = 1, 0, time
            # in ARMED nothing changes; in FAULT it is refused (DISARM first), age not reset
        elif kind == 0x02:  # DISARM, whatever payload follows, from any state
            self.state, self.error, self.last_cmd, self.pulse_us = 0, 0, None, 0
        elif kind == 0x03:  # SET_SERVO_CH0: only one with exactly 2 payload bytes counts
            if data[2] == 2 and self.state == 1:
                self.last_cmd = time
                self.pulse_us = min(max(int.from_bytes(data[4:6], "little"), 500), 2500)
            # a bad payload_len, or DISARMED / FAULT: ignored, age not reset
        elif kind == 0x04:  # PING, whatever payload follows: refreshes only while ARMED
            if self.state == 1:
                self.last_cmd = time
        else:  # unknown msg_type (TELEMETRY too): INVALID_CMD, kept until DISARM or ARM
            self.error = 4

    def age_ms(self, now):
        """last_cmd_age_ms: whole milliseconds, 0 without a command, saturating."""
        return 0 if self.last_cmd is None else min(int(round((now - self.last_cmd) * 1000, 6)), 65535)

    def tick(self, now):
        """The deadman check (unless broken on purpose), then what telemetry reports."""
        age = self.age_ms(now)
        if self.state == 1 and not self.deadman_broken and age >= 200:
            self.state, self.error, self.pulse_us = 2, 1, 0
        return self.state, self.error, age

    def advance(self, until):
        while self.next_tick <= until:
            now = self.next_tick
            state, error, age = self.tick(now)
            frame = self.cap.udp(now, DEVICE, 9000, APP, 40023, wire.legctrl_telemetry(state, error, age, 7400))
            self.telemetry.append((frame, state, error, age, now))
            self.next_tick = round(now + 0.1, 6)


def check_firmware():
    """The model above against the real firmware's recordings (skipped when
    ../shared/device-truth is not there)."""
    import firmware_truth
    from fractions import Fraction

    def model():
        firmware = Firmware(None, 0)
        return "make_analyze_captures.Firmware", firmware, lambda ms: Fraction(ms, 1000), firmware.write

    if firmware_truth.check([model], os.path.join(os.path.dirname(ROOT), "shared", "device-truth", "legctrl")):
        sys.exit("make_analyze_captures.py: the LegCtrl firmware model disagrees with the real firmware")


def legctrl_faults():
    cap = Capture("legctrl-faults")
    fw = Firmware(cap, START + 200.0)
    t = START + 200.05
    fw.command(t, "arm")
    t += 0.02
    pulse_frame = None
    for index in range(45):
        pulse = 2600 if index == 20 else 1500
        frame = fw.command(t, "set_servo_ch0", pulse)
        if pulse == 2600:
            pulse_frame = frame
        t = round(t + 0.02, 6)
    cap.expect("legctrl.pulse-out-of-range", "warning", pulse_frame)

    # Stall 1: 450 ms while ARMED, and this firmware's deadman does not trip:
    # the first telemetry still ARMED past the 300 ms by which §2's deadman
    # must trip contradicts the model; the app's gap is over the deadman.
    fw.deadman_broken = True
    last = frame
    stall_from = t - 0.02
    t = round(stall_from + 0.45, 6)
    fw.advance(t)
    late = [f for f, state, _, age, _ in fw.telemetry if state == 1 and age > 300 and f > last]
    resume = fw.command(t, "set_servo_ch0", 1500)
    fw.deadman_broken = False
    cap.expect("legctrl.keepalive-gap", "warning", last, gap_s=0.45)
    cap.expect("legctrl.model-mismatch", "warning", late[0])
    t = round(t + 0.02, 6)
    for _ in range(25):
        frame = fw.command(t, "set_servo_ch0", 1500)
        t = round(t + 0.02, 6)

    # Stall 2: 500 ms; the firmware trips at its next tick past 200 ms.
    last = frame
    t = round(t - 0.02 + 0.5, 6)
    fw.advance(t)
    fault = [f for f, state, error, _, _ in fw.telemetry if state == 2 and error == 1 and f > last][0]
    first_in_fault = fw.command(t, "set_servo_ch0", 1500)
    cap.expect("legctrl.deadman-gap", "error", last, fault_frame=fault, next_command_frame=first_in_fault)
    cap.expect("legctrl.command-in-fault", "warning", first_in_fault)
    t = round(t + 0.02, 6)
    for _ in range(4):
        fw.command(t, "set_servo_ch0", 1500)
        t = round(t + 0.02, 6)
    arm = fw.command(t, "arm")
    cap.expect("legctrl.arm-refused", "warning", arm)
    t = round(t + 0.05, 6)
    fw.command(t, "disarm")
    fw.advance(t + 0.25)
    return cap


# ----------------------------------------------------------------- Rallie


def rallie_faults():
    cap = Capture("rallie-faults")
    t0 = START + 300

    def command(at, variant="xor", pitch=30):
        return cap.udp(t0 + at, APP, 40024, DEVICE, 9100, wire.rallie_command(60, 40, pitch, 45, 50, 1, variant))

    def response(at, code, variant="xor", corrupt=False):
        data = bytearray(wire.rallie_response(code, variant))
        if corrupt:
            data[4] ^= 0x5A  # matches neither XOR nor MODBUS-low
            assert data[4] not in (wire.xor_check(data[:4]), wire.modbus16lo_check(data[:4]))
        return cap.udp(t0 + at, DEVICE, 9100, APP, 40024, bytes(data))

    command(0.0)
    response(0.03, 1)
    lost = command(3.0)
    cap.expect("rallie.no-response", "warning", lost)
    late = command(6.0)
    late_response = response(8.5, 1)
    cap.expect("rallie.late-response", "warning", late, frames=[late, late_response])
    command(9.0)
    bad = response(9.04, 1, corrupt=True)
    cap.expect("rallie.check-failure", "error", bad, side="machine")
    skew = command(12.0, "modbus16lo")
    skewed = response(12.04, 2, "xor")
    cap.expect("rallie.check-variant-mismatch", "warning", skewed, frames=[skew, skewed])
    quick = command(13.0)
    response(13.03, 1)
    cap.expect("rallie.command-interval", "warning", quick)
    slow = command(25.0)
    response(25.03, 1)
    cap.expect("rallie.command-interval", "note", quick, frames=[quick, slow])
    return cap


# -------------------------------------------------------------- FalconEye

SECRET = "analyze-test-secret"
DEVICE_ID = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"


def ws_frame(text, mask):
    data = text.encode()
    header = bytes([0x81])
    length = len(data)
    if length < 126:
        header += bytes([(0x80 if mask else 0) | length])
    elif length < 65536:
        header += bytes([(0x80 if mask else 0) | 126]) + struct.pack("!H", length)
    else:
        header += bytes([(0x80 if mask else 0) | 127]) + struct.pack("!Q", length)
    if not mask:
        return header + data
    key = bytes([0x12, 0x34, 0x56, 0x78])
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(data))


class Connection:
    def __init__(self, cap, client_port, start):
        self.cap, self.port, self.t = cap, client_port, start
        self.c_seq, self.s_seq = 1000, 5000

    def client(self, data, flags=0x18, dt=0.001):
        self.t += dt
        frame = self.cap.tcp(self.t, APP, self.port, DEVICE, 8000, self.c_seq, self.s_seq, flags, data)
        self.c_seq += len(data) + (1 if flags & 0x03 else 0)
        return frame

    def server(self, data, flags=0x18, dt=0.001):
        self.t += dt
        frame = self.cap.tcp(self.t, DEVICE, 8000, APP, self.port, self.s_seq, self.c_seq, flags, data)
        self.s_seq += len(data) + (1 if flags & 0x03 else 0)
        return frame

    def open(self):
        self.client(b"", 0x02)
        self.server(b"", 0x12)
        self.client(b"", 0x10)
        key = base64.b64encode(b"analyze-test-key").decode()
        accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
        handshake = self.client(
            (f"GET /ws/connect/{DEVICE_ID} HTTP/1.1\r\nHost: {DEVICE}:8000\r\nUpgrade: websocket\r\n"
             f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        self.server(
            (f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
        return handshake

    def send(self, kind, inner, from_client=True, dt=0.001):
        text = wire.envelope(kind, round(self.t + dt, 6), wire.inner_json(inner))
        return (self.client if from_client else self.server)(ws_frame(text, from_client), dt=dt)


def auth_request(conn):
    signed_at = int(conn.t)
    token, _ = wire.auth_token(SECRET, DEVICE_ID, signed_at)
    inner = {"deviceId": DEVICE_ID, "token": token,
             "deviceInfo": {"model": "iPhone16,1", "osVersion": "17.5.1", "hasLiDAR": True}}
    return conn.send("authRequest", inner)


def falconeye_no_close():
    """Two connections: one ends with FIN and no close frame after a healthy
    session; one is reset while its authRequest waits for an answer."""
    cap = Capture("falconeye-no-close")
    conn = Connection(cap, 40025, START + 400)
    handshake = conn.open()
    cap.expect("falconeye.plain-ws", "note", handshake)
    request = auth_request(conn)
    cap.expect("falconeye.token-unverifiable", "note", request)
    cap.expect("falconeye.token-known-secret", "warning", request, needs_secret=True)
    conn.send("authResponse", {"success": True, "sessionId": "6B29FC40-CA47-1067-B31D-00DD010662DA"}, False)
    conn.send("heartbeat", {})
    conn.send("heartbeat", {"pong": True}, False)
    jpeg = b"\xff\xd8" + bytes(range(256)) * 4 + b"\xff\xd9"
    for index in range(3):
        inner = {"frameId": f"f-{index}", "timestamp": round(conn.t, 6),
                 "imageData": base64.b64encode(jpeg).decode(),
                 "devicePose": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]],
                 "intrinsics": {"fx": 1000.0, "fy": 1000.0, "cx": 640.0, "cy": 480.0, "width": 1280, "height": 960}}
        conn.send("cameraFrame", inner, dt=0.033)
    conn.client(b"", 0x11, dt=0.05)
    # The connection is over when both sides have sent FIN: the server's.
    last_fin = conn.server(b"", 0x11)
    cap.expect("ws.no-close", "warning", last_fin)
    conn.client(b"", 0x10)

    reset = Connection(cap, 40026, conn.t + 1)
    handshake = reset.open()
    cap.expect("falconeye.plain-ws", "note", handshake)
    request = auth_request(reset)
    cap.expect("falconeye.token-unverifiable", "note", request)
    cap.expect("falconeye.token-known-secret", "warning", request, needs_secret=True)
    cap.expect("falconeye.auth-unanswered", "error", request)
    rst = reset.server(b"", 0x14, dt=0.5)
    cap.expect("ws.no-close", "warning", rst)
    return cap


def main():
    check_firmware()
    expected = {"made_by": "Tests/Fixtures/analyze/make_analyze_captures.py", "secret": SECRET, "captures": {}}
    for make in (rider_watchdog, rider_anomalies, legctrl_faults, rallie_faults, falconeye_no_close):
        cap = make()
        cap.write()
        expected["captures"][cap.name + ".pcap"] = {"records": len(cap.records), "findings": cap.findings}
    with open(os.path.join(HERE, "expected.json"), "w") as out:
        json.dump(expected, out, indent=1)
        out.write("\n")
    print("wrote", ", ".join(expected["captures"]))


if __name__ == "__main__":
    main()
