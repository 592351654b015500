import PacketKit

/// One line per message, like tcpdump: frame, relative time, endpoints,
/// codec, message, key fields, and marks for warnings and errors.
enum SummaryRenderer {
  static func line(_ record: DecodedRecord, firstTime: Double?, style: Style) -> String {
    // One string grown in place: this runs once per message.
    var line = ""
    line.reserveCapacity(160)
    func part(_ text: String) {
      if !line.isEmpty { line += "  " }
      line += text
    }
    if let frame = record.frame { part(String(frame).leftPadded(to: 6)) }
    if let time = record.time {
      let relative = time - (firstTime ?? time)
      part(fixed(relative, digits: 6).leftPadded(to: 11))
    }
    if let source = record.source, let destination = record.destination {
      part(source)
      line += " → "
      line += destination
    }
    part(record.transport)
    if let note = record.carrierNote { part(note) }
    switch record.result {
    case .decoded(let frame):
      part(style.codec(frame.codec))
      line += " "
      line += style.bold(frame.message)
      let keys = keyFields(frame.fields, message: frame.message)
      if !keys.isEmpty { part(keys) }
    case .failed(let codec, let error):
      let at = error.offset.map { " at offset \($0)" } ?? ""
      part(style.codec(codec) + " " + style.error("ERROR \(error.code)\(at): \(error.text)"))
    case nil:
      if let error = record.layerError {
        let at = error.offset.map { " at offset \($0)" } ?? ""
        part(style.error("DAMAGED \(error.code)\(at): \(error.text)"))
      } else if let event = record.event {
        let fields = event.fields.map { "\($0.key)=\($0.value.display)" }.joined(separator: " ")
        part(style.bold(event.name) + (fields.isEmpty ? "" : "  " + fields))
      } else {
        part(style.dim("(\(record.payloadLength) bytes, no codec)"))
      }
    }
    for diagnostic in record.layerDiagnostics where diagnostic.severity >= .warning {
      part(style.warning("⚠ \(diagnostic.code)"))
    }
    if case .decoded(let frame) = record.result {
      for diagnostic in frame.diagnostics where diagnostic.severity >= .warning {
        part(style.warning("⚠ \(diagnostic.code)"))
      }
    }
    return line
  }

  /// Up to five leaf fields as `name=value`, skipping header bookkeeping.
  static func keyFields(_ nodes: [DissectionNode], message: String) -> String {
    var out = ""
    var shown: [String] = []
    collect(nodes, into: &out, shown: &shown, limit: 5)
    return out
  }

  private static let skipped: Set<String> = [
    "header", "version", "msg_type", "payload_len", "reserved", "magic", "source", "check", "type",
  ]

  private static func collect(
    _ nodes: [DissectionNode], into out: inout String, shown: inout [String], limit: Int
  ) {
    for node in nodes where shown.count < limit {
      if skipped.contains(node.name) { continue }
      switch node.shape {
      case .leaf:
        // Inner fields come after an envelope's: show each name once.
        if shown.contains(node.name) { continue }
        var text: String
        if case .enumeration(let name, _) = node.value { text = name } else { text = node.value.display }
        if text.count > 40 { text = String(text.prefix(37)) + "…" }
        shown.append(node.name)
        if !out.isEmpty { out += " " }
        out += node.name
        out += "="
        out += text
        if let unit = node.unit, unit == "%" || unit == "°" { out += unit }
      case .object:
        collect(node.children, into: &out, shown: &shown, limit: limit)
      case .array:
        shown.append(node.name)
        if !out.isEmpty { out += " " }
        out += "\(node.name)[\(node.children.count)]"
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
