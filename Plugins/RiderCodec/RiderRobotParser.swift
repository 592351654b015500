import PacketKit

/// What the robot's `motor_controller.py` makes of one datagram
/// (docs/protocols.md §5): `recvfrom(1024)`, the bytes decoded as UTF-8, Python's
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
    let prefix = cut ? "it reads 1024 of the \(datagram.count) bytes: " : ""
    return datagram.withUnsafeBufferPointer { whole in
      let bytes = UnsafeBufferPointer(rebasing: whole.prefix(readLimit))
      if let bad = firstInvalidUTF8(bytes) { return .ignored(prefix + "not UTF-8 at byte \(bad)") }
      if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
        return .ignored(prefix + "starts with a UTF-8 byte order mark, which Python's json refuses")
      }
      var parser = Parser(bytes: bytes)
      let top: Parser.Top
      switch Result(catching: { () throws(ParseError) in try parser.document() }) {
      case .success(let parsed): top = parsed
      case .failure(let failure):
        return .ignored(prefix + "not JSON to Python: \(failure.text) at byte \(failure.offset)")
      }
      guard case .object(let left, let right) = top else {
        guard case .other(let typeName) = top else { return .ignored(prefix + "not an object") }
        return .ignored(prefix + "the JSON is \(typeName), not an object")
      }
      var speeds = (left: 0.0, right: 0.0)
      var missing: [String] = []
      for (key, value) in [("left", left), ("right", right)] {
        let speed: Double
        switch value {
        case nil:
          missing.append(key)
          continue
        case .number(let number)?: speed = number
        case .bool(let flag)?: speed = flag ? 1 : 0
        case .other(let typeName)?: return .ignored(prefix + "\(key) is \(typeName)")
        }
        if key == "left" { speeds.left = speed } else { speeds.right = speed }
      }
      return .applied(left: speeds.left, right: speeds.right, missing: missing)
    }
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
  static func firstInvalidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
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

  /// A value of the top object as the robot reads it.
  enum Speed {
    case number(Double)
    case bool(Bool)
    /// Anything else, by its type's name ("a string").
    case other(String)
  }

  struct ParseError: Error {
    var text: String
    var offset: Int
  }

  /// Python's `json` decoder (the scanner in `json/decoder.py`, strict
  /// mode): its grammar, its literals, its number forms. Only the top
  /// object's `left` and `right` are kept (the last of each, as Python's
  /// dict keeps it); everything else is checked and dropped, without an
  /// allocation per token: every datagram of a capture comes through here.
  struct Parser {
    enum Top {
      case object(left: Speed?, right: Speed?)
      case other(String)
    }

    /// What a value is, as far as the robot cares.
    private enum Kind {
      case object, array, string, null
      case number(Double)
      case bool(Bool)

      var speed: Speed {
        switch self {
        case .number(let value): .number(value)
        case .bool(let flag): .bool(flag)
        case .object: .other("an object")
        case .array: .other("an array")
        case .string: .other("a string")
        case .null: .other("null")
        }
      }
    }

    private enum Key {
      case left, right, other
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Python recurses per nesting level; a 1024-byte datagram nests at
    /// most 512 deep, well inside its recursion limit, so depth is only
    /// bounded here to keep Swift's stack small.
    static let maxDepth = 1024

    init(bytes: UnsafeBufferPointer<UInt8>) {
      self.bytes = bytes
    }

    mutating func document() throws(ParseError) -> Top {
      skipWhitespace()
      var left: Speed?
      var right: Speed?
      let kind = try value(depth: 0, left: &left, right: &right)
      skipWhitespace()
      guard index == bytes.count else { throw ParseError(text: "extra data", offset: index) }
      if case .object = kind { return .object(left: left, right: right) }
      switch kind.speed {
      case .number: return .other("a number")
      case .bool: return .other("a boolean")
      case .other(let name): return .other(name)
      }
    }

    private mutating func skipWhitespace() {
      while index < bytes.count {
        let byte = bytes[index]
        guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
        index += 1
      }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func literal(_ text: StaticString) -> Bool {
      let count = text.utf8CodeUnitCount
      guard index + count <= bytes.count else { return false }
      let start = text.utf8Start
      for offset in 0..<count where bytes[index + offset] != start[offset] { return false }
      index += count
      return true
    }

    /// A value; at depth 0 an object's `left`/`right` go to those.
    private mutating func value(depth: Int, left: inout Speed?, right: inout Speed?) throws(ParseError)
      -> Kind
    {
      guard depth < Self.maxDepth else { throw ParseError(text: "nested too deep", offset: index) }
      guard let byte = peek() else { throw ParseError(text: "expecting a value", offset: index) }
      switch byte {
      case UInt8(ascii: "{"):
        try object(depth: depth, left: &left, right: &right)
        return .object
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

    private mutating func object(depth: Int, left: inout Speed?, right: inout Speed?) throws(ParseError) {
      index += 1
      skipWhitespace()
      if peek() == UInt8(ascii: "}") {
        index += 1
        return
      }
      var ignoredLeft: Speed?
      var ignoredRight: Speed?
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
        let kind = try value(depth: depth + 1, left: &ignoredLeft, right: &ignoredRight)
        // Only the top object's values are read by the robot.
        if depth == 0 {
          if key == .left { left = kind.speed }
          if key == .right { right = kind.speed }
        }
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index += 1
        case UInt8(ascii: "}"):
          index += 1
          return
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
      var ignoredLeft: Speed?
      var ignoredRight: Speed?
      while true {
        skipWhitespace()
        _ = try value(depth: depth + 1, left: &ignoredLeft, right: &ignoredRight)
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

    /// A string, checked as Python checks it, and which key it spells. A
    /// plain string (no escape) is compared as bytes; one with escapes is
    /// decoded first (`"\u006ceft"` is `left` to Python).
    private mutating func string() throws(ParseError) -> Key {
      let start = index
      index += 1
      let contentStart = index
      var escaped = false
      while true {
        guard let byte = peek() else { throw ParseError(text: "unterminated string", offset: start) }
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          let content = UnsafeBufferPointer(rebasing: bytes[contentStart..<index - 1])
          return escaped ? Self.key(decoding: content) : Self.key(content)
        case UInt8(ascii: "\\"):
          escaped = true
          guard let escape = peek() else { throw ParseError(text: "unterminated string", offset: start) }
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            break
          case UInt8(ascii: "u"):
            guard index + 4 <= bytes.count,
              (index..<index + 4).allSatisfy({ Hex.value(of: bytes[$0]) != nil })
            else { throw ParseError(text: "invalid \\uXXXX escape", offset: index) }
            index += 4
          default:
            throw ParseError(text: "invalid \\escape", offset: index - 2)
          }
        case 0x00..<0x20:
          throw ParseError(text: "invalid control character", offset: index - 1)
        default:
          break
        }
      }
    }

    private static func key(_ text: UnsafeBufferPointer<UInt8>) -> Key {
      if text.elementsEqual("left".utf8) { return .left }
      if text.elementsEqual("right".utf8) { return .right }
      return .other
    }

    /// The key an escaped string spells: its escapes resolved as Python
    /// resolves them (a surrogate pair is one character; a lone surrogate
    /// never equals a key the robot reads).
    private static func key(decoding text: UnsafeBufferPointer<UInt8>) -> Key {
      var scalars: [UInt32] = []
      var at = 0
      func hex4(_ from: Int) -> UInt32 {
        (from..<from + 4).reduce(UInt32(0)) { $0 << 4 | UInt32(Hex.value(of: text[$1]) ?? 0) }
      }
      while at < text.count, scalars.count <= 5 {
        if text[at] != UInt8(ascii: "\\") {
          scalars.append(UInt32(text[at]))
          at += 1
          continue
        }
        let escape = text[at + 1]
        at += 2
        switch escape {
        case UInt8(ascii: "u"):
          var unit = hex4(at)
          at += 4
          if (0xD800...0xDBFF).contains(unit), at + 6 <= text.count, text[at] == UInt8(ascii: "\\"),
            text[at + 1] == UInt8(ascii: "u")
          {
            let low = hex4(at + 2)
            if (0xDC00...0xDFFF).contains(low) {
              unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
              at += 6
            }
          }
          scalars.append(unit)
        default:
          scalars.append(UInt32(escape))
        }
      }
      guard at >= text.count else { return .other }
      if scalars.elementsEqual("left".unicodeScalars.map(\.value)) { return .left }
      if scalars.elementsEqual("right".unicodeScalars.map(\.value)) { return .right }
      return .other
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`, as Python's NUMBER_RE
    /// matches it: the longest such prefix, the rest left for the caller.
    private mutating func number() -> Double? {
      let start = index
      var end = index
      func isDigit(_ at: Int) -> Bool { at < bytes.count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
      func digits(from position: Int) -> Int {
        var at = position
        while isDigit(at) { at += 1 }
        return at
      }
      let negative = end < bytes.count && bytes[end] == UInt8(ascii: "-")
      if negative { end += 1 }
      guard isDigit(end) else { return nil }
      end = bytes[end] == UInt8(ascii: "0") ? end + 1 : digits(from: end)
      let integerEnd = end
      if end < bytes.count, bytes[end] == UInt8(ascii: "."), isDigit(end + 1) {
        end = digits(from: end + 1)
      }
      if end < bytes.count, bytes[end] == UInt8(ascii: "e") || bytes[end] == UInt8(ascii: "E") {
        var exponent = end + 1
        if exponent < bytes.count,
          bytes[exponent] == UInt8(ascii: "+") || bytes[exponent] == UInt8(ascii: "-")
        {
          exponent += 1
        }
        if isDigit(exponent) { end = digits(from: exponent) }
      }
      index = end
      // A short integer is exact as a Double; anything else goes through
      // the C library as Python's float() does. Beyond a Double's range an
      // integer still compares as huge, as the infinity does here.
      let first = start + (negative ? 1 : 0)
      if end == integerEnd, integerEnd - first <= 15 {
        var value = 0.0
        for at in first..<integerEnd { value = value * 10 + Double(bytes[at] - 0x30) }
        return negative ? -value : value
      }
      return Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
        ?? .nan
    }
  }
}
