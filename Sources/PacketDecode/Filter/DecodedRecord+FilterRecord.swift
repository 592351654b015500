import PacketKit

/// A record's fields as the display filter reads them: the same names and
/// values `--format ndjson` writes, read in place from the flat fields or
/// the dissection tree, without building a string.
extension DecodedRecord: FilterRecord {
  package func visitValues(of field: FilterField, _ visit: (FilterValue) -> Bool) {
    guard field.root < RecordFields.codecBase else {
      codecFields(field.path, visit)
      return
    }
    switch RecordFields.Root(rawValue: field.root) {
    case .frame?: if let frame { _ = visit(.integer(Int64(frame))) }
    case .time?: if let time { _ = visit(.number(time)) }
    case .source?: if let source { Self.text(source, visit) }
    case .destination?: if let destination { Self.text(destination, visit) }
    case .transport?: Self.text(transport, visit)
    case .codec?:
      if let flat {
        Self.text(flat.codec, visit)
      } else if let result {
        Self.text(result.codec, visit)
      }
    case .message?:
      if let flat {
        _ = FilterValue.visit(.text(flat.fields.pointee.message), visit)
      } else if case .decoded(let frame) = result {
        Self.text(frame.message, visit)
      } else if let event {
        Self.text(event.name, visit)
      }
    case .length?: _ = visit(.integer(Int64(payloadLength)))
    case .routing?: if let routing { Self.text(routing, visit) }
    case .error?: errorFields(field.path, visit)
    case .diagnostics?: diagnosticFields(field.path, visit)
    case .named?: namedFields(field.path, visit)
    case nil: break
    }
  }

  private static func text(_ text: String, _ visit: (FilterValue) -> Bool) {
    _ = FilterValue.withText(text) { visit(.text($0)) }
  }

  /// `rider`, `legctrl.header.msg_type`: the codec's message's fields (the
  /// path's first part is the codec's name, the rest the field's).
  private func codecFields(_ path: FilterPath, _ visit: (FilterValue) -> Bool) {
    guard let codec = path.parts.first?.text else { return }
    if let flat {
      guard flat.codec == codec else { return }
      path.visit(flat: FlatFields.fields(at: flat.fields), from: 1, visit)
      return
    }
    switch result {
    case .decoded(let frame)?:
      guard frame.codec == codec else { return }
      path.visit(frame.fields, from: 1, visit)
    case .failed(let failed, _)?:
      // A message its codec could not decode is still that codec's; it has no fields.
      if failed == codec, path.count == 1 { _ = visit(.present) }
    case nil:
      break
    }
  }

  /// `error`, `error.code`, `error.text`, `error.offset`.
  private func errorFields(_ path: FilterPath, _ visit: (FilterValue) -> Bool) {
    guard let error else { return }
    guard let part = path.parts.first else {
      _ = visit(.present)
      return
    }
    switch part.text {
    case "code": Self.text(error.code, visit)
    case "text": Self.text(error.words.text, visit)
    case "offset": if let offset = error.offset { _ = visit(.integer(Int64(offset))) }
    default: break
    }
  }

  /// `diagnostics`, `diagnostics.code`, `.severity`, `.text`: each diagnostic an occurrence.
  private func diagnosticFields(_ path: FilterPath, _ visit: (FilterValue) -> Bool) {
    func each(_ diagnostics: [Diagnostic]) -> Bool {
      for diagnostic in diagnostics {
        let goOn: Bool
        switch path.parts.first?.text {
        case nil: goOn = visit(.present)
        case "code": goOn = FilterValue.withText(diagnostic.code) { visit(.text($0)) }
        case "severity": goOn = FilterValue.withText(diagnostic.severity.rawValue) { visit(.text($0)) }
        case "text": goOn = FilterValue.withText(diagnostic.text) { visit(.text($0)) }
        default: goOn = true
        }
        if !goOn { return false }
      }
      return true
    }
    guard each(layerDiagnostics) else { return }
    if case .decoded(let frame) = result { _ = each(frame.diagnostics) }
  }

  /// An event by its name's parts and then its fields (`ws.close.code`),
  /// or a transport detail by its key (`ws.compressed`, `handle`).
  private func namedFields(_ path: FilterPath, _ visit: (FilterValue) -> Bool) {
    if let event, let covered = Self.eventParts(event.name, path) {
      path.visit(event.fields, from: covered, visit)
      return
    }
    guard let key = path.parts.first else { return }
    for member in extra where member.key == key.text {
      path.visit(member.value, from: 1, visit)
    }
  }

  /// How many of `path`'s parts the event's name takes, when the path
  /// names this event (`ws.close`, `ws.close.code`) or a family it belongs
  /// to (`ws`, `att`); nil otherwise. Compared in place, part by part.
  static func eventParts(_ name: String, _ path: FilterPath) -> Int? {
    FilterValue.withText(name) { name -> Int? in
      var start = 0
      var part = 0
      while start <= name.count {
        var end = start
        while end < name.count, name[end] != UInt8(ascii: ".") { end += 1 }
        guard part < path.count else { return part }  // the path names the family
        let same = path.parts[part].utf8.withUnsafeBytes {
          $0.sameBytes(as: UnsafeRawBufferPointer(rebasing: name[start..<end]))
        }
        guard same else { return nil }
        part += 1
        start = end + 1
      }
      return part
    }
  }
}
