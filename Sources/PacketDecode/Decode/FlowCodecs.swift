import PacketCapture

/// The codec each flow (a UDP pair, a TCP connection, a BLE handle) was
/// found by probing to carry. A later payload of that flow that no probe
/// claims (a damaged frame is the one a field engineer looks for) goes to
/// the same codec and is shown as its error at its offset, not as bytes
/// nobody claimed. Routed flows (ports, paths, --decode-as) need no memory.
struct FlowCodecs<Key: Hashable> {
  /// Flows remembered at most; a scan of more starts the memory afresh.
  package static var limit: Int { 4096 }
  private var known: [Key: Int] = [:]
  /// The flow remembered last: a flow's payloads come in runs, and
  /// hashing its key for each of them cost more than its routing.
  private var last: (key: Key, index: Int)?

  package func choice(for key: Key) -> PayloadRouter.Choice? {
    known[key].map { PayloadRouter.Choice(index: $0, why: .flow) }
  }

  /// Remembers a probe's choice once a payload of the flow decoded with it.
  /// `key` is made only then: most payloads were routed by port or path.
  @inline(__always)
  package mutating func learn(_ key: @autoclosure () -> Key, _ choice: PayloadRouter.Choice?, decoded: Bool) {
    guard decoded, let choice, choice.byProbe else { return }
    remember(key(), choice.index)
  }

  private mutating func remember(_ key: Key, _ index: Int) {
    if let last, last.index == index, last.key == key { return }
    last = (key, index)
    guard known[key] != index else { return }
    if known.count >= Self.limit { known.removeAll(keepingCapacity: true) }
    known[key] = index
  }
}

/// A UDP flow, the same in both directions.
struct UDPFlowKey: Hashable {
  package var low: Endpoint
  package var high: Endpoint

  package init(_ a: Endpoint, _ b: Endpoint) {
    (low, high) = a < b ? (a, b) : (b, a)
  }
}

/// An ATT attribute on one BLE connection.
struct BLEHandleKey: Hashable {
  package var connection: UInt16
  package var handle: UInt16
}

extension DecodedRecord {
  /// Whether the codec decoded the payload (as a tree or as flat fields).
  var decodedByCodec: Bool {
    if flat != nil { return true }
    if case .decoded = result { return true }
    return false
  }
}
