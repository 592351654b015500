import PacketKit

/// The output contract (README.md, "Output contract"): one JSON object per message with
/// frame, time, transport, src, dst, codec, message, fields, diagnostics
/// and error. `dissection` (with byte ranges) is an extra key.
package enum JSONRenderer {
  package static func object(_ record: DecodedRecord, includeDissection: Bool = true) -> [UInt8] {
    var json = JSONWriter(capacity: 512)
    write(record, includeDissection: includeDissection, into: &json)
    return json.bytes
  }

  /// The object written straight into `json` (the output buffer, for
  /// ndjson: no array per record).
  package static func write(_ record: DecodedRecord, includeDissection: Bool, into json: inout JSONWriter) {
    var uncached = FlowTexts(capacity: 0)
    write(record, includeDissection: includeDissection, flows: &uncached, into: &json)
  }

  /// `write`, with the flow's transport and endpoints from `flows` (a sink
  /// keeps one for all its records).
  package static func write(
    _ record: DecodedRecord, includeDissection: Bool, flows: inout FlowTexts, into json: inout JSONWriter
  ) {
    var holes = FlatJSONTemplate.Holes(recording: false)
    write(record, includeDissection: includeDissection, flows: &flows, into: &json, holes: &holes)
  }

  /// `write`, marking in `holes` (when it records) where the texts that
  /// differ between records of one shape went: frame, time, each field's
  /// value and length.
  static func write(
    _ record: DecodedRecord, includeDissection: Bool, flows: inout FlowTexts, into json: inout JSONWriter,
    holes: inout FlatJSONTemplate.Holes
  ) {
    json.raw("{\"frame\":")
    holes.open(.frame, at: json.count)
    frame(record, into: &json)
    holes.close(at: json.count)
    json.raw(",\"time\":")
    holes.open(.time, at: json.count)
    time(record, into: &json)
    holes.close(at: json.count)
    flows.write(record, into: &json)
    json.raw(",\"codec\":")
    // Not a switch over (result, flat): building that tuple copied the
    // result on every record, although a flat record has none.
    if let flat = record.flat {
      json.string(flat.codec)
      json.raw(",\"message\":")
      quoted(flat.fields.pointee.message, into: &json)
      json.raw(",\"fields\":")
      folded(flat, into: &json, holes: &holes)
    } else if case .decoded(let frame) = record.result {
      json.string(frame.codec)
      json.raw(",\"message\":")
      json.string(frame.message)
      json.raw(",\"fields\":")
      folded(frame.fields, into: &json)
    } else {
      if case .failed(let codec, _) = record.result { json.string(codec) } else { json.null() }
      json.raw(",\"message\":")
      if let event = record.event {
        json.string(event.name)
        json.raw(",\"fields\":")
        json.value(.object(event.fields))
      } else {
        json.raw("null,\"fields\":null")
      }
    }
    json.raw(",\"diagnostics\":[")
    var written = 0
    func diagnostic(_ diagnostic: Diagnostic) {
      if written > 0 { json.raw(",") }
      written += 1
      json.raw("{\"severity\":")
      json.string(diagnostic.severity.rawValue)
      json.raw(",\"code\":")
      json.string(diagnostic.code)
      json.raw(",\"text\":")
      json.string(diagnostic.text)
      if let range = diagnostic.range {
        json.raw(",\"range\":[")
        json.integer(range.lowerBound)
        json.raw(",")
        json.integer(range.upperBound)
        json.raw("]")
      }
      json.raw("}")
    }
    for layerDiagnostic in record.layerDiagnostics { diagnostic(layerDiagnostic) }
    if case .decoded(let frame) = record.result {
      for codecDiagnostic in frame.diagnostics { diagnostic(codecDiagnostic) }
    }
    json.raw("],\"error\":")
    if let error = record.error {
      let words = error.words
      json.raw("{\"code\":")
      json.string(error.code)
      json.raw(",\"text\":")
      json.string(words.text)
      json.raw(",\"offset\":")
      if let offset = error.offset { json.integer(offset) } else { json.null() }
      if let keyPath = error.keyPath {
        json.raw(",\"key\":")
        json.string(keyPath)
      }
      if let expected = words.expected {
        json.raw(",\"expected\":")
        json.string(expected)
      }
      if let found = words.found {
        json.raw(",\"found\":")
        json.string(found)
      }
      json.raw("}")
    } else {
      json.null()
    }
    json.raw(",\"length\":")
    holes.open(.length, at: json.count)
    json.integer(record.payloadLength)
    holes.close(at: json.count)
    if let routing = record.routing {
      json.raw(",\"routing\":")
      json.string(routing)
    }
    for member in record.extra {
      json.raw(",")
      json.string(member.key)
      json.raw(":")
      json.value(member.value)
    }
    if includeDissection, case .decoded(let frame) = record.result {
      json.raw(",\"dissection\":")
      dissection(frame.fields, into: &json)
    }
    json.raw("}")
  }

  /// The `fields` object: each top-level node with its folded value, written
  /// without building the folded FieldValue tree.
  package static func folded(_ nodes: [DissectionNode], into json: inout JSONWriter) {
    json.raw("{")
    for index in nodes.indices {
      if index > 0 { json.raw(",") }
      json.string(nodes[index].name)
      json.raw(":")
      foldedValue(nodes[index], into: &json)
    }
    json.raw("}")
  }

  /// The `fields` object of a flat message: names and text values are the
  /// codec's plain ASCII literals, written without escaping; a group is an
  /// object of its members. Reads the fields in place, through
  /// `FlatMessage.fields`.
  static func folded(
    _ flat: FlatMessage, into json: inout JSONWriter, holes: inout FlatJSONTemplate.Holes
  ) {
    let fields = FlatFields.fields(at: flat.fields)
    json.raw("{")
    var index = 0
    while index < fields.count {
      if index > 0 { json.raw(",") }
      guard fields[index].members != nil else {
        member(fields, index, of: flat, into: &json, holes: &holes)
        index += 1
        continue
      }
      quoted(fields[index].name, into: &json)
      json.raw(":{")
      let members = fields[index].memberIndices(at: index, of: fields.count)
      for inner in members {
        if inner > members.lowerBound { json.raw(",") }
        member(fields, inner, of: flat, into: &json, holes: &holes)
      }
      json.raw("}")
      index = members.upperBound
    }
    json.raw("}")
  }

  /// `"name":value` for the scalar field at `index`.
  private static func member(
    _ fields: UnsafeBufferPointer<FlatFields.Field>, _ index: Int, of flat: FlatMessage,
    into json: inout JSONWriter, holes: inout FlatJSONTemplate.Holes
  ) {
    quoted(fields[index].name, into: &json)
    json.raw(":")
    holes.open(.field(index), at: json.count)
    value(fields[index], of: flat, into: &json)
    holes.close(at: json.count)
  }

  /// A record's frame number, or null.
  package static func frame(_ record: DecodedRecord, into json: inout JSONWriter) {
    if let frame = record.frame { json.integer(frame) } else { json.null() }
  }

  /// A record's capture time, or null.
  package static func time(_ record: DecodedRecord, into json: inout JSONWriter) {
    if let time = record.time { json.number(time) } else { json.null() }
  }

  /// A scalar field's value: its payload text when verbatim. (Inlined: a
  /// call took a copy of the field, a hundred bytes, for each value.)
  @inline(__always)
  package static func value(_ field: FlatFields.Field, of flat: FlatMessage, into json: inout JSONWriter) {
    if flat.writeVerbatim(field, into: &json) { return }
    switch field.value {
    case .integer(let v): json.integer(v)
    case .unsigned(let v): json.integer(v)
    case .number(let v): v.isFinite ? json.number(v) : json.null()
    case .text(let text), .enumeration(let text, _): quoted(text, into: &json)
    case .group: json.raw("{}")  // groups do not nest: as `FlatFields.nodes` shows it
    }
  }

  private static func quoted(_ text: StaticString, into json: inout JSONWriter) {
    json.append(UInt8(ascii: "\""))
    json.raw(text)
    json.append(UInt8(ascii: "\""))
  }

  private static func foldedValue(_ node: DissectionNode, into json: inout JSONWriter) {
    switch node.shape {
    case .leaf: json.value(node.value)
    case .object: folded(node.children, into: &json)
    case .array:
      json.raw("[")
      for index in node.children.indices {
        if index > 0 { json.raw(",") }
        foldedValue(node.children[index], into: &json)
      }
      json.raw("]")
    }
  }

  package static func dissection(_ nodes: [DissectionNode], into json: inout JSONWriter) {
    json.raw("[")
    for (index, node) in nodes.enumerated() {
      if index > 0 { json.raw(",") }
      json.raw("{\"name\":")
      json.string(node.name)
      json.raw(",\"range\":[")
      json.integer(node.range.lowerBound)
      json.raw(",")
      json.integer(node.range.upperBound)
      json.raw("]")
      if node.shape == .leaf {
        json.raw(",\"value\":")
        json.value(node.value)
        if let unit = node.unit {
          json.raw(",\"unit\":")
          json.string(unit.description)
        }
      } else {
        json.raw(",\"children\":")
        dissection(node.children, into: &json)
      }
      json.raw("}")
    }
    json.raw("]")
  }
}
