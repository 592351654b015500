import PacketCapture

/// `--stats` without records: the last few flows clean messages were
/// counted for (a directed pair of endpoints, or a BLE connection and
/// direction, with the codec and kind) and their tallies' slots in
/// `FlowRates`, compared before any endpoint name is made or hashed: a
/// capture's messages come from a handful of flows at a time.
struct RecentFlowSlots<Key: Equatable> {
  private var entries: [(key: Key, codec: Int, kind: Int, slot: Int)] = []
  private var next = 0
  /// The entry found last, kept apart: a flow's messages mostly come in runs.
  private var last: (key: Key, codec: Int, kind: Int, slot: Int)?
  package static var capacity: Int { 8 }

  @inline(__always)
  package mutating func slot(_ key: Key, codec: Int, kind: Int) -> Int? {
    if let last, last.kind == kind, last.codec == codec, last.key == key { return last.slot }
    return search(key, codec: codec, kind: kind)
  }

  private mutating func search(_ key: Key, codec: Int, kind: Int) -> Int? {
    for entry in entries where entry.kind == kind && entry.codec == codec && entry.key == key {
      last = entry
      return entry.slot
    }
    return nil
  }

  package mutating func remember(_ key: Key, codec: Int, kind: Int, slot: Int) {
    if entries.count < Self.capacity {
      entries.append((key, codec, kind, slot))
    } else {
      entries[next] = (key, codec, kind, slot)
      next = (next + 1) % Self.capacity
    }
  }
}

/// A directed pair of endpoints (`UDPFlowKey` is either way round).
struct DirectedFlow: Equatable {
  package var source: Endpoint
  package var destination: Endpoint

  /// Ports first: they differ most often and compare in one instruction.
  package static func == (a: DirectedFlow, b: DirectedFlow) -> Bool {
    a.source.port == b.source.port && a.destination.port == b.destination.port
      && a.source.address == b.source.address && a.destination.address == b.destination.address
  }
}

/// A BLE connection and the direction its values went.
struct BLEFlow: Equatable {
  package var connection: UInt16
  package var direction: BluetoothDirection
}
