import PacketCapture

/// `--stats` without records: the last few flows clean messages were
/// counted for (a directed pair of endpoints, or a BLE connection and
/// direction, with the codec and kind) and their tallies' slots in
/// `FlowRates`, compared before any endpoint name is made or hashed: a
/// capture's messages come from a handful of flows at a time.
struct RecentFlowSlots<Key: Equatable> {
  private var entries: [(key: Key, codec: Int, kind: Int, slot: Int)] = []
  private var next = 0
  static var capacity: Int { 8 }

  func slot(_ key: Key, codec: Int, kind: Int) -> Int? {
    for entry in entries where entry.kind == kind && entry.codec == codec && entry.key == key {
      return entry.slot
    }
    return nil
  }

  mutating func remember(_ key: Key, codec: Int, kind: Int, slot: Int) {
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
  var source: Endpoint
  var destination: Endpoint
}

/// A BLE connection and the direction its values went.
struct BLEFlow: Equatable {
  var connection: UInt16
  var direction: BluetoothDirection
}
