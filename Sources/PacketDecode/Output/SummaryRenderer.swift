import PacketKit

/// One line per message, like tcpdump: frame, relative time, endpoints,
/// codec, message, key fields, and marks for warnings and errors.
///
/// The line is written as bytes straight into the output buffer: this runs
/// once per message, and building it from Strings cost more than decoding.
package enum SummaryRenderer {
  package static func line(
    _ record: DecodedRecord, firstTime: Double?, style: Style, framing: SummaryFraming = .none
  ) -> String {
    var text = JSONWriter(capacity: 160)
    write(record, firstTime: firstTime, style: style, framing: framing, into: &text)
    return text.text
  }

  /// Appends the line (without its newline) to `out`.
  package static func write(
    _ record: DecodedRecord, firstTime: Double?, style: Style, framing: SummaryFraming = .none,
    into out: inout JSONWriter
  ) {
    var uncached = SummaryMiddles(capacity: 0)
    write(record, firstTime: firstTime, style: style, middles: &uncached, framing: framing, into: &out)
  }

  /// `write`, with a clean message's middle (endpoints to message name)
  /// from `middles` (a sink keeps one for all its lines).
  /// `clock`: the time as `-t` asks (nil: relative to `firstTime`);
  /// `framing`: the fields the key fields leave out.
  package static func write(
    _ record: DecodedRecord, firstTime: Double?, style: Style, middles: inout SummaryMiddles,
    clock: TimeColumn? = nil, framing: SummaryFraming = .none, into out: inout JSONWriter
  ) {
    let line = Line(style: style, start: out.count)
    if let frame = record.frame {
      line.part(&out)
      out.decimal(Int64(frame), width: 6, fill: UInt8(ascii: " "))
    }
    if let time = record.time {
      line.part(&out)
      if let clock {
        clock.write(time, into: &out)
      } else {
        appendFixed(time - (firstTime ?? time), digits: 6, width: 11, to: &out)
      }
    }
    // Not a switch over (result, flat): building that tuple copied the
    // result on every record, although a flat record has none.
    if let flat = record.flat {
      middles.write(record, flat, leading: out.count > line.start, styled: style.enabled, into: &out) { out in
        flow(record, line, &out)
        line.part(&out)
        line.styled(flat.codec, "36", &out)
        out.append(utf8: " ")
        line.styled(flat.fields.pointee.message, "1", &out)
      }
      keyFieldsPart(&out) { KeyFields.collect(flat, framing: framing, into: &$0) }
    } else {
      flow(record, line, &out)
      message(record, line, framing, &out)
    }
    for diagnostic in record.layerDiagnostics where diagnostic.severity >= .warning {
      line.part(&out)
      line.styled("⚠ \(diagnostic.code)", "33", &out)
    }
    if case .decoded(let frame) = record.result {
      for diagnostic in frame.diagnostics where diagnostic.severity >= .warning {
        line.part(&out)
        line.styled("⚠ \(diagnostic.code)", "33", &out)
      }
    }
  }

  /// A record without a flat message: its codec and message with key
  /// fields, its error, its damage, its event, or its unclaimed bytes.
  private static func message(
    _ record: DecodedRecord, _ line: Line, _ framing: SummaryFraming, _ out: inout JSONWriter
  ) {
    if case .decoded(let frame) = record.result {
      line.part(&out)
      line.styled(frame.codec, "36", &out)
      out.append(utf8: " ")
      line.styled(frame.message, "1", &out)
      var keys = KeyFields(framing: framing.names(for: frame.codec))
      keyFieldsPart(&out) { keys.collect(frame.fields, into: &$0) }
    } else if case .failed(let codec, let error) = record.result {
      line.part(&out)
      line.styled(codec, "36", &out)
      out.append(utf8: " ")
      let at = error.offset.map { " at offset \($0)" } ?? ""
      line.styled("ERROR \(error.code)\(at): \(TerminalText.escaped(error.text))", "31", &out)
    } else {
      line.part(&out)
      if let error = record.layerError {
        let at = error.offset.map { " at offset \($0)" } ?? ""
        line.styled("DAMAGED \(error.code)\(at): \(TerminalText.escaped(error.text))", "31", &out)
      } else if let event = record.event {
        line.styled(event.name, "1", &out)
        let fields = event.fields.map { "\(TerminalText.escaped($0.key))=\($0.value.display)" }.joined(
          separator: " ")
        if !fields.isEmpty {
          out.append(utf8: "  ")
          out.append(utf8: fields)
        }
      } else {
        line.styled("(\(record.payloadLength) bytes, no codec)", "2", &out)
      }
    }
  }

  /// The endpoints, transport and carrier note.
  private static func flow(_ record: DecodedRecord, _ line: Line, _ out: inout JSONWriter) {
    if let source = record.source, let destination = record.destination {
      line.part(&out)
      out.append(utf8: source)
      out.append(utf8: " → ")
      out.append(utf8: destination)
    }
    line.part(&out)
    out.append(utf8: record.transport)
    if let note = record.carrierNote {
      line.part(&out)
      out.append(utf8: note)
    }
  }

  /// Key fields are a part of their own: its separator goes first, and is
  /// taken back when `body` writes none.
  private static func keyFieldsPart(_ out: inout JSONWriter, _ body: (inout JSONWriter) -> Void) {
    out.raw("  ")
    let start = out.count
    body(&out)
    if out.count == start { out.removeLast(2) }
  }

  /// A line being written into the output: parts separated by two spaces.
  private struct Line {
    let style: Style
    /// Where the line starts in the output.
    let start: Int

    /// Starts a part: two spaces unless it is the first.
    func part(_ out: inout JSONWriter) {
      if out.count > start { out.raw("  ") }
    }

    func styled(_ text: String, _ code: StaticString, _ out: inout JSONWriter) {
      styled(code, &out) { $0.append(utf8: text) }
    }

    func styled(_ text: StaticString, _ code: StaticString, _ out: inout JSONWriter) {
      styled(code, &out) { $0.raw(text) }
    }

    private func styled(_ code: StaticString, _ out: inout JSONWriter, _ text: (inout JSONWriter) -> Void) {
      guard style.enabled else {
        text(&out)
        return
      }
      out.append(0x1B)
      out.append(UInt8(ascii: "["))
      out.raw(code)
      out.append(UInt8(ascii: "m"))
      text(&out)
      out.raw("\u{1B}[0m")
    }
  }

  /// Up to six leaf fields as `name=value`, skipping the codec's framing
  /// fields (six: a Rallie command's start or stop is its sixth).
  /// Inner fields come after an envelope's: each name is shown once.
  private struct KeyFields {
    static let limit = 6
    private var shown: (String, String, String, String, String, String) = ("", "", "", "", "", "")
    private var count = 0
    /// The codec's framing fields (`CodecInfo.framingFields`).
    private let framing: Set<String>

    init(framing: Set<String>) {
      self.framing = framing
    }

    private func wasShown(_ name: String) -> Bool {
      count > 0 && Self.same(shown.0, name) || count > 1 && Self.same(shown.1, name)
        || count > 2 && Self.same(shown.2, name) || count > 3 && Self.same(shown.3, name)
        || count > 4 && Self.same(shown.4, name) || count > 5 && Self.same(shown.5, name)
    }

    /// String equality, with the cheap length test first: most names differ in length.
    private static func same(_ a: String, _ b: String) -> Bool {
      a.utf8.count == b.utf8.count && a == b
    }

    private mutating func remember(_ name: String) {
      switch count {
      case 0: shown.0 = name
      case 1: shown.1 = name
      case 2: shown.2 = name
      case 3: shown.3 = name
      case 4: shown.4 = name
      default: shown.5 = name
      }
      count += 1
    }

    /// The same fields from a flat message, read in place through
    /// `FlatMessage.fields`. Which fields are shown is chosen once per
    /// layout of names (`FlatMessage.keyFields(for:framing:)`), so no String is made or
    /// kept, and a run of same-shaped messages compares a few addresses.
    static func collect(_ flat: FlatMessage, framing: SummaryFraming, into out: inout JSONWriter) {
      let fields = FlatFields.fields(at: flat.fields)
      let keyFields: Int
      if let known = flat.keyFields(for: fields, framing: framing.identity) {
        keyFields = known
      } else {
        keyFields = shown(fields, framing: framing.names(for: flat.codec))
        flat.remember(keyFields: keyFields, for: fields)
      }
      var rest = keyFields
      while rest != 0 {
        let index = rest.trailingZeroBitCount
        if rest != keyFields { out.append(UInt8(ascii: " ")) }
        rest &= rest - 1
        out.raw(fields[index].name)
        out.append(UInt8(ascii: "="))
        if !flat.writeVerbatim(fields[index], into: &out) {
          switch fields[index].value {
          case .integer(let v): out.integer(v)
          case .unsigned(let v): out.integer(v)
          case .number(let v): out.number(v)
          case .text(let text): out.append(utf8: Self.cut(JSONWriter.quoted(text.description)))
          case .enumeration(let name, _):
            if name.utf8CodeUnitCount > 40 {
              out.append(utf8: Self.cut(name.description))
            } else {
              out.raw(name)
            }
          case .group: break
          }
        }
        let unit = fields[index].unit
        if Self.same(unit, "%") || Self.same(unit, "°") { out.raw(unit) }
      }
    }

    /// The key fields among flat fields, a bit per index: the tree's rules
    /// (skipped names, a skipped group with its members, a name once, six
    /// at most), decided by names and groups alone.
    private static func shown(_ fields: UnsafeBufferPointer<FlatFields.Field>, framing: Set<String>) -> Int {
      var shown = 0
      var count = 0
      var index = 0
      while index < fields.count, count < Self.limit {
        let current = index
        index += 1
        let name = fields[current].name
        // A skipped group goes with its members; a group shown is its
        // members, which follow it as fields of their own.
        if !framing.isEmpty, framing.contains(name.description) {
          index = fields[current].memberIndices(at: current, of: fields.count).upperBound
          continue
        }
        if fields[current].members != nil { continue }
        // A name shown before (a group's member may share a name with a
        // field beside the group).
        if Self.wasShown(name, among: fields, shown) { continue }
        shown |= 1 << current
        count += 1
      }
      return shown
    }

    /// Whether a field in the `shown` bit set has this name.
    private static func wasShown(
      _ name: StaticString, among fields: UnsafeBufferPointer<FlatFields.Field>, _ shown: Int
    ) -> Bool {
      var rest = shown
      while rest != 0 {
        let other = fields[rest.trailingZeroBitCount].name
        rest &= rest - 1
        if Self.same(other, name) { return true }
      }
      return false
    }

    private static func same(_ a: StaticString, _ b: StaticString) -> Bool { same(bytes(a), bytes(b)) }

    private static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
      guard a.count == b.count else { return false }
      for index in 0..<a.count where a[index] != b[index] { return false }
      return true
    }

    private static func bytes(_ text: StaticString) -> UnsafeRawBufferPointer {
      UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    mutating func collect(_ nodes: [DissectionNode], into out: inout JSONWriter) {
      for node in nodes where count < Self.limit {
        if !framing.isEmpty, framing.contains(node.name) { continue }
        switch node.shape {
        case .leaf:
          if wasShown(node.name) { continue }
          remember(node.name)
          separate(&out)
          // Names are the payload's own keys (JSON) as often as the codec's.
          TerminalText.append(node.name, to: &out)
          out.append(UInt8(ascii: "="))
          value(node.value, into: &out)
          if let unit = node.unit, unit == "%" || unit == "°" { out.raw(unit.text) }
        case .object:
          collect(node.children, into: &out)
        case .array:
          remember(node.name)
          separate(&out)
          TerminalText.append(node.name, to: &out)
          out.append(UInt8(ascii: "["))
          out.integer(node.children.count)
          out.append(UInt8(ascii: "]"))
        }
      }
    }

    /// A space between fields (the first follows the part separator).
    private func separate(_ out: inout JSONWriter) {
      if count > 1 { out.append(UInt8(ascii: " ")) }
    }

    /// The value as `FieldValue.display` shows it, cut at 40 characters;
    /// numbers are written without a String.
    private func value(_ value: FieldValue, into out: inout JSONWriter) {
      switch value {
      case .integer(let v): out.integer(v)
      case .number(let v): out.number(v)
      case .enumeration(let name, _): out.append(utf8: Self.cut(TerminalText.escaped(name)))
      default: out.append(utf8: Self.cut(value.display))
      }
    }

    private static func cut(_ text: String) -> String {
      text.count > 40 ? String(text.prefix(37)) + "…" : text
    }
  }

  package static func fixed(_ value: Double, digits: Int) -> String {
    JSONWriter.fixed(value, digits: digits)
  }

  @inline(__always)
  package static func appendFixed(_ value: Double, digits: Int, width: Int = 0, to out: inout JSONWriter) {
    out.fixed(value, digits: digits, width: width)
  }
}

extension String {
  package func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: " ", count: length - count) + self
  }
}
