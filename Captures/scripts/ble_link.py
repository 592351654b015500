"""A phone's HCI trace of one LE connection, built packet by packet with
Scapy's Bluetooth layers, and the two containers it is written to.

Nothing here talks to a radio: the host (the phone, central), the
controller and the peripheral are modelled well enough that the trace looks
like an Android btsnoop log:

- the link has connection events every `interval` (1.25 ms units); what the
  host sends goes on air at the next event, what the peripheral sends
  reaches the host at the event after it was queued, a few hundred µs into
  it, one LL packet after another;
- the controller reports each host ACL packet in a Number Of Completed
  Packets event once the peer acknowledged it;
- the peripheral's controller carries at most 27 bytes of L2CAP per LL
  packet (no Data Length Extension), so a longer L2CAP frame reaches the
  host as an ACL start fragment (PB 10) and continuation fragments (PB 01);
  the host sends PB 00 (first, non-flushable, as LE requires) and PB 01.

Times are integer microseconds (Unix epoch) so every file and fixture is
exactly reproducible: the only randomness is a seeded jitter."""

import random
import struct
import subprocess
import uuid

from scapy.layers.bluetooth import (ATT_Error_Response, ATT_Exchange_MTU_Request, ATT_Exchange_MTU_Response,
                                    ATT_Find_Information_Request, ATT_Find_Information_Response,
                                    ATT_Group_Handle_Variable, ATT_Handle, ATT_Handle_UUID128, ATT_Handle_Variable,
                                    ATT_Hdr, ATT_Read_By_Group_Type_Request, ATT_Read_By_Group_Type_Response,
                                    ATT_Read_By_Type_Request, ATT_Read_By_Type_Response, ATT_Read_Request,
                                    ATT_Read_Response, ATT_Write_Command, ATT_Write_Request, ATT_Write_Response,
                                    HCI_ACL_Hdr, HCI_Event_Hdr, HCI_Event_Number_Of_Completed_Packets, HCI_Hdr,
                                    HCI_PHDR_Hdr, L2CAP_Hdr)
from scapy.packet import Raw
from scapy.utils import wrpcap

# btsnoop timestamps count µs from midnight, 1 January 0 AD. The Unix epoch
# is 0x00DCDDB30F2F8000 on that scale: Android's btsnoop writer
# (BTSNOOP_EPOCH_DELTA) and Wireshark's reader (KUnixTimeBase) both use it.
# 0x00E03AB44A676000, often quoted, is 1 January *2000* (the spec's
# alternative epoch, 946684800 s later); adding Unix µs to it puts every
# record 30 years late.
BTSNOOP_EPOCH_DELTA_US = 0x00DCDDB30F2F8000
assert 0x00E03AB44A676000 - BTSNOOP_EPOCH_DELTA_US == 946_684_800 * 1_000_000
LE_ACL_PAYLOAD = 27  # bytes of L2CAP per LL data PDU without Data Length Extension

# btsnoop record flags: bit 0 = direction (1 = received by the host),
# bit 1 = command/event (1) rather than data.
SENT_DATA, RECEIVED_DATA, SENT_COMMAND, RECEIVED_EVENT = 0, 1, 2, 3

ATT_NAMES = {0x01: "error-response", 0x02: "exchange-mtu-request", 0x03: "exchange-mtu-response",
             0x04: "find-information-request", 0x05: "find-information-response",
             0x08: "read-by-type-request", 0x09: "read-by-type-response", 0x0A: "read-request",
             0x0B: "read-response", 0x10: "read-by-group-type-request", 0x11: "read-by-group-type-response",
             0x12: "write-request", 0x13: "write-response", 0x1B: "notification", 0x52: "write-command"}
ATTRIBUTE_NOT_FOUND = 0x0A


def uuid_bytes(u):
    """A UUID as it is on the wire: 16-bit ints LE, 128-bit strings LE
    (byte-reversed)."""
    return struct.pack("<H", u) if isinstance(u, int) else uuid.UUID(u).bytes[::-1]


def uuid_text(u):
    return f"0x{u:04x}" if isinstance(u, int) else u


class Record:
    __slots__ = ("time_us", "flags", "data", "seq", "frame")

    def __init__(self, time_us, flags, data, seq):
        self.time_us, self.flags, self.data, self.seq, self.frame = time_us, flags, data, seq, None


class Trace:
    """Every HCI packet of the capture, kept as (time, flags, H4 bytes)."""

    def __init__(self, seed):
        self.records, self.rng = [], random.Random(seed)

    def jitter(self, low, high):
        return self.rng.randint(low, high)

    def add(self, time_us, flags, h4):
        record = Record(time_us, flags, bytes(h4), len(self.records))
        self.records.append(record)
        return record

    def command(self, time_us, cmd):
        return self.add(time_us, SENT_COMMAND, HCI_Hdr(type=1) / cmd)

    def event(self, time_us, evt):
        return self.add(time_us, RECEIVED_EVENT, HCI_Hdr(type=4) / evt)

    def finish(self):
        """Put the records in time order and number them from 1."""
        self.records.sort(key=lambda r: (r.time_us, r.seq))
        for i, r in enumerate(self.records, 1):
            r.frame = i
        return self.records

    def write_btsnoop(self, path):
        """Android's btsnoop v1, datalink 1002 (HCI UART, H4), big-endian:
        orig len, incl len, flags, cumulative drops, µs since 0 AD."""
        with open(path, "wb") as f:
            f.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
            for r in self.records:
                f.write(struct.pack(">IIIIq", len(r.data), len(r.data), r.flags, 0,
                                    r.time_us + BTSNOOP_EPOCH_DELTA_US) + r.data)

    def write_pcapng(self, path):
        """LINKTYPE_BLUETOOTH_HCI_H4_WITH_PHDR (201): a 4-byte big-endian
        direction (0 sent, 1 received) before the H4 bytes. Scapy writes a
        pcap; editcap makes it pcapng."""
        packets = []
        for r in self.records:
            p = HCI_PHDR_Hdr(direction=r.flags & 1) / HCI_Hdr(r.data)
            p.time = r.time_us / 1_000_000
            packets.append(p)
        pcap = path + ".tmp.pcap"
        wrpcap(pcap, packets)
        subprocess.run(["editcap", "-F", "pcapng", pcap, path], check=True)
        subprocess.run(["rm", "-f", pcap], check=True)


class Clock:
    """Connection events: anchor + k·interval, with interval changes."""

    def __init__(self, anchor_us, interval_units):
        self.segments = [(anchor_us, interval_units * 1250)]

    def next_event(self, t_us):
        """The first connection event at or after t_us."""
        for i, (anchor, interval) in enumerate(self.segments):
            following = self.segments[i + 1][0] if i + 1 < len(self.segments) else None
            if following is not None and t_us >= following:
                continue
            k = max(0, -(-(t_us - anchor) // interval))
            event = anchor + k * interval
            if following is not None and event >= following:
                return following
            return event
        raise AssertionError("unreachable")

    def change(self, from_us, interval_units):
        """New interval from the first event at or after from_us (the
        update's instant); returns that instant."""
        instant = self.next_event(from_us)
        self.segments = [s for s in self.segments if s[0] < instant] + [(instant, interval_units * 1250)]
        return instant


class Connection:
    """One LE connection seen from the central's HCI: ATT PDUs both ways,
    ACL fragmentation, and the controller's completed-packets reports."""

    def __init__(self, trace, handle, clock):
        self.trace, self.handle, self.clock = trace, handle, clock
        self.pdus, self.completed, self.slots = [], {}, {}

    def _pdu(self, direction, att, records, l2cap, at_peer_us):
        body = l2cap[4:]
        pdu = {"direction": direction, "opcode": body[0], "att": att, "body": body, "records": records,
               "l2cap_len": len(l2cap), "at_peer_us": at_peer_us}
        self.pdus.append(pdu)
        return pdu

    def central(self, t_us, att, split_at=None):
        """The host sends one ATT PDU at t_us, as one ACL packet, or as a
        start fragment of `split_at` bytes of L2CAP plus a continuation.
        Returns the PDU; pdu["at_peer_us"] is the event that carries it."""
        l2cap = bytes(L2CAP_Hdr(cid=4) / ATT_Hdr() / att)
        if split_at is None:
            records = [self.trace.add(t_us, SENT_DATA, HCI_Hdr(type=2) / HCI_ACL_Hdr(
                PB=0, connection_handle=self.handle) / L2CAP_Hdr(cid=4) / ATT_Hdr() / att)]
        else:
            parts = [(0, l2cap[:split_at]), (1, l2cap[split_at:])]
            records = [self.trace.add(t_us + i * self.trace.jitter(40, 90), SENT_DATA,
                                      HCI_Hdr(type=2) / HCI_ACL_Hdr(PB=pb, connection_handle=self.handle) / Raw(part))
                       for i, (pb, part) in enumerate(parts)]
        event = self.clock.next_event(records[-1].time_us + 300)
        self.completed[event] = self.completed.get(event, 0) + len(records)
        return self._pdu("central→peripheral", att, records, l2cap, event)

    def peripheral(self, queued_us, att):
        """The peripheral queues one ATT PDU at queued_us; it goes on air at
        the next event, in 27-byte LL packets, each one an ACL packet to
        the host. Returns the PDU; pdu["records"][-1].time_us is when the
        host has all of it."""
        l2cap = bytes(L2CAP_Hdr(cid=4) / ATT_Hdr() / att)
        event = self.clock.next_event(queued_us)
        records = []
        for i in range(0, len(l2cap), LE_ACL_PAYLOAD):
            slot = self.slots.get(event, 0)
            self.slots[event] = slot + 1
            at = event + 380 + slot * 330 + self.trace.jitter(0, 40)
            pb = 2 if i == 0 else 1
            records.append(self.trace.add(at, RECEIVED_DATA, HCI_Hdr(type=2) / HCI_ACL_Hdr(
                PB=pb, connection_handle=self.handle) / Raw(l2cap[i:i + LE_ACL_PAYLOAD])))
        return self._pdu("peripheral→central", att, records, l2cap, event)

    def report_completed(self, until_us=None):
        """Number Of Completed Packets, one event per connection event that
        acknowledged host packets (up to until_us)."""
        for event in sorted(self.completed):
            if until_us is not None and event > until_us:
                continue
            count = self.completed.pop(event)
            self.trace.event(event + 900 + self.trace.jitter(0, 120), HCI_Event_Hdr() / HCI_Event_Number_Of_Completed_Packets(
                num_handles=1, connection_handle_list=[self.handle], num_completed_packets_list=[count]))


# --------------------------------------------------------------- GATT server


class GattServer:
    """The peripheral's attribute database and the ATT server answers of
    Core Vol 3 Part F §3.4 (grouped, same-length entries, cut at ATT_MTU)."""

    def __init__(self, attributes, rx_mtu=23):
        self.attributes = sorted(attributes, key=lambda a: a[0])  # (handle, type, value)
        self.rx_mtu, self.mtu = rx_mtu, 23  # ATT_MTU is 23 until an Exchange MTU
        self.values = {h: v for h, _, v in self.attributes}

    def _range(self, start, end, kind=None):
        return [(h, t, v) for h, t, v in self.attributes if start <= h <= end and (kind is None or t == kind)]

    def group_end(self, handle):
        """The last attribute before the next service declaration."""
        later = [h for h, t, _ in self.attributes if h > handle and t in (0x2800, 0x2801)]
        return max(h for h, _, _ in self.attributes if h >= handle and (not later or h < later[0]))

    def error(self, request_opcode, handle):
        return ATT_Error_Response(request=request_opcode, handle=handle, ecode=ATTRIBUTE_NOT_FOUND)

    def answer(self, request):
        if isinstance(request, ATT_Exchange_MTU_Request):
            self.mtu = max(23, min(request.mtu, self.rx_mtu))
            return ATT_Exchange_MTU_Response(mtu=self.rx_mtu)
        if isinstance(request, ATT_Read_By_Group_Type_Request):
            found = self._range(request.start, request.end, request.uuid)
            entries = []
            for h, _, v in found:
                if (entries and len(v) != len(entries[0][2])) or 2 + (len(entries) + 1) * (4 + len(v)) > self.mtu:
                    break
                entries.append((h, self.group_end(h), v))
            if not entries:
                return self.error(0x10, request.start)
            return ATT_Read_By_Group_Type_Response(len=4 + len(entries[0][2]), handles=[
                ATT_Group_Handle_Variable(handle=h, group_end_handle=e, value=v) for h, e, v in entries])
        if isinstance(request, ATT_Read_By_Type_Request):
            entries = []
            for h, _, v in self._range(request.start, request.end, request.uuid):
                if (entries and len(v) != len(entries[0][1])) or 2 + (len(entries) + 1) * (2 + len(v)) > self.mtu:
                    break
                entries.append((h, v))
            if not entries:
                return self.error(0x08, request.start)
            return ATT_Read_By_Type_Response(len=2 + len(entries[0][1]), handles=[
                ATT_Handle_Variable(handle=h, value=v) for h, v in entries])
        if isinstance(request, ATT_Find_Information_Request):
            found = self._range(request.start, request.end)
            if not found:
                return self.error(0x04, request.start)
            fmt = 1 if isinstance(found[0][1], int) else 2
            entries = []
            for h, t, _ in found:
                if (1 if isinstance(t, int) else 2) != fmt or 2 + (len(entries) + 1) * (4 if fmt == 1 else 18) > self.mtu:
                    break
                entries.append(ATT_Handle(handle=h, value=t) if fmt == 1 else ATT_Handle_UUID128(handle=h, value=uuid.UUID(t)))
            return ATT_Find_Information_Response(format=fmt, handles=entries)
        if isinstance(request, ATT_Read_Request):
            return ATT_Read_Response(value=self.values[request.gatt_handle][:self.mtu - 1])
        if isinstance(request, ATT_Write_Request):
            self.values[request.gatt_handle] = bytes(request.data)
            return ATT_Write_Response()
        if isinstance(request, ATT_Write_Command):
            self.values[request.gatt_handle] = bytes(request.data)
            return None
        raise ValueError(f"no answer modelled for {request.summary()}")


def primary_service(handle, service_uuid):
    return (handle, 0x2800, uuid_bytes(service_uuid))


def characteristic(decl_handle, properties, char_uuid, value=b""):
    """The declaration (0x2803: properties, value handle, UUID) and the
    value attribute right after it."""
    return [(decl_handle, 0x2803, bytes([properties]) + struct.pack("<H", decl_handle + 1) + uuid_bytes(char_uuid)),
            (decl_handle + 1, char_uuid, value)]


def gap_and_gatt(device_name):
    """Generic Access (0x0001–0x0005) and Generic Attribute (0x0006–0x0009),
    as every peripheral has them."""
    return [primary_service(0x0001, 0x1800), *characteristic(0x0002, 0x02, 0x2A00, device_name),
            *characteristic(0x0004, 0x02, 0x2A01, b"\x00\x00"),
            primary_service(0x0006, 0x1801), *characteristic(0x0007, 0x20, 0x2A05, b"\x01\x00\xff\xff"),
            (0x0009, 0x2902, b"\x00\x00")]
