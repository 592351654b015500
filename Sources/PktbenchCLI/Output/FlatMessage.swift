import PacketKit

/// A clean message's codec and flat fields (`FrameCodec.cleanFields`), as
/// summary lines and ndjson write it. One instance per pipeline, refilled
/// for each message: a record refers to it only while a sink writes it.
final class FlatMessage {
  var codec = ""
  /// The fields live out of line and are read and filled in place through
  /// the pointer: read as a class property, the whole struct (some 700
  /// bytes) would be copied on every access.
  let fields: UnsafeMutablePointer<FlatFields>
  /// The payload the fields were read from, valid as long as they are:
  /// a `verbatim` field's text is copied from it.
  var payload = UnsafeRawBufferPointer(start: nil, count: 0)

  /// The summary line's key fields for the last layout of fields seen: a
  /// bit per field index. The choice depends on the fields' names and
  /// groups alone, and names are the codec's static strings, so a layout
  /// with the same addresses (and lengths and groups) gets the same choice.
  private(set) var keyFields = 0
  private let layout: UnsafeMutablePointer<(name: UnsafeRawPointer?, length: Int, members: Int?)>
  private var layoutCount = -1

  init() {
    fields = .allocate(capacity: 1)
    fields.initialize(to: FlatFields())
    layout = .allocate(capacity: FlatFields.capacity)
    layout.initialize(repeating: (nil, 0, 0), count: FlatFields.capacity)
  }

  deinit {
    fields.deinitialize(count: 1)
    fields.deallocate()
    layout.deallocate()
  }

  /// Writes a `verbatim` field as its payload text and says so; false
  /// (nothing written) for any other field.
  func writeVerbatim(_ field: FlatFields.Field, into out: inout JSONWriter) -> Bool {
    guard let text = field.verbatimText(in: payload) else { return false }
    out.append(bytes: text)
    return true
  }

  /// Whether `keyFields` was chosen for fields named and grouped as these.
  func hasKeyFields(for fields: UnsafeBufferPointer<FlatFields.Field>) -> Bool {
    guard layoutCount == fields.count else { return false }
    for index in fields.indices {
      let name = fields[index].name
      guard layout[index].name == UnsafeRawPointer(name.utf8Start),
        layout[index].length == name.utf8CodeUnitCount,
        layout[index].members == fields[index].members
      else { return false }
    }
    return true
  }

  /// Remembers `keyFields` for fields named and grouped as these.
  func remember(keyFields: Int, for fields: UnsafeBufferPointer<FlatFields.Field>) {
    for index in fields.indices {
      let name = fields[index].name
      layout[index] = (UnsafeRawPointer(name.utf8Start), name.utf8CodeUnitCount, fields[index].members)
    }
    layoutCount = fields.count
    self.keyFields = keyFields
  }
}
