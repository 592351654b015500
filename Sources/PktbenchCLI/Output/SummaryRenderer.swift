import PacketKit

/// One line per message, like tcpdump: frame, relative time, endpoints,
/// codec, message, key fields, and marks for warnings and errors.
enum SummaryRenderer {
  static func line(_ record: DecodedRecord, firstTime: Double?, style: Style) -> String {
    var parts: [String] = []
    if let frame = record.frame { parts.append(String(frame).leftPadded(to: 6)) }
    if let time = record.time {
      let relative = time - (firstTime ?? time)
      parts.append(fixed(relative, digits: 6).leftPadded(to: 11))
    }
    if let source = record.source, let destination = record.destination {
      parts.append("\(source) → \(destination)")
    }
    parts.append(record.transport)
    switch record.result {
    case .decoded(let frame):
      parts.append(style.codec(frame.codec) + " " + style.bold(frame.message))
      let keys = keyFields(frame.fields, message: frame.message)
      if !keys.isEmpty { parts.append(keys) }
    case .failed(let codec, let error):
      let at = error.offset.map { " at offset \($0)" } ?? ""
      parts.append(style.codec(codec) + " " + style.error("ERROR \(error.code)\(at): \(error.text)"))
    case nil:
      if let error = record.layerError {
        let at = error.offset.map { " at offset \($0)" } ?? ""
        parts.append(style.error("DAMAGED \(error.code)\(at): \(error.text)"))
      } else if let event = record.event {
        let fields = event.fields.map { "\($0.key)=\($0.value.display)" }.joined(separator: " ")
        parts.append(style.bold(event.name) + (fields.isEmpty ? "" : "  " + fields))
      } else {
        parts.append(style.dim("(\(record.payloadLength) bytes, no codec)"))
      }
    }
    for diagnostic in record.allDiagnostics where diagnostic.severity >= .warning {
      parts.append(style.warning("⚠ \(diagnostic.code)"))
    }
    return parts.joined(separator: "  ")
  }

  /// Up to five leaf fields as `name=value`, skipping header bookkeeping.
  static func keyFields(_ nodes: [DissectionNode], message: String) -> String {
    var out: [String] = []
    var seen: Set<String> = ["type"]
    collect(nodes, into: &out, seen: &seen, limit: 5)
    return out.joined(separator: " ")
  }

  private static let skipped: Set<String> = [
    "header", "version", "msg_type", "payload_len", "reserved", "magic", "source", "check",
  ]

  private static func collect(
    _ nodes: [DissectionNode], into out: inout [String], seen: inout Set<String>, limit: Int
  ) {
    for node in nodes where out.count < limit {
      if skipped.contains(node.name) { continue }
      // Inner fields come after an envelope's: show the inner ones, once.
      if node.shape == .leaf, seen.contains(node.name) { continue }
      switch node.shape {
      case .leaf:
        var text = node.value.display
        if case .enumeration(let name, _) = node.value { text = name }
        if text.count > 40 { text = String(text.prefix(37)) + "…" }
        seen.insert(node.name)
        out.append("\(node.name)=\(text)\(node.unit.map { ["%", "°"].contains($0) ? $0 : "" } ?? "")")
      case .object:
        collect(node.children, into: &out, seen: &seen, limit: limit)
      case .array:
        out.append("\(node.name)[\(node.children.count)]")
      }
    }
  }

  static func fixed(_ value: Double, digits: Int) -> String {
    let negative = value < 0
    let magnitude = abs(value)
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (magnitude * scale).rounded()
    let whole = Int64(scaled / scale)
    let fraction = Int64(scaled) - whole * Int64(scale)
    let fractionText = String(fraction)
    let padded = String(repeating: "0", count: max(0, digits - fractionText.count)) + fractionText
    return (negative ? "-" : "") + "\(whole).\(padded)"
  }
}

extension String {
  func leftPadded(to length: Int) -> String {
    count >= length ? self : String(repeating: " ", count: length - count) + self
  }
}
