"""Real traffic over loopback for the UDP protocols: each function runs both
peers (real sockets bound on 127.0.0.1) and returns what was sent, one entry
per datagram: transport, src, dst, codec, message, fields, and the bytes in
"_payload". The fixtures are made from these entries, never from pktbench."""

import math
import select
import socket
import struct
import threading
import time

import wire

HOST = "127.0.0.1"


def udp_socket(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((HOST, port))
    return s


def entry(codec, message, src, dst, payload, fields, **extra):
    return {"transport": "udp", "src": f"{HOST}:{src}", "dst": f"{HOST}:{dst}", "codec": codec,
            "message": message, "fields": fields, "_payload": payload, **extra}


def pace(t0, index, period):
    """Sleep until t0 + index·period (absolute schedule: no drift)."""
    delay = t0 + index * period - time.monotonic()
    if delay > 0:
        time.sleep(delay)


class Sink(threading.Thread):
    """A peer that only receives (the Rider robot): counts what arrives."""

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock, self.received, self.stop = sock, [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            if select.select([self.sock], [], [], 0.05)[0]:
                self.received.append(self.sock.recv(2048))


# ------------------------------------------------------------------ Rider


def joystick_sweep(n):
    """n (x, y) stick positions: stop, push forward, one full turn of the
    stick clockwise from forward, ease back, stop."""
    stops, ramp = 2, max(2, n // 6)
    circle = n - 2 * stops - 2 * ramp
    path = [(0.0, 0.0)] * stops
    path += [(0.0, (i + 1) / ramp) for i in range(ramp)]
    path += [(math.sin(2 * math.pi * i / circle), math.cos(2 * math.pi * i / circle)) for i in range(1, circle + 1)]
    path += [(0.0, (ramp - 1 - i) / ramp) for i in range(ramp)]
    path += [(0.0, 0.0)] * stops
    return path


def rider_traffic(app_port, drive_count=60, moves=2, legacies=2, robot_port=5005):
    robot, app = udp_socket(robot_port), udp_socket(app_port)
    sink = Sink(robot)
    sink.start()
    dst = (HOST, robot_port)
    sent = []
    t0 = time.monotonic()
    for i, (x, y) in enumerate(joystick_sweep(drive_count)):
        pace(t0, i, 0.05)
        left, right = (round(v, 2) + 0.0 for v in wire.joystick_mix(x, y))
        ts = time.time()
        payload = wire.rider_drive(left, right, ts)
        app.sendto(payload, dst)
        sent.append(entry("rider", "drive", app_port, robot_port, payload,
                          {"left": wire._number(left), "right": wire._number(right), "timestamp": ts}))
    tail = [("move", "move", 40, -25), ("move", "stop", 0, 0)][:moves]
    tail += [("legacy", 60, 40, 2), ("legacy", 0, 0, 0)][:legacies]
    for j, item in enumerate(tail, start=drive_count):
        pace(t0, j, 0.05)
        if item[0] == "move":
            ts = time.time()
            payload = wire.rider_move(item[1], item[2], item[3], ts)
            fields = {"command": item[1], "speed": item[2], "direction": item[3], "timestamp": ts}
        else:
            payload = wire.rider_legacy(*item[1:])
            fields = {"left": item[1], "right": item[2], "direction": item[3]}
        app.sendto(payload, dst)
        sent.append(entry("rider", item[0], app_port, robot_port, payload, fields))
    time.sleep(0.2)
    sink.stop.set()
    sink.join()
    assert len(sink.received) == len(sent), (len(sink.received), len(sent))
    robot.close()
    app.close()
    return sent


# ---------------------------------------------------------------- LegCtrl


class LegCtrlDevice(threading.Thread):
    """The LegCtrl firmware on a UDP socket, as its own code behaves
    (docs/protocols.md §5, checked against recordings of the real firmware): every
    100 ms the timer checks the deadman (ARMED and age >= 200 ms -> FAULT /
    DEADMAN_TIMEOUT, servo output off), then sends telemetry.

    last_cmd is when a command last refreshed the deadman: ARM from
    DISARMED, or a servo command or PING while ARMED. It is None (age 0)
    before any such command and after DISARM."""

    def __init__(self, sock, app_addr):
        super().__init__(daemon=True)
        self.sock, self.app_addr, self.stop = sock, app_addr, threading.Event()
        self.state, self.error, self.last_cmd, self.battery_mv = 0, 0, None, 7400
        self.pulse_us = 1500  # the servo output: centred at start-up, 0 = off
        self.sent = []

    def age_ms(self, now):
        """last_cmd_age_ms: whole milliseconds, 0 without a command, saturating."""
        return 0 if self.last_cmd is None else min(int((now - self.last_cmd) * 1000), 0xFFFF)

    def handle(self, data, now):
        """One write to the command characteristic."""
        if len(data) < 4 or data[0] != 1 or len(data) != 4 + data[2]:
            return  # rejected (ATT error): no state change, no age reset; reserved != 0 is fine
        kind = data[1]
        if kind == 0x01:  # ARM, whatever payload follows
            if self.state == 0:
                self.state, self.error, self.last_cmd = 1, 0, now
            # in ARMED nothing changes; in FAULT it is refused (DISARM first), age not reset
        elif kind == 0x02:  # DISARM, whatever payload follows, from any state
            self.state, self.error, self.last_cmd, self.pulse_us = 0, 0, None, 0
        elif kind == 0x03:  # SET_SERVO_CH0: only one with exactly 2 payload bytes counts
            if data[2] == 2 and self.state == 1:
                self.last_cmd = now
                self.pulse_us = min(max(int.from_bytes(data[4:6], "little"), 500), 2500)
            # a bad payload_len, or DISARMED / FAULT: ignored, age not reset
        elif kind == 0x04:  # PING, whatever payload follows: refreshes only while ARMED
            if self.state == 1:
                self.last_cmd = now
        else:  # unknown msg_type (TELEMETRY too): INVALID_CMD, kept until DISARM or ARM
            self.error = 4

    def tick(self, now):
        """The 100 ms timer: the deadman check, then what telemetry reports."""
        age = self.age_ms(now)
        if self.state == 1 and age >= 200:
            self.state, self.error, self.pulse_us = 2, 1, 0
        return self.state, self.error, age

    def run(self):
        next_tick = time.monotonic() + 0.1
        while not self.stop.is_set():
            timeout = next_tick - time.monotonic()
            if timeout > 0:
                if select.select([self.sock], [], [], timeout)[0]:
                    self.handle(self.sock.recv(64), time.monotonic())
                continue
            now = time.monotonic()
            next_tick += 0.1
            _, _, age = self.tick(now)
            payload = wire.legctrl_telemetry(self.state, self.error, age, self.battery_mv)
            self.sock.sendto(payload, self.app_addr)
            self.sent.append(entry("legctrl", "telemetry", self.sock.getsockname()[1], self.app_addr[1], payload, {
                "state": wire.LEGCTRL_STATES[self.state], "error_code": wire.LEGCTRL_ERRORS[self.error],
                "last_cmd_age_ms": age, "battery_mv": self.battery_mv}))
            if self.state == 1:
                self.battery_mv -= 2  # sag under load


def legctrl_traffic(app_port, pulses=range(1000, 2001, 10), device_port=9000):
    dev_sock, app = udp_socket(device_port), udp_socket(app_port)
    device = LegCtrlDevice(dev_sock, (HOST, app_port))
    device.start()
    dst = (HOST, device_port)
    sent = []

    def send(message, payload, fields=None):
        app.sendto(payload, dst)
        sent.append(entry("legctrl", message, app_port, device_port, payload, fields or {}))

    def wait_for_state(state_byte, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if select.select([app], [], [], 0.02)[0]:
                data = app.recv(64)
                if len(data) == 12 and data[1] == 0x10 and data[4] == state_byte:
                    return
        raise RuntimeError(f"device never reported state {state_byte}")

    time.sleep(0.25)  # two DISARMED telemetries, age 0: nothing sent yet
    send("ping", wire.legctrl_ping())  # ignored in DISARMED: the age stays 0
    time.sleep(0.1)
    send("arm", wire.legctrl_arm())
    time.sleep(0.04)
    t0 = time.monotonic()
    for i, pulse in enumerate(pulses):  # the app's 50 Hz repeat
        pace(t0, i, 0.02)
        send("set_servo_ch0", wire.legctrl_set_servo_ch0(pulse), {"pulse_us": pulse})
    while select.select([app], [], [], 0)[0]:
        app.recv(64)
    time.sleep(0.3)  # the app stalls: the deadman trips at 200–300 ms
    wait_for_state(2, 1.0)
    send("disarm", wire.legctrl_disarm())  # back to DISARMED, age 0, output off
    wait_for_state(0, 1.0)
    time.sleep(0.15)
    device.stop.set()
    device.join()
    dev_sock.close()
    app.close()
    return sent + device.sent


# ----------------------------------------------------------------- Rallie


class RallieMachine(threading.Thread):
    """The ball machine: answers each 10-byte command with a 5-byte response
    in the same check variant; out-of-range values are rejected, start is
    accepted, stop is completed."""

    LIMITS = (100, 100, 90, 90, 100, 1)

    def __init__(self, sock):
        super().__init__(daemon=True)
        self.sock, self.stop, self.sent = sock, threading.Event(), []

    def run(self):
        while not self.stop.is_set():
            if not select.select([self.sock], [], [], 0.05)[0]:
                continue
            data, addr = self.sock.recvfrom(64)
            variant = next((name for name, fn in wire.CHECKS.items()
                            if len(data) == 10 and fn(data[:9]) == data[9]), None)
            if variant is None:
                continue  # the real machine stays silent; the app times out
            values = data[3:9]
            if any(v > limit for v, limit in zip(values, self.LIMITS)):
                code = 0
            else:
                code = 1 if values[5] == 1 else 2
            payload = wire.rallie_response(code, variant)
            self.sock.sendto(payload, addr)
            self.sent.append(entry("rallie", "response", self.sock.getsockname()[1], addr[1], payload, {
                "code": wire.RALLIE_CODES[code], "check": payload[4], "check_variant": variant}))


def rallie_traffic(app_port, commands, gap=2.0, machine_port=9100):
    """commands: (upper_wheel, lower_wheel, pitch, yaw, feed, control, variant, note)."""
    machine_sock, app = udp_socket(machine_port), udp_socket(app_port)
    machine = RallieMachine(machine_sock)
    machine.start()
    sent = []
    t0 = time.monotonic()
    for i, (up, low, pitch, yaw, feed, control, variant, note) in enumerate(commands):
        pace(t0, i, gap)
        payload = wire.rallie_command(up, low, pitch, yaw, feed, control, variant)
        app.sendto(payload, (HOST, machine_port))
        extra = {"note": note} if note else {}
        sent.append(entry("rallie", "command", app_port, machine_port, payload, {
            "upper_wheel": up, "lower_wheel": low, "pitch": pitch, "yaw": yaw, "feed": feed,
            "control": "start" if control == 1 else "stop", "check": payload[9], "check_variant": variant}, **extra))
        if not select.select([app], [], [], 2.0)[0]:  # the app's 2 s response timeout
            raise RuntimeError("no response from the machine")
        app.recv(64)
    time.sleep(0.1)
    machine.stop.set()
    machine.join()
    machine_sock.close()
    app.close()
    return sent + machine.sent


RALLIE_SESSION = [
    (60, 40, 30, 45, 50, 1, "xor", None),
    (80, 80, 20, 30, 70, 1, "xor", None),
    (70, 70, 120, 45, 50, 1, "xor", "pitch 120 is outside 0…90: the machine rejects it; a decoder warns"),
    (0x32, 0x32, 0x2D, 0x2D, 0x32, 0, "xor", "the docs/protocols.md §3 vector (check 4E)"),
    (55, 45, 40, 45, 60, 1, "modbus16lo", "later firmware's check: low byte of CRC-16/MODBUS"),
    (0x32, 0x32, 0x2D, 0x2D, 0x32, 0, "modbus16lo", "the docs/protocols.md §3 vector (check 41)"),
]
