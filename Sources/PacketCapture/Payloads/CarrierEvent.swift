import PacketKit

/// What the layers below the payloads report besides payloads: WebSocket
/// handshakes and control frames, TCP gaps and closes, what the capture
/// layer dropped or could not trust, Bluetooth connections and ATT
/// operations, damage, and records nothing here decodes.
public enum CarrierEvent {
  case webSocketHandshake(TCPConnectionID, WebSocketHandshake, frame: Int, time: Double)
  /// The server's answer to the upgrade (101 when upgraded).
  case webSocketAccept(TCPConnectionID, status: Int, extensions: String?, frame: Int, time: Double)
  case webSocketControl(TCPConnectionID, StreamDirection, WebSocketControl, frame: Int, time: Double)
  /// A protocol violation or lost data in a WebSocket stream.
  case webSocketError(TCPConnectionID, StreamDirection, frame: Int, time: Double, code: String, text: String)
  /// Bytes that never arrived; delivery resumes after them.
  case streamGap(TCPConnectionID, StreamDirection, frame: Int, time: Double, missingBytes: Int)
  /// The snap length cut this record's segment (see `TransportEvent.streamCut`).
  case streamCut(
    TCPConnectionID, StreamDirection, frame: Int, time: Double, kept: Int, original: Int, missingBytes: Int)
  /// Sequence numbers jumped further than any window (see `TransportEvent.streamDesync`).
  case streamDesync(
    TCPConnectionID, StreamDirection, frame: Int, time: Double, sequence: UInt32, expected: UInt32)
  /// A connection ended: "fin", "rst", "idle", "port reuse" or "end of
  /// capture". (An eviction is not an end: the stage keeps the connection's
  /// WebSocket state until it resumes, and says so with a notice.)
  case streamClosed(TCPConnectionID, frame: Int, time: Double, reason: String)
  /// Data dropped to stay in bounds, bytes that disagreed, a connection
  /// evicted or resumed.
  case notice(CaptureNotice)
  /// Something not decoded here (a link type, an IP protocol, an HCI
  /// record that carries no ATT): counted, not an error.
  case undecoded(frame: Int, time: Double, reason: String)
  /// Bytes that contradict their own headers at one layer; `offset` is in the record.
  case damaged(frame: Int, time: Double, layer: String, offset: Int, text: String)
  /// An ATT PDU that is not a value (discovery, errors, requests).
  case att(ATTOperation)
  /// A Bluetooth connection opened or closed.
  case bluetoothConnection(BluetoothConnectionEvent)
  /// An HCI command or event, or a monitor record, by name.
  case hci(frame: Int, time: Double, kind: String)
  /// A text record of the capturing host (PacketLogger notes, syslog lines).
  case log(BluetoothLogEntry)
}
