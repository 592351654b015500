import PacketCapture
import PacketKit

/// What a `PayloadStage` delivered on one fuzz input, by kind: payloads
/// by carrier, events by name, damage by layer. Each payload's bytes and
/// each notice's words are read, as the outputs read them, so that the
/// views they hold are touched. Counts move to the run's tallies after
/// each input; the counter is kept from input to input.
final class PayloadCounter: SimplePayloadConsumer {
  private var kinds = Tally()
  private var damaged = Tally()
  private(set) var touched = 0

  func datagram(
    frame: Int, time: Double, source: Endpoint, destination: Endpoint, bytes: UnsafeRawBufferPointer
  ) {
    count("datagram")
    touched &+= Int(bytes.last ?? 0)
  }

  func payload(_ payload: Payload) {
    switch payload.carrier {
    case .udp: count("datagram")
    case .tcp: count("stream-data")
    case .webSocket: count("websocket-message")
    case .att: count("att-value")
    }
    touched &+= Int(payload.bytes.last ?? 0) &+ payload.context.otherFrames.count
  }

  func event(_ event: CarrierEvent, _ context: CarrierContext) {
    switch event {
    case .webSocketHandshake, .webSocketAccept: count("ws-handshake")
    case .webSocketControl: count("ws-control")
    case .webSocketError(_, _, _, _, let code, _): damaged.add("ws-\(code)")
    case .streamGap: count("stream-gap")
    case .streamCut: count("stream-cut")
    case .streamDesync: count("stream-desync")
    case .streamClosed: count("stream")
    case .notice(let notice):
      count(notice.kind.rawValue)
      touched &+= notice.text.utf8.count
    case .undecoded: count("undecoded")
    case .damaged(_, _, let layer, _, _): damaged.add("damaged-\(layer)")
    case .att: count("att")
    case .bluetoothConnection: count("ble-connection")
    case .hci: count("hci")
    case .log: count("log")
    }
  }

  private func count(_ kind: String) {
    kinds.add(kind)
  }

  /// Moves this input's counts to the run's.
  func tally(into stats: inout FuzzStats) {
    if !kinds.isEmpty { stats.messageKinds.add(kinds) }
    if !damaged.isEmpty { stats.errorCodes.add(damaged) }
    kinds = Tally()
    damaged = Tally()
  }
}
