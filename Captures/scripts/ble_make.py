#!/usr/bin/env python3
"""BLE sample captures in ../ble/: a phone's HCI trace of a LegCtrl session
(§2) and of a Rallie session (§3), as Android btsnoop (H4) and, for LegCtrl,
as pcapng with LINKTYPE 201; a truncated copy; and a fixture for each in
../ble/expected/, written from what was built. Every packet is built with
Scapy's Bluetooth layers; pktbench is not used. Ends by running
ble_verify.py, which re-reads everything with tshark.

Needs `pip install scapy` and editcap/tshark. Deterministic: same files
every run (fixed start times, seeded jitter)."""

import os
import random
import subprocess
import sys

try:
    from scapy.layers.bluetooth import ATT_Handle_Value_Notification
except ImportError:
    sys.exit("ble_make.py: run: pip install scapy")

import ble_central
import ble_fixture
import ble_link
import ble_wire as wire

HERE = os.path.dirname(os.path.abspath(__file__))
BLE = os.path.join(os.path.dirname(HERE), "ble")

LEGCTRL_START_US = 1_795_320_000_000_000  # 2026-11-21, like the UDP captures
RALLIE_START_US = 1_795_320_600_000_000
# A Characteristic User Description long enough (49 bytes of L2CAP) that the
# peripheral's controller delivers its Read Response in two ACL packets.
TELEMETRY_DESCRIPTION = b"Telemetry: state, error, age ms, battery mV"


# ------------------------------------------------------------------ LegCtrl


class LegCtrlFirmware:
    """The LegCtrl firmware behind the GATT server, as its own code behaves
    (docs/protocols.md §5, checked against recordings of the real firmware; the
    same rules as the UDP model in scenarios.py): every 100 ms the timer
    checks the deadman (ARMED and age >= 200 ms -> FAULT / DEADMAN_TIMEOUT,
    servo output off), then notifies telemetry if the CCCD is on.

    last_cmd is when a command last refreshed the deadman: ARM from
    DISARMED, or a servo command or PING while ARMED. It is None (age 0)
    before any such command and after DISARM."""

    TICK_US = 100_000

    def __init__(self, central, first_tick_us, telemetry_handle, cccd_handle):
        self.central, self.next_tick = central, first_tick_us
        self.telemetry_handle, self.cccd_handle = telemetry_handle, cccd_handle
        self.state, self.error, self.last_cmd, self.battery_mv = 0, 0, None, 7400
        self.pulse_us = 1500  # the servo output: centred at start-up, 0 = off
        self.notified = []

    def age_ms(self, now):
        """last_cmd_age_ms: whole milliseconds, 0 without a command, saturating."""
        return 0 if self.last_cmd is None else min((now - self.last_cmd) // 1000, 0xFFFF)

    def tick(self, now):
        """The 100 ms timer: the deadman check, then what telemetry reports."""
        age = self.age_ms(now)
        if self.state == 1 and age >= 200:
            self.state, self.error, self.pulse_us = 2, 1, 0
        return self.state, self.error, age

    def advance(self, until_us):
        while self.next_tick <= until_us:
            now, self.next_tick = self.next_tick, self.next_tick + self.TICK_US
            _, _, age = self.tick(now)
            if self.central.server.values[self.cccd_handle] != b"\x01\x00":
                continue
            payload = wire.legctrl_telemetry(self.state, self.error, age, self.battery_mv)
            att = ATT_Handle_Value_Notification(gatt_handle=self.telemetry_handle, value=payload)
            queued = now + self.central.trace.jitter(80, 400)
            self.notified.append(ble_central.annotate(self.central.conn.peripheral(queued, att)))

    def receive(self, at_us, data):
        """A written command value, as the firmware's write handler sees it."""
        self.advance(at_us)
        self.write(at_us, data)

    def write(self, at_us, data):
        """One write to the command characteristic."""
        if len(data) < 4 or data[0] != 1 or len(data) != 4 + data[2]:
            return  # rejected (ATT error): no state change, no age reset; reserved != 0 is fine
        kind = data[1]
        if kind == 0x01:  # ARM, whatever payload follows
            if self.state == 0:
                self.state, self.error, self.last_cmd = 1, 0, at_us
            # in ARMED nothing changes; in FAULT it is refused (DISARM first), age not reset
        elif kind == 0x02:  # DISARM, whatever payload follows, from any state
            self.state, self.error, self.last_cmd, self.pulse_us = 0, 0, None, 0
        elif kind == 0x03:  # SET_SERVO_CH0: only one with exactly 2 payload bytes counts
            if data[2] == 2 and self.state == 1:
                self.last_cmd = at_us
                self.pulse_us = min(max(int.from_bytes(data[4:6], "little"), 500), 2500)
            # a bad payload_len, or DISARMED / FAULT: ignored, age not reset
        elif kind == 0x04:  # PING, whatever payload follows: refreshes only while ARMED
            if self.state == 1:
                self.last_cmd = at_us
        else:  # unknown msg_type (TELEMETRY too): INVALID_CMD, kept until DISARM or ARM
            self.error = 4


def legctrl_database():
    return ble_link.gap_and_gatt(b"LegCtrl") + [
        ble_link.primary_service(0x0010, wire.LEGCTRL_SERVICE),
        *ble_link.characteristic(0x0011, 0x0C, wire.LEGCTRL_COMMAND),  # write without response | write
        *ble_link.characteristic(0x0013, 0x10, wire.LEGCTRL_TELEMETRY),  # notify
        (0x0015, 0x2902, b"\x00\x00"),
        (0x0016, 0x2901, TELEMETRY_DESCRIPTION)]


def value_handle(characteristics, char_uuid):
    return next(c["value_handle"] for c in characteristics if c["uuid"] == char_uuid)


def descriptor(descriptors, kind, of_value_handle):
    return next(h for h, t, owner in descriptors if t == kind and owner == of_value_handle)


def legctrl_session(tick_phase_us):
    trace = ble_link.Trace(seed=2)
    app = random.Random(3)  # the app's own timing, apart from the link's
    handling = random.Random(4)  # the firmware's, too
    server = ble_link.GattServer(legctrl_database(), rx_mtu=247)
    central = ble_central.Central(trace, server, 0x0040, "24:0a:c4:5e:71:3c", 0, 0x0024, LEGCTRL_START_US)
    central.exchange_mtu(517)
    mtu = server.mtu
    discovery = central.discover()
    _, characteristics, descriptors = discovery
    command = value_handle(characteristics, wire.LEGCTRL_COMMAND)
    telemetry = value_handle(characteristics, wire.LEGCTRL_TELEMETRY)
    firmware = LegCtrlFirmware(central, central.connected_at + tick_phase_us, telemetry,
                               descriptor(descriptors, 0x2902, telemetry))
    central.hooks.append(firmware.advance)
    central.t += 18_000 + app.randint(0, 4000)
    central.update_connection(0x000C)  # requestConnectionPriority(HIGH): 15 ms
    central.write_request(descriptor(descriptors, 0x2902, telemetry), b"\x01\x00")
    central.read(0x0003)  # Device Name
    central.read(descriptor(descriptors, 0x2901, telemetry))
    central.t += 380_000 + app.randint(0, 40_000)  # the user taps ARM

    def send(payload):
        req = central.write_command(command, payload)
        firmware.receive(req["at_peer_us"] + handling.randint(250, 1900), payload)  # the stack's write callback

    send(wire.legctrl("arm"))
    start = central.t + 40_000
    for i, pulse in enumerate(range(1000, 2001, 10)):  # the app repeats at 50 Hz
        central.t = max(central.t + 1, start + i * 20_000 + app.randint(-800, 800))
        send(wire.legctrl_set_servo_ch0(pulse))
    central.t_last_write = central.t
    last_command = firmware.last_cmd
    while firmware.state != 2:  # the app stalls; the deadman trips at 200–300 ms
        central.t += 5000
        firmware.advance(central.t)
    fault = firmware.notified[-1]
    # The app's stall lasts ~300 ms; it sends DISARM when it is over and it has seen the FAULT.
    central.t = max(fault["records"][-1].time_us + app.randint(25_000, 45_000),
                    central.t_last_write + 300_000 + app.randint(0, 3000))
    send(wire.legctrl("disarm"))
    central.t += 330_000 + app.randint(0, 20_000)
    central.disconnect()
    trace.finish()
    return trace, central, discovery, {"command": command, "telemetry": telemetry, "att_mtu": mtu,
                                       "fault": fault, "tick_phase_us": tick_phase_us,
                                       "last_command_us": last_command}


def legctrl_with_golden_trip():
    """The firmware timer's phase is free (it runs from boot); put a tick
    200.5 ms after the last servo command reaches the firmware, so that
    the deadman trips at exactly age 200 and the capture carries the §2
    vector 01 10 08 00 02 01 C8 00 E8 1C 00 00."""
    phase = 50_000
    for _ in range(6):
        built = legctrl_session(phase)
        info = built[3]
        if info["fault"]["value"] == wire.legctrl_telemetry(2, 1, 200, 7400):
            return built
        phase = (info["last_command_us"] + 200_500 - built[1].connected_at) % 100_000
    raise RuntimeError("no firmware tick phase gives a deadman trip at age 200")


# ------------------------------------------------------------------- Rallie

RALLIE_COMMANDS = [  # upper, lower, pitch, yaw, feed, control, note, ACL split
    (60, 40, 30, 45, 50, 1, None, None),
    (70, 70, 120, 45, 50, 1, "pitch 120 is outside 0…90: the machine rejects it; a decoder warns", None),
    (80, 80, 20, 30, 70, 1, "the Write Request is sent as two ACL packets: 9 bytes of L2CAP (header, opcode, "
                            "handle and the first 2 value bytes) then 8", 9),
    (0x32, 0x32, 0x2D, 0x2D, 0x32, 0, "the docs/protocols.md §3 vector (check 4E)", None),
]


def rallie_database():
    return ble_link.gap_and_gatt(b"Rallie") + [
        ble_link.primary_service(0x000A, wire.RALLIE_SERVICE),
        *ble_link.characteristic(0x000B, 0x08, wire.RALLIE_WRITE),  # write (with response)
        *ble_link.characteristic(0x000D, 0x10, wire.RALLIE_NOTIFY),  # notify
        (0x000F, 0x2902, b"\x00\x00")]


def rallie_session():
    trace = ble_link.Trace(seed=5)
    app = random.Random(6)
    server = ble_link.GattServer(rallie_database())  # no MTU exchange: ATT_MTU stays 23
    central = ble_central.Central(trace, server, 0x0041, "e1:52:7c:9a:33:f0", 1, 0x0028, RALLIE_START_US)
    discovery = central.discover()
    _, characteristics, descriptors = discovery
    write = value_handle(characteristics, wire.RALLIE_WRITE)
    notify = value_handle(characteristics, wire.RALLIE_NOTIFY)
    central.write_request(descriptor(descriptors, 0x2902, notify), b"\x01\x00")
    central.t += 1_400_000 + app.randint(0, 200_000)
    notes = {}
    start = central.t
    for i, (up, low, pitch, yaw, feed, control, note, split_at) in enumerate(RALLIE_COMMANDS):
        central.t = max(central.t, start + sum(2_300_000 + 100_000 * (k % 3) for k in range(i)) + app.randint(0, 50_000))
        payload = wire.rallie_command(up, low, pitch, yaw, feed, control)
        req, _ = central.write_request(write, payload, split_at)
        if note:
            notes[req["records"][0].seq] = note
        answer = wire.rallie_response(wire.rallie_answer(payload))
        queued = req["at_peer_us"] + trace.jitter(2500, 6000)  # the machine's MCU answers
        resp = ble_central.annotate(central.conn.peripheral(queued, ATT_Handle_Value_Notification(
            gatt_handle=notify, value=answer)))
        central.t = max(central.t, resp["records"][-1].time_us + 500)
    central.t += 1_500_000 + app.randint(0, 100_000)
    central.disconnect()
    trace.finish()
    return trace, central, discovery, {"write": write, "notify": notify, "att_mtu": 23, "notes": notes}


# --------------------------------------------------------------------- main


def main():
    wire.self_test()
    os.makedirs(os.path.join(BLE, "expected"), exist_ok=True)
    os.makedirs(os.path.join(BLE, "damaged"), exist_ok=True)

    trace, central, discovery, info = legctrl_with_golden_trip()
    btsnoop = os.path.join(BLE, "legctrl-session.btsnoop")
    trace.write_btsnoop(btsnoop)
    trace.write_pcapng(os.path.join(BLE, "legctrl-session.pcapng"))
    apps = {info["command"]: ("legctrl", wire.LEGCTRL_COMMAND), info["telemetry"]: ("legctrl", wire.LEGCTRL_TELEMETRY)}
    fx = ble_fixture.build(trace, central, discovery, apps, info, {})
    disarmed = [m["fields"] for m in fx["messages"]
                if m["message"] == "telemetry" and m["fields"]["state"] == "DISARMED"]
    assert disarmed and all(f["last_cmd_age_ms"] == 0 for f in disarmed), "§5: age 0 before ARM and after DISARM"
    for name, capture, fmt, link in [
            ("legctrl-session.json", "legctrl-session.btsnoop", "btsnoop v1",
             "datalink 1002 (HCI UART, H4); flags bit 0 = direction, bit 1 = command/event"),
            ("legctrl-session-pcapng.json", "legctrl-session.pcapng", "pcapng",
             "LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201): 4-byte big-endian direction, 0 sent, 1 received")]:
        notes = ble_fixture.LEGCTRL_NOTES + ([ble_fixture.BTSNOOP_TIME_NOTE] if fmt.startswith("btsnoop") else [])
        ble_fixture.write(os.path.join(BLE, "expected", name), capture, fmt, link, fx,
                          made_by="scripts/ble_make.py (Scapy Bluetooth layers)", notes=notes)
    cut = ble_fixture.truncate(btsnoop, os.path.join(BLE, "damaged", "legctrl-truncated.btsnoop"), fx,
                               servo_number=50)
    ble_fixture.write(os.path.join(BLE, "expected", "legctrl-truncated.json"), "damaged/legctrl-truncated.btsnoop",
                      "btsnoop v1", "datalink 1002 (HCI UART, H4)", cut,
                      made_by="scripts/ble_make.py: legctrl-session.btsnoop cut inside one record",
                      notes=ble_fixture.TRUNCATED_NOTES + [ble_fixture.BTSNOOP_TIME_NOTE])
    print(f"legctrl-session.btsnoop/.pcapng: {fx['records']} records, {len(fx['messages'])} messages "
          f"(firmware tick phase {info['tick_phase_us']} µs); legctrl-truncated.btsnoop: {cut['records']} whole records")

    trace, central, discovery, info = rallie_session()
    trace.write_btsnoop(os.path.join(BLE, "rallie-session.btsnoop"))
    apps = {info["write"]: ("rallie", wire.RALLIE_WRITE), info["notify"]: ("rallie", wire.RALLIE_NOTIFY)}
    fx = ble_fixture.build(trace, central, discovery, apps, info, info["notes"])
    ble_fixture.write(os.path.join(BLE, "expected", "rallie-session.json"), "rallie-session.btsnoop", "btsnoop v1",
                      "datalink 1002 (HCI UART, H4); flags bit 0 = direction, bit 1 = command/event", fx,
                      made_by="scripts/ble_make.py (Scapy Bluetooth layers)",
                      notes=ble_fixture.RALLIE_NOTES + [ble_fixture.BTSNOOP_TIME_NOTE])
    print(f"rallie-session.btsnoop: {fx['records']} records, {len(fx['messages'])} messages")
    return subprocess.run([sys.executable, os.path.join(HERE, "ble_verify.py")]).returncode


if __name__ == "__main__":
    sys.exit(main())
