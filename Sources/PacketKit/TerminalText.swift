/// Text that came off the wire, made safe to show on a terminal.
///
/// A JSON key, a WebSocket close reason or a diagnostic that quotes a
/// payload may hold ESC, CSI or a bidirectional override; written raw, the
/// terminal would act on it (clear the screen, set the title, hide or
/// reorder what follows). Such characters are written as JSON-style
/// escapes instead (`\u001b`, `\n`), so what is shown is what was sent.
public enum TerminalText {
  /// `text` with every character a terminal acts on escaped: C0 controls,
  /// DEL, C1 controls (U+0080–U+009F: 8-bit CSI and OSC) and the
  /// bidirectional formatting characters. Text with none of them, the
  /// common case, is returned as it is without a copy.
  public static func escaped(_ text: String) -> String {
    guard !isPlain(text) else { return text }
    var out = ""
    out.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if needsEscape(scalar) {
        out += escape(scalar)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Appends `text`, escaped as `escaped` does, to `out` (text with
  /// nothing to escape is copied whole).
  public static func append(_ text: String, to out: inout JSONWriter) {
    if isPlain(text) {
      out.append(utf8: text)
    } else {
      out.append(utf8: escaped(text))
    }
  }

  /// Whether nothing in `text` needs escaping, found from its UTF-8
  /// bytes without decoding characters: most text from the wire is ASCII,
  /// and what is not (an arrow, a µ) is copied as it is too.
  public static func isPlain(_ text: String) -> Bool {
    if let plain = text.utf8.withContiguousStorageIfAvailable({ isPlain(UnsafeRawBufferPointer($0)) }) {
      return plain
    }
    var copy = text  // a small string (its bytes are in the value) or a bridged one
    return copy.withUTF8 { isPlain(UnsafeRawBufferPointer($0)) }
  }

  /// `isPlain` over valid UTF-8: the escaped characters are the bytes
  /// 00–1F and 7F, C2 80–C2 9F (C1), D8 9C (U+061C), E2 80 8E/8F and
  /// E2 80 AA–AE (U+200E/F, U+202A–E) and E2 81 A6–A9 (U+2066–9).
  static func isPlain(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      if byte >= 0x20 && byte < 0x7F {
        index += 1
        continue
      }
      if byte < 0x20 || byte == 0x7F { return false }
      let next = index + 1 < count ? bytes[index + 1] : 0
      switch byte {
      case 0xC2 where next <= 0x9F: return false
      case 0xD8 where next == 0x9C: return false
      case 0xE2:
        let third = index + 2 < count ? bytes[index + 2] : 0
        if next == 0x80 && (third == 0x8E || third == 0x8F || (0xAA...0xAE).contains(third)) { return false }
        if next == 0x81 && (0xA6...0xA9).contains(third) { return false }
      default: break
      }
      index += 1
    }
    return true
  }

  /// Whether a terminal would act on `scalar` rather than show it.
  public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00..<0x20, 0x7F...0x9F: true
    // Bidirectional marks, embeddings, overrides and isolates: they reorder
    // what the terminal shows after them (CVE-2021-42574).
    case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  private static func escape(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    default:
      let digits = String(scalar.value, radix: 16)
      return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
  }
}

/// A piece of the input quoted in a message, cut to a few dozen bytes: a
/// ten-million-digit number or a megabyte key is named, not repeated.
public enum Excerpt {
  /// Bytes of input a message quotes at most.
  public static let limit = 40

  /// `text` as a JSON string, cut to `limit` bytes (at a character
  /// boundary) with its full length when cut, terminal-safe:
  /// `"123456…" (10000000 bytes)`.
  public static func quoted(_ text: String, limit: Int = Excerpt.limit) -> String {
    let count = text.utf8.count
    guard count > limit else { return TerminalText.escaped(JSONWriter.quoted(text)) }
    let kept = String(decoding: cut(Array(text.utf8.prefix(limit + 3))[...], limit: limit), as: UTF8.self)
    return TerminalText.escaped(JSONWriter.quoted(kept + "…")) + " (\(count) bytes)"
  }

  /// The same for input bytes, read in place: only the kept bytes are
  /// copied, however long the input.
  public static func quoted(_ bytes: UnsafeRawBufferPointer, limit: Int = Excerpt.limit) -> String {
    guard bytes.count > limit else {
      return TerminalText.escaped(JSONWriter.quoted(String(decoding: bytes, as: UTF8.self)))
    }
    let head = Array(UnsafeRawBufferPointer(rebasing: bytes[0..<min(bytes.count, limit + 3)]))
    let kept = String(decoding: cut(head[...], limit: limit), as: UTF8.self)
    return TerminalText.escaped(JSONWriter.quoted(kept + "…")) + " (\(bytes.count) bytes)"
  }

  /// `text` unquoted (a key in a key path), cut to `limit` bytes with "…".
  public static func short(_ text: String, limit: Int = Excerpt.limit) -> String {
    guard text.utf8.count > limit else { return text }
    return String(decoding: cut(Array(text.utf8.prefix(limit + 3))[...], limit: limit), as: UTF8.self) + "…"
  }

  /// The first `limit` bytes, less a UTF-8 sequence the cut would split.
  private static func cut(_ bytes: ArraySlice<UInt8>, limit: Int) -> ArraySlice<UInt8> {
    var end = bytes.startIndex + min(limit, bytes.count)
    // A continuation byte at the cut: back off to its sequence's lead.
    if end < bytes.endIndex, bytes[end] & 0xC0 == 0x80 {
      while end > bytes.startIndex, bytes[end] & 0xC0 == 0x80 { end -= 1 }
    }
    return bytes[bytes.startIndex..<end]
  }
}
