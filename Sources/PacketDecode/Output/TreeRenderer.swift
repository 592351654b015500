import PacketKit

/// The `-V` view: every field with its value, unit and the bytes it came
/// from, nested as the message is, then the diagnostics. Whatever came off
/// the wire (keys, values, texts quoting it) is escaped (`TerminalText`).
package enum TreeRenderer {
  package static func lines(_ record: DecodedRecord, style: Style) -> [String] {
    var out: [String] = []
    var head: [String] = []
    if let frame = record.frame { head.append("Frame \(frame)") }
    if let time = record.time { head.append(String(format6(time))) }
    if let source = record.source, let destination = record.destination {
      head.append("\(record.transport) \(source) → \(destination)")
    } else {
      head.append(record.transport)
    }
    head.append("\(record.payloadLength) bytes")
    out.append(style.bold(head.joined(separator: "  ")))
    if let routing = record.routing { out.append("  codec chosen by \(routing)") }
    for member in record.extra {
      out.append("  \(TerminalText.escaped(member.key)): \(inline(member.value))")
    }
    switch record.result {
    case .decoded(let frame):
      out.append("  \(style.codec(frame.codec)) \(style.bold(frame.message))")
      appendNodes(frame.fields, depth: 2, into: &out)
    case .failed(let codec, let error):
      let words = error.words
      out.append(
        "  \(style.codec(codec)) "
          + style.error("decode error [\(error.code)]: \(TerminalText.escaped(words.text))"))
      if let key = error.keyPath { out.append("    key: \(TerminalText.escaped(key))") }
      if let expected = words.expected { out.append("    expected: \(TerminalText.escaped(expected))") }
      if let found = words.found { out.append("    found: \(TerminalText.escaped(found))") }
    case nil:
      if let error = record.layerError {
        out.append("  " + style.error("damaged [\(error.code)]: \(TerminalText.escaped(error.text))"))
      } else if let event = record.event {
        out.append("  \(style.bold(event.name))")
        for member in event.fields {
          out.append("    \(TerminalText.escaped(member.key)): \(member.value.display)")
        }
      } else {
        out.append("  (no codec claims this payload)")
      }
    }
    for diagnostic in record.allDiagnostics {
      out.append("  " + diagnosticLine(diagnostic, style: style))
    }
    return out
  }

  /// A transport detail on one line, an object's members included (a
  /// PKTAP process: `{name: "HawkSight", pid: 412}`), not only their count.
  package static func inline(_ value: FieldValue) -> String {
    guard case .object(let members) = value else { return value.display }
    return "{"
      + members.map { "\(TerminalText.escaped($0.key)): \(inline($0.value))" }.joined(separator: ", ") + "}"
  }

  static func diagnosticLine(_ diagnostic: Diagnostic, style: Style) -> String {
    let where_ = diagnostic.range.map { " \(HexDump.rangeText($0))" } ?? ""
    let text =
      "\(diagnostic.severity.rawValue) [\(diagnostic.code)]\(where_): \(TerminalText.escaped(diagnostic.text))"
    switch diagnostic.severity {
    case .error: return style.error(text)
    case .warning: return style.warning(text)
    case .note: return style.dim(text)
    }
  }

  private static func appendNodes(_ nodes: [DissectionNode], depth: Int, into out: inout [String]) {
    let indent = String(repeating: "  ", count: depth)
    for node in nodes {
      let range = HexDump.rangeText(node.range)
      let name = TerminalText.escaped(node.name)
      if node.shape == .leaf {
        let line = "\(indent)\(name): \(Self.value(node))"
        out.append("\(line.padding(toLength: 48)) \(range)")
      } else {
        let count = node.children.count
        let summary = node.shape == .array ? "[\(count)]" : ""
        out.append("\("\(indent)\(name)\(summary)".padding(toLength: 48)) \(range)")
        appendNodes(node.children, depth: depth + 1, into: &out)
      }
    }
  }

  /// A leaf's value and unit; the unit "hex" asks for the bytes in
  /// hexadecimal (a check byte, a source address) rather than a number.
  package static func value(_ node: DissectionNode) -> String {
    guard let unit = node.unit else { return node.value.display }
    guard unit == "hex" else { return "\(node.value.display) \(unit)" }
    let digits = max(2, 2 * node.range.count)
    switch node.value {
    case .unsigned(let value): return "0x" + Self.hex(value, digits: digits)
    case .integer(let value) where value >= 0: return "0x" + Self.hex(UInt64(value), digits: digits)
    default: return node.value.display
    }
  }

  private static func hex(_ value: UInt64, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }

  /// Seconds with six decimals. The magnitude is split, not the value
  /// rounded down: that made -1.000001 into -2 and 0.999999, "-2.999999".
  package static func format6(_ time: Double) -> String {
    JSONWriter.fixed(time, digits: 6)
  }
}
