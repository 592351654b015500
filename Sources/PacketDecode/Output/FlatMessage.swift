import PacketKit

/// A clean message's codec and flat fields (`FrameCodec.cleanFields`), as
/// summary lines and ndjson write it. One instance per pipeline, refilled
/// for each message: a record refers to it only while a sink writes it.
package final class FlatMessage {
  @exclusivity(unchecked) package var codec = ""
  /// The fields live out of line and are read and filled in place through
  /// the pointer: read as a class property, the whole struct (some 700
  /// bytes) would be copied on every access.
  package let fields: UnsafeMutablePointer<FlatFields>
  /// The payload the fields were read from, valid as long as they are:
  /// a `verbatim` field's text is copied from it.
  @exclusivity(unchecked) package var payload = UnsafeRawBufferPointer(start: nil, count: 0)

  /// The summary line's key fields for the last few layouts of fields
  /// seen: a bit per field index (the choice depends on the layout alone).
  /// A few, not one: a BLE connection's writes and notifications alternate
  /// two layouts.
  @exclusivity(unchecked) private var keyFieldsByLayout = RecentTable<FlatLayout, Int>(capacity: 4)
  /// The framing (its table's identity) the kept key fields were chosen
  /// under; the tables live as long as the run.
  @exclusivity(unchecked) private var chosenUnder: ObjectIdentifier?

  package init() {
    fields = .allocate(capacity: 1)
    fields.initialize(to: FlatFields())
  }

  deinit {
    fields.deinitialize(count: 1)
    fields.deallocate()
  }

  /// Writes a `verbatim` field as its payload text and says so; false
  /// (nothing written) for any other field.
  func writeVerbatim(_ field: FlatFields.Field, into out: inout JSONWriter) -> Bool {
    guard let text = field.verbatimText(in: payload) else { return false }
    out.append(bytes: text)
    return true
  }

  /// The key fields of `fields` as chosen before for fields named and
  /// grouped as these under the same framing (`framing`: its table's
  /// identity), or nil; `remember` keeps a choice. No closure and no
  /// reference is passed per message: both cost a retain and a release.
  @inline(__always)
  func keyFields(for fields: UnsafeBufferPointer<FlatFields.Field>, framing: ObjectIdentifier) -> Int? {
    if framing != chosenUnder {
      keyFieldsByLayout = RecentTable(capacity: 4)
      chosenUnder = framing
      return nil
    }
    return keyFieldsByLayout.value(where: { $0.matches(fields) })
  }

  func remember(keyFields: Int, for fields: UnsafeBufferPointer<FlatFields.Field>) {
    keyFieldsByLayout.insert(keyFields, for: FlatLayout(fields))
  }
}
