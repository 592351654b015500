import PacketKit

/// ndjson for clean messages, from the text of the last few shapes of
/// record. Records of one shape (flow, codec, routing, message, layout of
/// fields and extra members, such as a BLE write's handle and ATT
/// operation) differ only in their frame, time, field values and length:
/// the first is written by `JSONRenderer`, which marks where those went,
/// and the next are that text with the marked parts written anew. A
/// 20 Hz command stream is one shape from start to end.
///
/// The parts are written by the renderer's own functions, and a record
/// with anything else of its own (diagnostics, an error, an event) is
/// always written by the renderer: the output is the renderer's, byte for
/// byte.
package struct FlatJSONTemplate {
  /// A text that differs between records of one shape.
  package enum Part {
    case frame
    case time
    /// The value of the flat field at this index.
    case field(Int)
    case length
  }

  /// Where the renderer wrote each part, when it records.
  struct Holes {
    package let recording: Bool
    package private(set) var parts: [(part: Part, range: Range<Int>)] = []
    private var open: (part: Part, start: Int)?

    package init(recording: Bool) {
      self.recording = recording
    }

    package mutating func open(_ part: Part, at offset: Int) {
      if recording { open = (part, offset) }
    }

    package mutating func close(at offset: Int) {
      guard recording, let open else { return }
      parts.append((open.part, open.start..<offset))
      self.open = nil
    }
  }

  /// What records of one shape have in common. A class: the table lends
  /// each shape to the comparison as a copy, which for a struct retained
  /// and released every reference it holds.
  private final class Shape {
    let flow: FlowTexts.Flow
    let codec: String
    let routing: String?
    let message: StaticString
    let layout: FlatLayout
    /// Written from their values, so equal members are equal text.
    let extra: [FieldValue.Member]

    init(_ record: DecodedRecord, _ flat: FlatMessage, _ fields: UnsafeBufferPointer<FlatFields.Field>) {
      flow = FlowTexts.Flow(record)
      codec = flat.codec
      routing = record.routing
      message = flat.fields.pointee.message
      layout = FlatLayout(fields)
      extra = record.extra
    }

    /// Whether `record` has this shape, compared without building one.
    func matches(
      _ record: DecodedRecord, _ flat: FlatMessage, _ fields: UnsafeBufferPointer<FlatFields.Field>
    ) -> Bool {
      FlatLayout.same(message, flat.fields.pointee.message) && flow.names(record) && codec == flat.codec
        && routing == record.routing && layout.matches(fields) && extra == record.extra
    }
  }

  /// The text of a shape's first record, and where its parts lie in it.
  private final class Text {
    let bytes: [UInt8]
    let parts: [(part: Part, range: Range<Int>)]

    init(bytes: [UInt8], parts: [(part: Part, range: Range<Int>)]) {
      self.bytes = bytes
      self.parts = parts
    }
  }

  private var texts: RecentTable<Shape, Text>
  /// Records written from a shape's text (the rest by the renderer).
  package private(set) var reused = 0

  /// Templates for up to `capacity` shapes (a few flows and messages
  /// interleaved); 0 writes every record with the renderer.
  package init(capacity: Int = 4) {
    texts = RecentTable(capacity: capacity)
  }

  /// Writes the ndjson object of `record`, whose clean message is `flat`,
  /// as `JSONRenderer.write` would (without a dissection).
  package mutating func write(
    _ record: DecodedRecord, _ flat: FlatMessage, flows: inout FlowTexts, into json: inout JSONWriter
  ) {
    let fields = FlatFields.fields(at: flat.fields)
    // Anything of the record's own is the renderer's to write.
    guard record.layerDiagnostics.isEmpty, record.layerError == nil,
      record.event == nil, texts.capacity > 0
    else {
      JSONRenderer.write(record, includeDissection: false, flows: &flows, into: &json)
      return
    }
    if let text = texts.value(where: { $0.matches(record, flat, fields) }) {
      fill(text, record, flat, fields, into: &json)
      reused += 1
      return
    }
    let start = json.count
    var holes = Holes(recording: true)
    JSONRenderer.write(record, includeDissection: false, flows: &flows, into: &json, holes: &holes)
    let bytes = json.withUnsafeBytes { Array($0[start...]) }
    let parts = holes.parts.map { ($0.part, $0.range.lowerBound - start..<$0.range.upperBound - start) }
    texts.insert(Text(bytes: bytes, parts: parts), for: Shape(record, flat, fields))
  }

  /// The shape's text, its parts written for this record.
  private func fill(
    _ text: Text, _ record: DecodedRecord, _ flat: FlatMessage,
    _ fields: UnsafeBufferPointer<FlatFields.Field>,
    into json: inout JSONWriter
  ) {
    text.bytes.withUnsafeBytes { bytes in
      var from = 0
      for (part, range) in text.parts {
        json.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[from..<range.lowerBound]))
        switch part {
        case .frame: JSONRenderer.frame(record, into: &json)
        case .time: JSONRenderer.time(record, into: &json)
        case .field(let index): JSONRenderer.value(fields[index], of: flat, into: &json)
        case .length: json.integer(record.payloadLength)
        }
        from = range.upperBound
      }
      json.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[from...]))
    }
  }
}
