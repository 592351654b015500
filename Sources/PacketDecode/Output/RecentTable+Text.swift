import PacketKit

extension RecentTable where Value == [UInt8] {
  /// Writes the text kept for the first key `matches` accepts, or what
  /// `render` writes, then kept for `key()` (built only then): output that
  /// depends on a few things a run keeps repeating (a flow's names, a
  /// summary line's middle) is written once per key, and copied after.
  mutating func write(
    into out: inout JSONWriter, where matches: (Key) -> Bool, key: () -> Key,
    _ render: (inout JSONWriter) -> Void
  ) {
    if let text = value(where: matches) {
      out.append(contentsOf: text)
      return
    }
    let start = out.count
    render(&out)
    guard capacity > 0 else { return }
    insert(out.withUnsafeBytes { Array($0[start...]) }, for: key())
  }
}
