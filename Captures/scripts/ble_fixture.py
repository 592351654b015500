"""Fixtures for the BLE captures (../ble/expected/*.json), written from the
packets ble_make.py built, never from a decoder's output; and the
truncated copy."""

import json
import struct
import subprocess

import ble_link
import ble_wire as wire

ROLE = {"central→peripheral": ("central", "peripheral"), "peripheral→central": ("peripheral", "central")}

LEGCTRL_NOTES = [
    "Not a radio capture: the phone's HCI trace of one LE connection, built packet by packet with Scapy's "
    "Bluetooth layers (scripts/ble_make.py). The peripheral is a Python model of the LegCtrl firmware as its own "
    "code behaves (docs/protocols.md §5, checked against the device-truth recordings by scripts/firmware_truth.py) "
    "behind a GATT server; timing follows connection events (45 ms, then 15 ms after the LE Connection Update).",
    "The phone is central; the connection handle is 0x0040. Android-style: LE Set Scan Enable (off), LE Create "
    "Connection, LE Read Remote Features, ATT Exchange MTU (phone 517, peripheral 247 → ATT_MTU 247), full "
    "primary service / characteristic / descriptor discovery, CCCD write 01 00, reads of Device Name and of the "
    "telemetry's Characteristic User Description, LE Connection Update, then the LegCtrl traffic, then HCI "
    "Disconnect. Number Of Completed Packets events report every host ACL packet.",
    "The peripheral's controller carries 27 bytes of L2CAP per packet (no Data Length Extension), so every "
    "peripheral→central L2CAP frame longer than 27 bytes reaches the host as an ACL start fragment (PB 10) and a "
    "continuation (PB 01): the Read By Type Response listing the two 128-bit LegCtrl characteristics and the Read "
    "Response carrying the 43-byte Characteristic User Description. See split_pdus; tshark shows the reassembled "
    "ATT PDU at the last fragment's frame (last_frame).",
    "The app writes without response (ATT Write Command 0x52); telemetry is ATT Handle Value Notification 0x1b.",
    "The firmware timer's phase was chosen (tick_phase_us) so that the deadman trip telemetry is exactly the §2 "
    "golden vector 01 10 08 00 02 01 C8 00 E8 1C 00 00 (age 200). The first telemetry is the other §2 vector "
    "(DISARMED, age 0). As in the real firmware (§5), DISARM resets the age: the DISARMED telemetry after it "
    "reports age 0 again. Battery stays at 7400 mV.",
    "`frame` is the first record carrying any byte of the ATT PDU; `time` is that record's time.",
]

RALLIE_NOTES = [
    "Not a radio capture: the phone's HCI trace of one LE connection, built with Scapy's Bluetooth layers "
    "(scripts/ble_make.py). The machine is a Python model (the one of the UDP capture): out of range → rejected, "
    "start → accepted, stop → completed, XOR check (v0.3).",
    "The phone is central; connection handle 0x0041; no ATT MTU exchange, so ATT_MTU is 23 and each Read By Type "
    "Response carries a single 128-bit characteristic declaration.",
    "Commands are ATT Write Requests (0x12) to the …FF02 value, each answered by a Write Response (0x13) and, in "
    "the same connection event, a notification (0x1b) on …FF03 carrying the 5-byte response.",
    "The third command's Write Request is deliberately sent as two ACL packets (PB 00 with 9 bytes of L2CAP, then "
    "PB 01 with 8): ACL fragmentation is independent of the ATT size, a decoder must reassemble L2CAP. tshark "
    "shows the Write Request at the continuation's frame (last_frame).",
]

BTSNOOP_TIME_NOTE = (
    "btsnoop timestamps are µs since 1 January 0 AD with the Unix epoch at 0x00DCDDB30F2F8000, as Android writes "
    "and Wireshark reads them. (0x00E03AB44A676000, often quoted as the Unix offset, is 1 January 2000: using it "
    "shifts every time by 946684800 s.) `time` values are Unix seconds.")

TRUNCATED_NOTES = [
    "legctrl-session.btsnoop cut short inside one record: that record's 24-byte header is whole, its data is "
    "not. Everything before it is intact; tshark reads the whole records and then reports the file as cut short "
    "in the middle of a packet.",
    "messages, att_pdus and split_pdus list only what lies entirely in the whole records; `damage` says which "
    "record is cut and which ATT PDU it carried.",
]


def seconds(us):
    return round(us / 1_000_000, 6)


def app_message(codec, value):
    if codec == "legctrl":
        return wire.legctrl_message(value), wire.legctrl_fields(value)
    return ("command" if len(value) == 10 else "response"), wire.rallie_fields(value)


def build(trace, central, discovery, apps, info, notes):
    """apps: value handle → (codec, characteristic UUID)."""
    services, characteristics, descriptors = discovery
    messages, att_pdus, splits = [], [], []
    for p in sorted(central.conn.pdus, key=lambda p: p["records"][0].frame):
        first, last = p["records"][0], p["records"][-1]
        src, dst = ROLE[p["direction"]]
        base = {"frame": first.frame, "last_frame": last.frame, "time": seconds(first.time_us),
                "direction": p["direction"], "att_opcode": p["opcode"],
                "att_operation": ble_link.ATT_NAMES[p["opcode"]]}
        if "handle" in p:
            base["handle"] = p["handle"]
        if "value" in p:
            base["value_hex"] = p["value"].hex()
        att_pdus.append(dict(base))
        fragments = [r.frame for r in p["records"]]
        if len(fragments) > 1:
            splits.append({**base, "acl_fragments": fragments,
                           "acl_pb_flags": ["start" if i == 0 else "continuation" for i in range(len(fragments))],
                           "fragment_l2cap_bytes": [len(r.data) - 5 for r in p["records"]],
                           "l2cap_length": p["l2cap_len"]})
        if p.get("handle") in apps and p["opcode"] in (0x12, 0x1B, 0x52):
            codec, char_uuid = apps[p["handle"]]
            message, fields = app_message(codec, p["value"])
            entry = {"frame": first.frame, "last_frame": last.frame, "time": seconds(first.time_us),
                     "transport": "ble-att", "connection": central.handle,
                     "src": f"0x{central.handle:04x} {src}", "dst": f"0x{central.handle:04x} {dst}",
                     "direction": p["direction"], "att_operation": base["att_operation"], "att_opcode": p["opcode"],
                     "handle": p["handle"], "uuid": char_uuid, "codec": codec, "message": message, "fields": fields,
                     "value_hex": p["value"].hex()}
            if len(fragments) > 1:
                entry["acl_fragments"] = fragments
            if first.seq in notes:
                entry["note"] = notes[first.seq]
            messages.append(entry)
    handles = {}
    for first, last, value in services:
        handles[f"0x{first:04x}"] = {"kind": "primary service", "uuid": ble_link.uuid_text(uuid_of(value)),
                                     "end": f"0x{last:04x}"}
    for c in characteristics:
        handles[f"0x{c['declaration']:04x}"] = {"kind": "characteristic declaration",
                                                "value_handle": f"0x{c['value_handle']:04x}"}
        handles[f"0x{c['value_handle']:04x}"] = {"kind": "characteristic value", "uuid": ble_link.uuid_text(c["uuid"]),
                                                 "properties": properties(c["properties"])}
    for handle, kind, owner in descriptors:
        handles[f"0x{handle:04x}"] = {"kind": "descriptor", "uuid": ble_link.uuid_text(kind),
                                      "characteristic_value": f"0x{owner:04x}"}
    records = trace.records
    flags = [r.flags for r in records]
    return {
        "records": len(records),
        "hci_packets": {"commands": flags.count(ble_link.SENT_COMMAND), "events": flags.count(ble_link.RECEIVED_EVENT),
                        "acl_sent": flags.count(ble_link.SENT_DATA), "acl_received": flags.count(ble_link.RECEIVED_DATA)},
        "first_time": seconds(records[0].time_us), "last_time": seconds(records[-1].time_us),
        "connection": {"handle": central.handle, "handle_hex": f"0x{central.handle:04x}", "role": "central",
                       "peer_role": "peripheral", "peer_address": central.peer_addr,
                       "peer_address_type": ["public", "random"][central.peer_addr_type],
                       "le_connection_complete_frame": next(r.frame for r in records if r.data[:4] == b"\x04\x3e\x13\x01"),
                       "interval_units": central.clock.segments[0][1] // 1250,
                       "interval_units_after_update": central.clock.segments[-1][1] // 1250,
                       "att_mtu": info["att_mtu"]},
        "gatt": {"handles": dict(sorted(handles.items())),
                 "application": {f"0x{h:04x}": {"uuid": u, "codec": c} for h, (c, u) in apps.items()}},
        "split_pdus": splits,
        "messages": messages,
        "att_pdus": att_pdus,
    }


def uuid_of(value):
    value = bytes(value)
    return int.from_bytes(value, "little") if len(value) == 2 else str(__import__("uuid").UUID(bytes=value[::-1]))


def properties(bits):
    names = [(0x02, "read"), (0x04, "write-without-response"), (0x08, "write"), (0x10, "notify"), (0x20, "indicate")]
    return [name for bit, name in names if bits & bit]


def tshark_hci_count(path):
    run = subprocess.run(["tshark", "-n", "-r", path, "-Y", "hci_h4", "-T", "fields", "-e", "frame.number"],
                         capture_output=True, text=True)
    return len(run.stdout.split())


def write(path, capture, fmt, link_type, fx, made_by, notes):
    capture_path = path.rsplit("/expected/", 1)[0] + "/" + capture
    out = {"capture": capture, "format": fmt, "link_type": link_type, "records": fx["records"],
           "tshark_hci_packets": tshark_hci_count(capture_path), "made_by": made_by, "notes": notes}
    out.update({k: v for k, v in fx.items() if k != "records"})
    if out["tshark_hci_packets"] != out["records"]:
        raise RuntimeError(f"{capture}: tshark sees {out['tshark_hci_packets']} HCI packets, built {out['records']}")
    with open(path, "w") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return out


def truncate(src, dst, fx, servo_number):
    """Copy src up to the middle of the record that carries the
    servo_number-th set_servo_ch0; return the fixture of what is left."""
    lost = [m for m in fx["messages"] if m["message"] == "set_servo_ch0"][servo_number - 1]
    cut_frame = lost["frame"]
    with open(src, "rb") as f:
        data = f.read()
    offset, flags, last_us = 16, [], None
    for _ in range(cut_frame - 1):
        included, record_flags = struct.unpack(">II", data[offset + 4:offset + 12])
        flags.append(record_flags)
        last_us = struct.unpack(">q", data[offset + 16:offset + 24])[0] - ble_link.BTSNOOP_EPOCH_DELTA_US
        offset += 24 + included
    included = struct.unpack(">I", data[offset + 4:offset + 8])[0]
    present = included // 2
    with open(dst, "wb") as f:
        f.write(data[:offset + 24 + present])
    whole = cut_frame - 1
    out = {k: v for k, v in fx.items() if k not in ("messages", "att_pdus", "split_pdus")}
    out["records"] = whole
    out["hci_packets"] = {"commands": flags.count(ble_link.SENT_COMMAND), "events": flags.count(ble_link.RECEIVED_EVENT),
                          "acl_sent": flags.count(ble_link.SENT_DATA), "acl_received": flags.count(ble_link.RECEIVED_DATA)}
    out["last_time"] = seconds(last_us)
    out["damage"] = [{"frame": cut_frame, "kind": "truncated", "file_offset": offset, "included_length": included,
                      "bytes_present": present, "file_size": offset + 24 + present,
                      "what": f"record {cut_frame} has its 24-byte header and {present} of its {included} bytes; it "
                              f"carried set_servo_ch0 number {servo_number} ({lost['value_hex']}, an ATT "
                              f"{lost['att_operation']})",
                      "lost_message": lost}]
    out["messages"] = [m for m in fx["messages"] if m["last_frame"] <= whole]
    out["split_pdus"] = [m for m in fx["split_pdus"] if m["last_frame"] <= whole]
    out["att_pdus"] = [m for m in fx["att_pdus"] if m["last_frame"] <= whole]
    return out
