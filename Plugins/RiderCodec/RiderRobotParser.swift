import PacketKit

/// What the robot's `motor_controller.py` makes of one datagram
/// (PROTOCOLS.md §5): `recvfrom(1024)`, the bytes decoded as UTF-8, Python's
/// `json.loads`, then `left` and `right` (default 0, booleans as 1/0, the
/// last of duplicate keys). The codec's decoder is strict RFC 8259 and says
/// what is wrong with a datagram; this says what the robot did with it,
/// which differs: Python accepts `NaN`, `Infinity` and `1e400`.
enum RiderRobotParser {
  /// The robot reads at most this many bytes of a datagram.
  static let readLimit = RiderSchema.robotReadLimit

  enum Outcome: Equatable {
    /// The robot took these speeds (as JSON gave them, before clamping).
    case applied(left: Double, right: Double, missing: [String])
    /// The robot dropped the datagram; why, in a few words.
    case ignored(String)
  }

  static func read(_ datagram: [UInt8]) -> Outcome {
    let cut = datagram.count > readLimit
    let bytes = cut ? Array(datagram.prefix(readLimit)) : datagram
    let prefix = cut ? "it reads 1024 of the \(datagram.count) bytes: " : ""
    if let bad = firstInvalidUTF8(bytes) { return .ignored(prefix + "not UTF-8 at byte \(bad)") }
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      return .ignored(prefix + "starts with a UTF-8 byte order mark, which Python's json refuses")
    }
    var parser = Parser(bytes: bytes)
    let top: Value
    do {
      top = try parser.document()
    } catch {
      return .ignored(prefix + "not JSON to Python: \(error.text) at byte \(error.offset)")
    }
    guard case .object(let members) = top else {
      return .ignored(prefix + "the JSON is \(top.typeName), not an object")
    }
    var left: Double?
    var right: Double?
    for key in ["left", "right"] {
      // Python's dict keeps the last of duplicate keys.
      guard let value = members.last(where: { $0.key == key })?.value else { continue }
      switch value {
      case .number(let number): key == "left" ? (left = number) : (right = number)
      case .bool(let flag): key == "left" ? (left = flag ? 1 : 0) : (right = flag ? 1 : 0)
      default: return .ignored(prefix + "\(key) is \(value.typeName)")
      }
    }
    let missing = [left == nil ? "left" : nil, right == nil ? "right" : nil].compactMap { $0 }
    return .applied(left: left ?? 0, right: right ?? 0, missing: missing)
  }

  /// What the motor board gets for a speed: Python's `max(-100, min(100, v))`
  /// (so NaN and +∞ give +100), truncated toward zero by `int()`.
  static func motor(_ speed: Double) -> Int {
    let upper = speed < 100 ? speed : 100
    let clamped = upper > -100 ? upper : -100
    return Int(clamped.rounded(.towardZero))
  }

  // MARK: UTF-8

  /// The offset of the first byte Python's strict UTF-8 decoder refuses.
  static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var index = 0
    while index < bytes.count {
      let lead = bytes[index]
      if lead < 0x80 {
        index += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: (length, low) = (3, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: (length, high) = (3, 0x9F)  // no encoded surrogates
      case 0xF0: (length, low) = (4, 0x90)
      case 0xF1...0xF3: length = 4
      case 0xF4: (length, high) = (4, 0x8F)
      default: return index
      }
      guard index + length <= bytes.count else { return index }
      for offset in 1..<length {
        let byte = bytes[index + offset]
        let (min, max) = offset == 1 ? (low, high) : (0x80, 0xBF)
        guard byte >= min, byte <= max else { return index }
      }
      index += length
    }
    return nil
  }

  // MARK: JSON as Python reads it

  indirect enum Value {
    case object([(key: String, value: Value)])
    case array
    case string
    case number(Double)
    case bool(Bool)
    case null

    var typeName: String {
      switch self {
      case .object: "an object"
      case .array: "an array"
      case .string: "a string"
      case .number: "a number"
      case .bool: "a boolean"
      case .null: "null"
      }
    }
  }

  struct ParseError: Error {
    var text: String
    var offset: Int
  }

  /// Python's `json` decoder (the scanner in `json/decoder.py`, strict
  /// mode): its grammar, its literals, its number forms. Only the top
  /// object's members are kept with their values; nested values are
  /// checked and dropped, so memory stays at the datagram's size.
  struct Parser {
    let bytes: [UInt8]
    var index = 0
    /// Python recurses per nesting level; a 1024-byte datagram nests at
    /// most 512 deep, well inside its recursion limit, so depth is only
    /// bounded here to keep Swift's stack small.
    static let maxDepth = 1024

    init(bytes: [UInt8]) {
      self.bytes = bytes
    }

    mutating func document() throws(ParseError) -> Value {
      skipWhitespace()
      let value = try value(depth: 0)
      skipWhitespace()
      guard index == bytes.count else { throw ParseError(text: "extra data", offset: index) }
      return value
    }

    private mutating func skipWhitespace() {
      while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func literal(_ text: String) -> Bool {
      let utf8 = Array(text.utf8)
      guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
        return false
      }
      index += utf8.count
      return true
    }

    private mutating func value(depth: Int) throws(ParseError) -> Value {
      guard depth < Self.maxDepth else { throw ParseError(text: "nested too deep", offset: index) }
      guard let byte = peek() else { throw ParseError(text: "expecting a value", offset: index) }
      switch byte {
      case UInt8(ascii: "{"): return try object(depth: depth)
      case UInt8(ascii: "["):
        try array(depth: depth)
        return .array
      case UInt8(ascii: "\""):
        _ = try string()
        return .string
      case UInt8(ascii: "n") where literal("null"): return .null
      case UInt8(ascii: "t") where literal("true"): return .bool(true)
      case UInt8(ascii: "f") where literal("false"): return .bool(false)
      case UInt8(ascii: "N") where literal("NaN"): return .number(.nan)
      case UInt8(ascii: "I") where literal("Infinity"): return .number(.infinity)
      case UInt8(ascii: "-") where literal("-Infinity"): return .number(-.infinity)
      default:
        if let number = number() { return .number(number) }
        throw ParseError(text: "expecting a value", offset: index)
      }
    }

    private mutating func object(depth: Int) throws(ParseError) -> Value {
      index += 1
      var members: [(key: String, value: Value)] = []
      skipWhitespace()
      if peek() == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      }
      while true {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else {
          throw ParseError(text: "expecting a property name in double quotes", offset: index)
        }
        let key = try string()
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { throw ParseError(text: "expecting ':'", offset: index) }
        index += 1
        skipWhitespace()
        let value = try value(depth: depth + 1)
        // Only the top object's values are read by the robot.
        members.append((key, depth == 0 ? value : .null))
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "}"):
          index += 1
          return .object(members)
        default: throw ParseError(text: "expecting ',' or '}'", offset: index)
        }
      }
    }

    private mutating func array(depth: Int) throws(ParseError) {
      index += 1
      skipWhitespace()
      if peek() == UInt8(ascii: "]") {
        index += 1
        return
      }
      while true {
        skipWhitespace()
        _ = try value(depth: depth + 1)
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "]"):
          index += 1
          return
        default: throw ParseError(text: "expecting ',' or ']'", offset: index)
        }
      }
    }

    /// A string's text with its escapes resolved (lone surrogates, which
    /// Python keeps, become U+FFFD: they can never equal a key we look for).
    private mutating func string() throws(ParseError) -> String {
      let start = index
      index += 1
      var scalars = String.UnicodeScalarView()
      var text: [UInt8] = []
      func flush() {
        scalars.append(contentsOf: String(decoding: text, as: UTF8.self).unicodeScalars)
        text.removeAll()
      }
      while true {
        guard let byte = peek() else { throw ParseError(text: "unterminated string", offset: start) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          flush()
          return String(scalars)
        case UInt8(ascii: "\\"):
          guard let escape = peek() else { throw ParseError(text: "unterminated string", offset: start) }
          index += 1
          let simple: [UInt8: UInt8] = [
            UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F,
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A,
            UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
          ]
          if let plain = simple[escape] {
            text.append(plain)
          } else if escape == UInt8(ascii: "u") {
            var unit = try hex4()
            if (0xD800...0xDBFF).contains(unit), literal("\\u") {
              let low = try hex4()
              if (0xDC00...0xDFFF).contains(low) {
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
              } else {
                index -= 6  // Python keeps the high one alone and reads the next escape anew
              }
            }
            flush()
            scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
          } else {
            throw ParseError(text: "invalid \\escape", offset: index - 2)
          }
        case 0x00..<0x20:
          throw ParseError(text: "invalid control character", offset: index - 1)
        default:
          text.append(byte)
        }
      }
    }

    private mutating func hex4() throws(ParseError) -> UInt32 {
      guard index + 4 <= bytes.count else { throw ParseError(text: "invalid \\uXXXX escape", offset: index) }
      var value: UInt32 = 0
      for byte in bytes[index..<index + 4] {
        guard let digit = Hex.value(of: byte) else {
          throw ParseError(text: "invalid \\uXXXX escape", offset: index)
        }
        value = value << 4 | UInt32(digit)
      }
      index += 4
      return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, as Python's NUMBER_RE
    /// matches it: the longest such prefix, the rest left for the caller.
    private mutating func number() -> Double? {
      let start = index
      var end = index
      func digits(from position: Int) -> Int {
        var at = position
        while at < bytes.count, (0x30...0x39).contains(bytes[at]) { at += 1 }
        return at
      }
      if end < bytes.count, bytes[end] == UInt8(ascii: "-") { end += 1 }
      guard end < bytes.count, (0x30...0x39).contains(bytes[end]) else { return nil }
      end = bytes[end] == UInt8(ascii: "0") ? end + 1 : digits(from: end)
      if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "."), (0x30...0x39).contains(bytes[end + 1]) {
        end = digits(from: end + 1)
      }
      if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
        var exponent = end + 1
        if exponent < bytes.count,
          bytes[exponent] == UInt8(ascii: "+") || bytes[exponent] == UInt8(ascii: "-")
        {
          exponent += 1
        }
        if exponent < bytes.count, (0x30...0x39).contains(bytes[exponent]) { end = digits(from: exponent) }
      }
      index = end
      // Python's int() and float() of the text; beyond a Double's range an
      // int still compares as huge, as the infinity does here.
      return Double(String(decoding: bytes[start..<end], as: UTF8.self)) ?? .nan
    }
  }
}
