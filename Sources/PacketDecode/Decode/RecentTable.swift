/// The values of the last few keys a run keeps using, found by a linear
/// search and replaced round robin when full: memory stays bounded whatever
/// the capture holds, and a handful of entries is searched faster than a
/// key is hashed. Endpoint and BLE names, key fields per layout, ndjson
/// shapes and the texts of `RecentTable+Text` are kept in one.
struct RecentTable<Key, Value> {
  /// At most this many entries; 0 keeps nothing.
  package let capacity: Int
  private var keys: [Key] = []
  private var values: [Value] = []
  private var next = 0

  package init(capacity: Int) {
    self.capacity = capacity
  }

  /// The value of the first key `matches` accepts: a caller can compare
  /// keys with what it holds, without building a key to look up.
  package func value(where matches: (Key) -> Bool) -> Value? {
    for index in keys.indices where matches(keys[index]) { return values[index] }
    return nil
  }

  /// Adds `value` for a key `value(for:)` did not find, replacing the
  /// oldest entry when the table is full.
  package mutating func insert(_ value: Value, for key: Key) {
    guard capacity > 0 else { return }
    if keys.count < capacity {
      keys.append(key)
      values.append(value)
    } else {
      keys[next] = key
      values[next] = value
      next = (next + 1) % capacity
    }
  }
}

extension RecentTable where Key: Equatable {
  func value(for key: Key) -> Value? {
    value { $0 == key }
  }
}
