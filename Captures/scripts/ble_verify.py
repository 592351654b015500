#!/usr/bin/env python3
"""Re-read every BLE capture with tshark (not with ble_make.py's code, not
with pktbench) and check its fixture in ../ble/expected/: record and HCI
packet counts, the connection, the discovered handles and UUIDs, every ATT
PDU (frame, opcode, handle, value), the ACL fragments of split PDUs, the
application messages (decoded again here from the bytes tshark shows, by
docs/protocols.md), and the damage of the truncated copy. Exit status 1 on any
failure."""

import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BLE = os.path.join(os.path.dirname(HERE), "ble")
FIELDS = ["frame.number", "frame.time_epoch", "hci_h4.type", "hci_h4.direction", "bthci_acl.chandle",
          "bthci_acl.pb_flag", "bthci_acl.length", "bthci_acl.continuation_to", "btl2cap.cid", "btl2cap.length",
          "btatt.opcode", "btatt.handle", "btatt.value", "btatt.group_end_handle", "btatt.characteristic_properties",
          "btatt.uuid16", "btatt.uuid128", "btatt.device_name", "btatt.characteristic_user_description",
          "btatt.characteristic_configuration_client",
          "btatt.client_rx_mtu", "btatt.server_rx_mtu", "bthci_evt.code", "bthci_evt.le_meta_subevent",
          "bthci_evt.connection_handle", "bthci_evt.role", "bthci_evt.num_compl_packets"]
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
    return condition


def tshark(path):
    """{frame number: {field: [values]}}, plus tshark's exit status and
    stderr."""
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E",
           "aggregator=\x1f"]
    for f in FIELDS:
        cmd += ["-e", f]
    run = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    rows = {}
    for line in run.stdout.splitlines():
        cells = line.split("\t")
        row = {f: (c.split("\x1f") if c else []) for f, c in zip(FIELDS, cells)}
        rows[int(row["frame.number"][0])] = row
    return rows, run.returncode, run.stderr


def one(row, field):
    values = row.get(field, [])
    return values[0] if len(values) == 1 else None


def num(text):
    return None if text is None else int(text, 0)


# --------------------------------------------- the payloads, by docs/protocols.md


def decode_legctrl(p):
    names = {1: "arm", 2: "disarm", 3: "set_servo_ch0", 4: "ping", 0x10: "telemetry"}
    if len(p) < 4 or p[0] != 1 or len(p) != 4 + p[2] or p[3] != 0 or p[1] not in names:
        return None, None
    message = names[p[1]]
    if message == "set_servo_ch0" and p[2] == 2:
        return message, {"pulse_us": p[4] | p[5] << 8}
    if message == "telemetry" and p[2] == 8:
        states = {0: "DISARMED", 1: "ARMED", 2: "FAULT"}
        errors = {0: "NONE", 1: "DEADMAN_TIMEOUT", 2: "LOW_BATTERY", 3: "I2C_FAULT", 4: "INVALID_CMD", 255: "UNKNOWN"}
        return message, {"state": states[p[4]], "error_code": errors[p[5]], "last_cmd_age_ms": p[6] | p[7] << 8,
                         "battery_mv": p[8] | p[9] << 8}
    return (message, {}) if p[2] == 0 else (None, None)


def decode_rallie(p):
    check_value = 0
    for b in p[:-1]:
        check_value ^= b
    if p[:2] != b"\x5a\xa5" or p[-1] != check_value:
        return None, None
    if len(p) == 10 and p[2] == 0x83:
        return "command", {"upper_wheel": p[3], "lower_wheel": p[4], "pitch": p[5], "yaw": p[6], "feed": p[7],
                           "control": {0: "stop", 1: "start"}[p[8]], "check": p[9], "check_variant": "xor"}
    if len(p) == 5 and p[2] == 0x82:
        return "response", {"code": {0: "rejected", 1: "accepted", 2: "completed"}[p[3]], "check": p[4],
                            "check_variant": "xor"}
    return None, None


# ------------------------------------------------------------------- checks


def shown_value(row, entry):
    """The value bytes tshark shows for an ATT PDU: btatt.value, or the
    decoded string of a well-known attribute."""
    if row.get("btatt.value"):
        return bytes.fromhex(row["btatt.value"][0])
    for field in ("btatt.device_name", "btatt.characteristic_user_description"):
        if row.get(field):
            return row[field][0].encode()
    if row.get("btatt.characteristic_configuration_client"):  # a CCCD write, shown as its u16
        return num(row["btatt.characteristic_configuration_client"][0]).to_bytes(2, "little")
    return None


def check_counts(name, fx, rows, rc, stderr):
    check(len(rows) == fx["records"] == fx["tshark_hci_packets"],
          f"{name}: tshark reads {len(rows)} records, fixture says {fx['records']} / {fx['tshark_hci_packets']}")
    if fx.get("damage"):
        check(rc != 0 and "cut short in the middle of a packet" in stderr,
              f"{name}: tshark does not report the file as cut short (rc {rc}: {stderr.strip()[-200:]})")
    else:
        check(rc == 0, f"{name}: tshark exit status {rc}: {stderr.strip()[-200:]}")
    kinds = {"commands": 0, "events": 0, "acl_sent": 0, "acl_received": 0}
    for row in rows.values():
        t, d = num(one(row, "hci_h4.type")), num(one(row, "hci_h4.direction"))
        kind = {1: "commands", 4: "events"}.get(t) or ("acl_sent" if d == 0 else "acl_received")
        kinds[kind] += 1
        if t == 2:
            check(num(one(row, "bthci_acl.chandle")) == fx["connection"]["handle"],
                  f"{name}: frame {one(row, 'frame.number')} is on another connection handle")
    check(kinds == fx["hci_packets"], f"{name}: HCI packets {kinds}, fixture {fx['hci_packets']}")
    times = [float(r["frame.time_epoch"][0]) for r in rows.values()]
    check(abs(times[0] - fx["first_time"]) < 1e-6 and abs(times[-1] - fx["last_time"]) < 1e-6,
          f"{name}: time span {times[0]}…{times[-1]}, fixture {fx['first_time']}…{fx['last_time']}")


def check_connection(name, fx, rows):
    c = fx["connection"]
    row = rows.get(c["le_connection_complete_frame"], {})
    check(num(one(row, "bthci_evt.code")) == 0x3E and num(one(row, "bthci_evt.le_meta_subevent")) == 0x01
          and num(one(row, "bthci_evt.connection_handle")) == c["handle"] and num(one(row, "bthci_evt.role")) == 0,
          f"{name}: frame {c['le_connection_complete_frame']} is not LE Connection Complete, handle "
          f"0x{c['handle']:04x}, role central")
    clients = [num(one(r, "btatt.client_rx_mtu")) for r in rows.values() if r.get("btatt.client_rx_mtu")]
    servers = [num(one(r, "btatt.server_rx_mtu")) for r in rows.values() if r.get("btatt.server_rx_mtu")]
    mtu = min(clients[0], servers[0]) if clients and servers else 23
    check(mtu == c["att_mtu"], f"{name}: ATT_MTU {mtu} from the exchange, fixture {c['att_mtu']}")


def le_uuid(text):
    """A fixture UUID as tshark prints btatt.uuid16 / btatt.uuid128."""
    if text.startswith("0x"):
        return "btatt.uuid16", f"0x{int(text, 16):04x}"
    return "btatt.uuid128", bytes.fromhex(text.replace("-", ""))[::-1].hex()


def check_gatt(name, fx, rows):
    by_opcode = {}
    for row in rows.values():
        by_opcode.setdefault(num(one(row, "btatt.opcode")), []).append(row)
    handles = fx["gatt"]["handles"]
    for key, h in handles.items():
        field, shown = le_uuid(h["uuid"]) if "uuid" in h else (None, None)
        if h["kind"] == "primary service":
            ok = any(key in r["btatt.handle"] and h["end"] in r["btatt.group_end_handle"]
                     and shown in r[field] for r in by_opcode.get(0x11, []))
        elif h["kind"] == "characteristic declaration":
            ok = any(key in r["btatt.handle"] and r["btatt.handle"][r["btatt.handle"].index(key) + 1:][:1]
                     == [h["value_handle"]] for r in by_opcode.get(0x09, []))
        elif h["kind"] == "characteristic value":
            bits = sum({"read": 2, "write-without-response": 4, "write": 8, "notify": 16, "indicate": 32}[p]
                       for p in h["properties"])
            ok = any(key in r["btatt.handle"] and shown in r[field] and f"0x{bits:02x}" in
                     r["btatt.characteristic_properties"] for r in by_opcode.get(0x09, []))
        else:
            ok = any(key in r["btatt.handle"] and shown in r[field] for r in by_opcode.get(0x05, []))
        check(ok, f"{name}: no discovery response shows {h['kind']} {key} {h.get('uuid', '')}")


def check_att(name, fx, rows):
    shown = {f for f, r in rows.items() if r.get("btatt.opcode")}
    listed = {p["last_frame"] for p in fx["att_pdus"]}
    check(shown == listed, f"{name}: ATT at frames {sorted(shown ^ listed)[:10]} in only one of tshark / fixture")
    for p in fx["att_pdus"]:
        row = rows.get(p["last_frame"], {})
        where = f"{name}: ATT PDU at frame {p['last_frame']}"
        check(num(one(row, "btatt.opcode")) == p["att_opcode"], f"{where}: opcode {one(row, 'btatt.opcode')}")
        first = rows.get(p["frame"], {})
        check(num(one(first, "hci_h4.direction")) == (0 if p["direction"].startswith("central") else 1),
              f"{where}: direction")
        check(abs(float(first["frame.time_epoch"][0]) - p["time"]) < 1e-6, f"{where}: time")
        if "handle" in p:
            check(num(row["btatt.handle"][0]) == p["handle"], f"{where}: handle {row['btatt.handle']}")
        if "value_hex" in p:
            check(shown_value(row, p) == bytes.fromhex(p["value_hex"]), f"{where}: value {shown_value(row, p)}")
    for s in fx["split_pdus"]:
        where = f"{name}: split {s['att_operation']} {s['acl_fragments']}"
        sent = s["direction"].startswith("central")
        for i, frame in enumerate(s["acl_fragments"]):
            row = rows.get(frame, {})
            pb = num(one(row, "bthci_acl.pb_flag"))
            check(pb == ((0 if sent else 2) if i == 0 else 1), f"{where}: frame {frame} PB flag {pb}")
            check(num(one(row, "bthci_acl.length")) == s["fragment_l2cap_bytes"][i], f"{where}: frame {frame} length")
            if i + 1 < len(s["acl_fragments"]):
                check(not row.get("btatt.opcode"), f"{where}: tshark shows ATT before the last fragment")
            else:
                check(num(one(row, "bthci_acl.continuation_to")) == s["acl_fragments"][i - 1],
                      f"{where}: the last fragment does not continue the one before")
                check(num(one(row, "btl2cap.length")) + 4 == s["l2cap_length"], f"{where}: L2CAP length")


def check_messages(name, fx, rows):
    uuids = {k: h.get("uuid") for k, h in fx["gatt"]["handles"].items()}
    for m in fx["messages"]:
        row = rows.get(m["last_frame"], {})
        where = f"{name}: {m['message']} at frame {m['frame']}"
        check(num(one(row, "btatt.opcode")) == m["att_opcode"] and num(one(row, "btatt.handle")) == m["handle"],
              f"{where}: tshark shows opcode {row.get('btatt.opcode')} handle {row.get('btatt.handle')}")
        value = bytes.fromhex(one(row, "btatt.value") or "")
        check(value.hex() == m["value_hex"], f"{where}: tshark value {value.hex()} ≠ {m['value_hex']}")
        check(uuids.get(f"0x{m['handle']:04x}") == m["uuid"], f"{where}: handle is not {m['uuid']} in discovery")
        message, fields = (decode_legctrl if m["codec"] == "legctrl" else decode_rallie)(value)
        check((message, fields) == (m["message"], m["fields"]), f"{where}: decodes here as {message} {fields}")
        check(num(one(rows.get(m["frame"], {}), "bthci_acl.chandle")) == m["connection"], f"{where}: connection")
        check(m["last_frame"] == m["frame"] or m.get("acl_fragments", [None])[-1] == m["last_frame"],
              f"{where}: fragments")


def check_damage(name, fx, path):
    for d in fx.get("damage", []):
        size = os.path.getsize(path)
        check(size == d["file_size"] and d["bytes_present"] < d["included_length"],
              f"{name}: file is {size} bytes, damage says {d['file_size']}")


def main():
    fixtures = sorted(glob.glob(os.path.join(BLE, "expected", "*.json")))
    check(len(fixtures) == 4, f"expected 4 BLE fixtures, found {len(fixtures)}")
    for path in fixtures:
        with open(path) as f:
            fx = json.load(f)
        name = fx["capture"]
        capture = os.path.join(BLE, name)
        rows, rc, stderr = tshark(capture)
        before = len(FAILURES)
        check_counts(name, fx, rows, rc, stderr)
        check_connection(name, fx, rows)
        check_gatt(name, fx, rows)
        check_att(name, fx, rows)
        check_messages(name, fx, rows)
        check_damage(name, fx, capture)
        status = "ok" if len(FAILURES) == before else f"{len(FAILURES) - before} FAILURES"
        print(f"ble_verify: {name}: {fx['records']} records, {len(fx['att_pdus'])} ATT PDUs, "
              f"{len(fx['messages'])} messages, {len(fx['split_pdus'])} split: {status}")
    legctrl = json.load(open(os.path.join(BLE, "expected", "legctrl-session.json")))
    values = [m["value_hex"] for m in legctrl["messages"]]
    check("0110080000000000e81c0000" in values and "011008000201c800e81c0000" in values
          and "01030200dc05" in values and "01010000" in values and "01020000" in values,
          "legctrl-session: a §2 golden vector is missing")
    rallie = json.load(open(os.path.join(BLE, "expected", "rallie-session.json")))
    check("5aa58332322d2d32004e" in [m["value_hex"] for m in rallie["messages"]],
          "rallie-session: the §3 vector is missing")
    for failure in FAILURES:
        print("FAIL", failure)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
