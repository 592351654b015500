"""The phone's side of an LE connection: the HCI commands an Android stack
issues (stop scanning, create connection, read remote features, connection
update, disconnect) and its GATT client procedures (MTU exchange, primary
service, characteristic and descriptor discovery, reads and writes)."""

import uuid

from scapy.layers.bluetooth import (ATT_Error_Response, ATT_Exchange_MTU_Request,
                                    ATT_Find_Information_Request, ATT_Handle_Value_Notification,
                                    ATT_Read_By_Group_Type_Request, ATT_Read_By_Type_Request, ATT_Read_Request,
                                    ATT_Read_Response, ATT_Write_Command, ATT_Write_Request, HCI_Cmd_Disconnect,
                                    HCI_Cmd_LE_Connection_Update, HCI_Cmd_LE_Create_Connection,
                                    HCI_Cmd_LE_Read_Remote_Features, HCI_Cmd_LE_Set_Scan_Enable, HCI_Command_Hdr,
                                    HCI_Event_Command_Complete, HCI_Event_Command_Status,
                                    HCI_Event_Disconnection_Complete, HCI_Event_Hdr, HCI_Event_LE_Meta,
                                    HCI_LE_Meta_Connection_Complete, HCI_LE_Meta_Connection_Update_Complete,
                                    HCI_LE_Meta_LE_Read_Remote_Features_Complete)

import ble_link

SUPERVISION_TIMEOUT = 0x01F4  # 5 s, Android's default


def annotate(pdu, request=None):
    """Handle and value of an ATT PDU, as tshark shows them (btatt.handle,
    btatt.value); a Read Response takes the handle of its request."""
    att = pdu["att"]
    if isinstance(att, (ATT_Write_Command, ATT_Write_Request)):
        pdu["handle"], pdu["value"] = att.gatt_handle, bytes(att.data)
    elif isinstance(att, ATT_Handle_Value_Notification):
        pdu["handle"], pdu["value"] = att.gatt_handle, bytes(att.value)
    elif isinstance(att, ATT_Read_Request):
        pdu["handle"] = att.gatt_handle
    elif isinstance(att, ATT_Read_Response):
        pdu["handle"], pdu["value"] = request["handle"], bytes(att.value)
    return pdu


class Central:
    """One connection from the phone. `t` is the host's clock (µs); every
    method moves it on to when the phone would act next."""

    def __init__(self, trace, server, handle, peer_addr, peer_addr_type, interval, t):
        self.trace, self.server, self.handle = trace, server, handle
        self.interval, self.peer_addr, self.peer_addr_type = interval, peer_addr, peer_addr_type
        trace.command(t, HCI_Command_Hdr() / HCI_Cmd_LE_Set_Scan_Enable(enable=0, filter_dups=0))
        trace.event(t + 420, HCI_Event_Hdr() / HCI_Event_Command_Complete(number=1, opcode=0x200C, status=0))
        t += 2100
        trace.command(t, HCI_Command_Hdr() / HCI_Cmd_LE_Create_Connection(
            interval=0x0060, window=0x0030, filter=0, peer_addr_type=peer_addr_type, peer_addr=peer_addr,
            own_addr_type=1, min_interval=0x0018, max_interval=0x0028, latency=0, timeout=SUPERVISION_TIMEOUT,
            min_ce=0, max_ce=0))
        trace.event(t + 480, HCI_Event_Hdr() / HCI_Event_Command_Status(status=0, number=1, opcode=0x200D))
        self.connected_at = t + 86_000 + trace.jitter(0, 20_000)  # the peer's next advertisement
        trace.event(self.connected_at, HCI_Event_Hdr() / HCI_Event_LE_Meta() / HCI_LE_Meta_Connection_Complete(
            status=0, connection_handle=handle, role=0, peer_addr_type=peer_addr_type, peer_addr=peer_addr,
            interval=interval, latency=0, supervision=SUPERVISION_TIMEOUT, master_clock_accuracy=0))
        self.clock = ble_link.Clock(self.connected_at + 2500, interval)
        self.conn = ble_link.Connection(trace, handle, self.clock)
        t = self.connected_at + 1700
        trace.command(t, HCI_Command_Hdr() / HCI_Cmd_LE_Read_Remote_Features(connection_handle=handle))
        trace.event(t + 390, HCI_Event_Hdr() / HCI_Event_Command_Status(status=0, number=1, opcode=0x2016))
        done = self.clock.next_event(t) + 2 * interval * 1250 + 650  # LL_FEATURE_REQ / RSP
        trace.event(done, HCI_Event_Hdr() / HCI_Event_LE_Meta() / HCI_LE_Meta_LE_Read_Remote_Features_Complete(
            status=0, connection_handle=handle, le_features=0x0000_0000_0000_0001))
        self.t = self.connected_at + 30_000 + trace.jitter(0, 15_000)  # the app's onConnectionStateChange
        self.hooks = []  # called with a time: let the peripheral act up to it

    def catch_up(self, t):
        for hook in self.hooks:
            hook(t)

    def exchange(self, request, split_at=None):
        """Send an ATT request (or command); the peripheral's server answers
        it in the connection event after the one that brought it."""
        self.catch_up(self.t)
        req = annotate(self.conn.central(self.t, request, split_at))
        self.t = req["records"][-1].time_us
        self.catch_up(req["at_peer_us"])  # the peripheral acts up to the event that brings the request
        answer = self.server.answer(request)
        if answer is None:
            return req, None
        resp = annotate(self.conn.peripheral(req["at_peer_us"] + self.trace.jitter(600, 2000), answer), req)
        self.t = resp["records"][-1].time_us + self.trace.jitter(300, 1500)  # the stack's GATT queue
        return req, resp

    def exchange_mtu(self, client_mtu):
        _, resp = self.exchange(ATT_Exchange_MTU_Request(mtu=client_mtu))
        return resp

    def discover(self):
        """Android's full discovery: every primary service, then each
        service's characteristic declarations, then the descriptors in the
        room after each characteristic value."""
        services, start = [], 0x0001
        while start <= 0xFFFF:
            _, resp = self.exchange(ATT_Read_By_Group_Type_Request(start=start, end=0xFFFF, uuid=0x2800))
            if isinstance(resp["att"], ATT_Error_Response):
                break
            services += [(e.handle, e.group_end_handle, e.value) for e in resp["att"].handles]
            start = services[-1][1] + 1
        characteristics = []
        for first, last, _ in services:
            start = first
            while start <= last:
                _, resp = self.exchange(ATT_Read_By_Type_Request(start=start, end=last, uuid=0x2803))
                if isinstance(resp["att"], ATT_Error_Response):
                    break
                for e in resp["att"].handles:
                    v = bytes(e.value)
                    char_uuid = int.from_bytes(v[3:], "little") if len(v) == 5 else str(uuid.UUID(bytes=v[3:][::-1]))
                    characteristics.append({"declaration": e.handle, "properties": v[0],
                                            "value_handle": int.from_bytes(v[1:3], "little"), "uuid": char_uuid,
                                            "service_end": last})
                start = characteristics[-1]["declaration"] + 1
        descriptors = []
        for i, c in enumerate(characteristics):
            following = characteristics[i + 1]["declaration"] if i + 1 < len(characteristics) else None
            last = c["service_end"] if following is None or following > c["service_end"] else following - 1
            start = c["value_handle"] + 1
            while start <= last:
                _, resp = self.exchange(ATT_Find_Information_Request(start=start, end=last))
                if isinstance(resp["att"], ATT_Error_Response):
                    break
                descriptors += [(e.handle, e.value if isinstance(e.value, int) else str(e.value), c["value_handle"])
                                for e in resp["att"].handles]
                start = descriptors[-1][0] + 1
        return services, characteristics, descriptors

    def read(self, handle):
        return self.exchange(ATT_Read_Request(gatt_handle=handle))

    def write_request(self, handle, value, split_at=None):
        return self.exchange(ATT_Write_Request(gatt_handle=handle, data=value), split_at)

    def write_command(self, handle, value):
        req, _ = self.exchange(ATT_Write_Command(gatt_handle=handle, data=value))
        return req

    def update_connection(self, interval):
        """requestConnectionPriority(HIGH): LE Connection Update; the new
        interval starts at the instant, 6 events on."""
        t = self.t
        self.trace.command(t, HCI_Command_Hdr() / HCI_Cmd_LE_Connection_Update(
            connection_handle=self.handle, min_interval=0x0009, max_interval=interval, latency=0,
            timeout=SUPERVISION_TIMEOUT, min_ce=0, max_ce=0))
        self.trace.event(t + 410, HCI_Event_Hdr() / HCI_Event_Command_Status(status=0, number=1, opcode=0x2013))
        instant = self.clock.change(self.clock.next_event(t + 300) + 6 * self.interval * 1250, interval)
        self.interval = interval
        done = instant + 700 + self.trace.jitter(0, 80)
        self.trace.event(done, HCI_Event_Hdr() / HCI_Event_LE_Meta() / HCI_LE_Meta_Connection_Update_Complete(
            status=0, connection_handle=self.handle, interval=interval, latency=0, timeout=SUPERVISION_TIMEOUT))
        self.t = done + 2000
        return instant

    def disconnect(self):
        """gatt.disconnect(): HCI Disconnect (remote user terminated); the
        controller reports Disconnection Complete (connection terminated by
        local host) once the peer acknowledged LL_TERMINATE_IND."""
        t = self.t
        self.catch_up(t)
        self.conn.report_completed()
        self.trace.command(t, HCI_Command_Hdr() / HCI_Cmd_Disconnect(connection_handle=self.handle, reason=0x13))
        self.trace.event(t + 430, HCI_Event_Hdr() / HCI_Event_Command_Status(status=0, number=1, opcode=0x0406))
        done = self.clock.next_event(t + 300) + self.interval * 1250 + 800
        self.trace.event(done, HCI_Event_Hdr() / HCI_Event_Disconnection_Complete(
            status=0, connection_handle=self.handle, reason=0x16))
        return done
