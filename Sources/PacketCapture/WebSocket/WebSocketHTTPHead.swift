/// An HTTP/1.1 request or response head: the start line and header fields,
/// as far as the opening handshake needs them (RFC 6455 §4, RFC 9112).
struct WebSocketHTTPHead: Sendable {
  var startLine: String
  /// Field names lower-cased; values trimmed; order kept.
  var fields: [(name: String, value: String)]

  /// Index just past the blank line that ends a head in `bytes`, searching
  /// from `start`. Bare LF line ends are accepted as RFC 9112 §2.2 allows.
  static func endOfHead(in bytes: [UInt8], from start: Int) -> Int? {
    var index = max(0, start)
    while index < bytes.count {
      if bytes[index] == 0x0A {
        if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
        if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A {
          return index + 3
        }
      }
      index += 1
    }
    return nil
  }

  static func parse(_ bytes: [UInt8]) -> WebSocketHTTPHead? {
    // Split bytes, not a String: Swift treats CR LF as one Character. Bytes
    // outside ASCII are obsolete in a head (RFC 9112 §5.5) and are decoded
    // leniently so a stray one cannot hide the rest.
    var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
      String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
    }
    while let last = lines.last, last.isEmpty { lines.removeLast() }
    guard let first = lines.first, !first.isEmpty else { return nil }
    var fields: [(name: String, value: String)] = []
    for line in lines.dropFirst() {
      if let firstChar = line.first, firstChar == " " || firstChar == "\t", !fields.isEmpty {
        // obs-fold: a continuation of the previous field's value.
        fields[fields.count - 1].value += " " + trim(line)
        continue
      }
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      guard !name.isEmpty, !name.contains(" ") else { continue }
      fields.append((name, trim(line[line.index(after: colon)...])))
    }
    return WebSocketHTTPHead(startLine: first, fields: fields)
  }

  /// All values of a field joined as one list, or nil when absent.
  func value(_ name: String) -> String? {
    let values = fields.filter { $0.name == name }.map(\.value)
    return values.isEmpty ? nil : values.joined(separator: ", ")
  }

  /// Whether a comma-separated field contains `token` (case-insensitive).
  func hasToken(_ name: String, _ token: String) -> Bool {
    guard let list = value(name) else { return false }
    return list.split(separator: ",").contains { Self.trim($0).lowercased() == token }
  }

  static func trim(_ text: some StringProtocol) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
  }
}

/// The parts of a request-target a protocol may care about: its path, and
/// the segment after a prefix a codec names (FalconEye's device id).
public enum WebSocketTarget {
  /// The path of an origin-form or absolute-form target, without query or fragment.
  public static func path(of target: String) -> Substring {
    var rest = Substring(target)
    if !rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
      // absolute-form: drop scheme and authority.
      let authority = rest[rest.index(colon, offsetBy: 3)...]
      rest = authority.firstIndex(of: "/").map { authority[$0...] } ?? ""
    }
    if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
    return rest
  }

  /// The percent-decoded segment that follows `prefix`'s segments in the
  /// target's path (`/ws/connect/` in `/api/ws/connect/D/x` gives `D`), or
  /// nil when they are not there or nothing follows.
  public static func segment(after prefix: String, in target: String) -> String? {
    let wanted = prefix.split(separator: "/")
    let segments = path(of: target).split(separator: "/", omittingEmptySubsequences: false)
    guard !wanted.isEmpty, segments.count > wanted.count else { return nil }
    for index in 0..<(segments.count - wanted.count)
    where segments[index..<index + wanted.count].elementsEqual(wanted) {
      let found = segments[index + wanted.count]
      return found.isEmpty ? nil : percentDecoded(found)
    }
    return nil
  }

  /// RFC 3986 §2.1 decoding; a `%` not followed by two hex digits stays as it is.
  static func percentDecoded(_ text: Substring) -> String {
    let bytes = Array(text.utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
        let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
      {
        out.append(high << 4 | low)
        index += 3
      } else {
        out.append(bytes[index])
        index += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
