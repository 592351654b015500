import PacketKit

/// A name from a capture made safe as a file name: no directories (`/` and
/// `\` become `_`), not hidden, not empty; control characters (C0, DEL,
/// C1), bidirectional overrides and marks, and invisible separators written
/// as `%XX` of their UTF-8 bytes (and `%` itself as `%25`), so that a name
/// cannot disguise its extension (`invoice\u{202E}gpj.exe`) or reach the
/// terminal that lists the directory; and at most `maxBytes` UTF-8 bytes,
/// cut between characters, so a suffix and extension still fit in a file
/// system's 255.
enum ObjectFileName {
  package static let maxBytes = 200

  package static func of(_ name: String) -> String {
    var safe = ""
    var bytes = 0
    for character in name {
      var piece = ""
      for scalar in character.unicodeScalars {
        if scalar == "/" || scalar == "\\" {
          piece.append("_")
        } else if isEscaped(scalar) {
          for byte in String(scalar).utf8 { piece += "%" + hex(byte) }
        } else {
          piece.unicodeScalars.append(scalar)
        }
      }
      guard bytes + piece.utf8.count <= maxBytes else { break }
      bytes += piece.utf8.count
      safe += piece
    }
    if safe.hasPrefix(".") { safe = "_" + safe.dropFirst() }
    return safe.isEmpty ? "_" : safe
  }

  /// What a terminal acts on (controls, bidirectional formatting), what
  /// cannot be seen in a listing, and `%`, which begins an escape.
  private static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x25, 0x200B...0x200D, 0x2028, 0x2029, 0xFEFF: true
    default: TerminalText.needsEscape(scalar)
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }
}
