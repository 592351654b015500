import PacketKit

/// `xxd`-style hex dump; optionally marks each field's bytes with the
/// field's name underneath, like Wireshark's byte pane.
package enum HexDump {
  package static func lines(_ bytes: [UInt8], indent: String = "") -> [String] {
    var out: [String] = []
    var offset = 0
    while offset < bytes.count {
      let row = bytes[offset..<min(offset + 16, bytes.count)]
      var hex = ""
      for (index, byte) in row.enumerated() {
        hex += Hex.spaced([byte])
        hex += index == 7 ? "  " : " "
      }
      let pad = String(repeating: " ", count: max(0, 49 - hex.count))
      let ascii = String(row.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
      out.append("\(indent)\(hexOffset(offset))  \(hex)\(pad) |\(ascii)|")
      offset += 16
    }
    return out
  }

  /// The leaf fields with the bytes they span, in offset order.
  static func fieldMap(_ nodes: [DissectionNode], prefix: String = "") -> [(String, Range<Int>)] {
    var out: [(String, Range<Int>)] = []
    for node in nodes {
      let own = TerminalText.escaped(node.name)
      let name = prefix.isEmpty ? own : "\(prefix).\(own)"
      if node.children.isEmpty {
        out.append((name, node.range))
      } else {
        out.append(contentsOf: fieldMap(node.children, prefix: name))
      }
    }
    return out.sorted { $0.1.lowerBound < $1.1.lowerBound }
  }

  /// One line per leaf field: its byte range and the bytes themselves.
  package static func markedLines(_ bytes: [UInt8], fields: [DissectionNode], indent: String = "") -> [String]
  {
    var out = lines(bytes, indent: indent)
    let map = fieldMap(fields)
    guard !map.isEmpty else { return out }
    let width = min(28, map.map(\.0.count).max() ?? 8)
    for (name, range) in map {
      let clamped = range.clamped(to: 0..<bytes.count)
      let shown = bytes[clamped].prefix(12)
      let more = clamped.count > 12 ? " …" : ""
      let label = name.padding(toLength: width)
      out.append("\(indent)  \(label) \(rangeText(range).padding(toLength: 13)) \(Hex.spaced(shown))\(more)")
    }
    return out
  }

  package static func rangeText(_ range: Range<Int>) -> String {
    range.count <= 1 ? "[\(range.lowerBound)]" : "[\(range.lowerBound)..\(range.upperBound - 1)]"
  }

  private static func hexOffset(_ offset: Int) -> String {
    let digits = String(offset, radix: 16)
    return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
  }
}

extension String {
  package func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}
