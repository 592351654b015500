import PacketKit

/// The middle of a clean message's summary line, from its endpoints to its
/// message name (`  10.0.0.2:50000 → 10.0.0.7:9000  udp  codec message`),
/// kept for the last few flows. Between a flow's lines only the frame, the
/// time and the key fields' values change, so the rest is not written
/// from Strings again for every line.
package struct SummaryMiddles {
  /// What the middle depends on. A class: the table lends each key to the
  /// comparison as a copy, which for a struct retained every String in it.
  private final class Key {
    let flow: FlowTexts.Flow
    let note: String?
    let codec: String
    let message: StaticString
    /// Whether a frame or time came first (the middle then starts with two spaces).
    let leading: Bool
    /// Whether the codec and message are in colour.
    let styled: Bool

    init(_ record: DecodedRecord, _ flat: FlatMessage, leading: Bool, styled: Bool) {
      flow = FlowTexts.Flow(record)
      note = record.carrierNote
      codec = flat.codec
      message = flat.fields.pointee.message
      self.leading = leading
      self.styled = styled
    }

    func matches(_ record: DecodedRecord, _ flat: FlatMessage, leading: Bool, styled: Bool) -> Bool {
      FlatLayout.same(message, flat.fields.pointee.message) && self.leading == leading
        && self.styled == styled && flow.names(record) && codec == flat.codec && note == record.carrierNote
    }
  }

  private var texts: RecentTable<Key, [UInt8]>

  /// Middles of up to `capacity` flows; 0 writes every line's afresh.
  package init(capacity: Int = 4) {
    texts = RecentTable(capacity: capacity)
  }

  /// Writes the middle of `record`'s line, whose clean message is `flat`:
  /// a kept one, or what `render` writes (then kept); `styled`: whether
  /// `render` writes colour.
  package mutating func write(
    _ record: DecodedRecord, _ flat: FlatMessage, leading: Bool, styled: Bool, into out: inout JSONWriter,
    _ render: (inout JSONWriter) -> Void
  ) {
    texts.write(
      into: &out, where: { $0.matches(record, flat, leading: leading, styled: styled) },
      key: { Key(record, flat, leading: leading, styled: styled) }, render)
  }
}
