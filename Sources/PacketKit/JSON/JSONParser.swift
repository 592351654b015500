/// A strict RFC 8259 JSON parser over raw bytes with limits on size, depth
/// and element count. It rejects invalid UTF-8, lone surrogates, leading
/// zeros, trailing garbage and control characters in strings, and reports
/// the byte offset of every error.
public struct JSONParser {
  public struct Limits: Sendable {
    public var maxBytes: Int
    public var maxDepth: Int
    public var maxElements: Int

    public init(maxBytes: Int = 16 << 20, maxDepth: Int = 64, maxElements: Int = 1 << 20) {
      self.maxBytes = maxBytes
      self.maxDepth = maxDepth
      self.maxElements = maxElements
    }

    public static let `default` = Limits()
  }

  private let bytes: UnsafeRawBufferPointer
  private let limits: Limits
  private var index = 0
  private var elements = 0

  private init(_ bytes: UnsafeRawBufferPointer, limits: Limits) {
    self.bytes = bytes
    self.limits = limits
  }

  /// Parses exactly one JSON value (surrounding white space allowed).
  public static func parse(
    _ bytes: UnsafeRawBufferPointer, limits: Limits = .default
  ) throws(DecodeError) -> JSONValue {
    guard bytes.count <= limits.maxBytes else {
      let (count, limits) = (bytes.count, limits)
      throw DecodeError(code: "too-large", offset: limits.maxBytes) {
        .init("JSON text is \(count) bytes; the limit is \(limits.maxBytes)")
      }
    }
    var parser = JSONParser(bytes, limits: limits)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == bytes.count else {
      throw parser.error(
        "trailing-data", "unexpected data after the JSON value at offset \(parser.index)",
        expected: "end of input")
    }
    return value
  }

  public static func parse(_ bytes: [UInt8], limits: Limits = .default) throws(DecodeError)
    -> JSONValue
  {
    try bytes.withUnsafeBytes { buffer in
      Result { () throws(DecodeError) in try parse(buffer, limits: limits) }
    }.get()
  }

  // MARK: - Grammar

  private mutating func parseValue(depth: Int) throws(DecodeError) -> JSONValue {
    elements += 1
    guard elements <= limits.maxElements else {
      throw error("too-many-elements", "JSON has more than \(limits.maxElements) values")
    }
    guard let byte = peek() else {
      throw error("truncated", "JSON ends at offset \(index) where a value was expected", expected: "a value")
    }
    switch byte {
    case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
    case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
    case UInt8(ascii: "\""):
      let start = index
      let string = try parseString()
      return JSONValue(.string(string), range: start..<index)
    case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
    case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
    case UInt8(ascii: "n"): return try parseLiteral("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default:
      throw error(
        "bad-json", "unexpected \(Self.describe(byte)) at offset \(index) where a JSON value was expected",
        expected: "a value")
    }
  }

  private mutating func parseObject(depth: Int) throws(DecodeError) -> JSONValue {
    let start = index
    try checkDepth(depth)
    index += 1
    var members: [JSONMember] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "}") {
      index += 1
      return JSONValue(.object(members), range: start..<index)
    }
    // Room for the usual few members at once: grown from empty, an object
    // of three or four members was three allocations.
    members.reserveCapacity(4)
    while true {
      skipWhitespace()
      guard peek() == UInt8(ascii: "\"") else {
        throw error(
          "bad-json", "expected a quoted key at offset \(index), found \(describePeek())",
          expected: "\"key\"")
      }
      let keyStart = index
      let key = try parseString()
      let keyRange = keyStart..<index
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else {
        throw error(
          "bad-json", "expected ':' after key \"\(key)\" at offset \(index), found \(describePeek())",
          expected: ":")
      }
      index += 1
      skipWhitespace()
      let value = try parseValue(depth: depth)
      members.append(JSONMember(key: key, keyRange: keyRange, value: value))
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return JSONValue(.object(members), range: start..<index)
      default:
        throw error(
          "bad-json", "expected ',' or '}' at offset \(index), found \(describePeek())",
          expected: ", or }")
      }
    }
  }

  private mutating func parseArray(depth: Int) throws(DecodeError) -> JSONValue {
    let start = index
    try checkDepth(depth)
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if peek() == UInt8(ascii: "]") {
      index += 1
      return JSONValue(.array(elements), range: start..<index)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue(depth: depth))
      skipWhitespace()
      switch peek() {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return JSONValue(.array(elements), range: start..<index)
      default:
        throw error(
          "bad-json", "expected ',' or ']' at offset \(index), found \(describePeek())",
          expected: ", or ]")
      }
    }
  }

  private func checkDepth(_ depth: Int) throws(DecodeError) {
    guard depth <= limits.maxDepth else {
      throw error("too-deep", "JSON nests deeper than \(limits.maxDepth) levels at offset \(index)")
    }
  }

  private mutating func parseLiteral(_ word: StaticString, _ kind: JSONValue.Kind)
    throws(DecodeError) -> JSONValue
  {
    let start = index
    let count = word.utf8CodeUnitCount
    var matches = index + count <= bytes.count
    if matches {
      let pointer = word.utf8Start
      for i in 0..<count where bytes[index + i] != pointer[i] {
        matches = false
        break
      }
    }
    guard matches else {
      throw error(
        "bad-json", "unexpected \(describePeek()) at offset \(index); did you mean \(word)?",
        expected: "\(word)")
    }
    index += count
    return JSONValue(kind, range: start..<index)
  }

  private mutating func parseNumber() throws(DecodeError) -> JSONValue {
    let start = index
    // One pass reads the grammar and the value of the common number; the
    // walk below is for what it declines: errors to explain, or a value
    // only strtod reads exactly.
    if let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
      var end = index
      if let (value, isInteger) = JSONNumber.scan(base, &end, bytes.count) {
        index = end
        return JSONValue(.number(value, isInteger: isInteger), range: start..<index)
      }
    }
    var isInteger = true
    if peek() == UInt8(ascii: "-") { index += 1 }
    guard let first = peek(), isDigit(first) else {
      throw error("bad-number", "a number needs a digit at offset \(index)", expected: "digit")
    }
    if first == UInt8(ascii: "0") {
      index += 1
      if let next = peek(), isDigit(next) {
        throw error("bad-number", "numbers may not have leading zeros (offset \(start))")
      }
    } else {
      while let c = peek(), isDigit(c) { index += 1 }
    }
    if peek() == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard let c = peek(), isDigit(c) else {
        throw error("bad-number", "a digit must follow '.' at offset \(index)", expected: "digit")
      }
      while let c = peek(), isDigit(c) { index += 1 }
    }
    if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
      guard let c = peek(), isDigit(c) else {
        throw error("bad-number", "an exponent needs digits at offset \(index)", expected: "digit")
      }
      while let c = peek(), isDigit(c) { index += 1 }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      throw error("bad-number", "number \(text) at offset \(start) is not a finite double")
    }
    return JSONValue(.number(value, isInteger: isInteger), range: start..<index)
  }

  /// Parses a string starting at the opening quote; validates UTF-8.
  private mutating func parseString() throws(DecodeError) -> String {
    let open = index
    index += 1
    // Fast path: no escapes. Eight bytes at a time while none of them is a
    // quote, a backslash, a control byte or non-ASCII (base64 payloads of
    // camera frames are hundreds of KB of exactly that).
    var scan = index
    while scan + 8 <= bytes.count {
      let word = bytes.loadUnaligned(fromByteOffset: scan, as: UInt64.self)
      if JSONWordScan.needsAttention(word) { break }
      scan += 8
    }
    while scan < bytes.count {
      let c = bytes[scan]
      if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { break }
      scan += 1
    }
    if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
      let string = String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[index..<scan]), as: UTF8.self)
      index = scan + 1
      return string
    }
    var utf8: [UInt8] = []
    utf8.reserveCapacity(scan - index + 16)
    while true {
      guard index < bytes.count else {
        throw error(
          "truncated", "string starting at offset \(open) is not closed", expected: "\"")
      }
      let c = bytes[index]
      switch c {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        try parseEscape(into: &utf8)
      case 0..<0x20:
        throw error(
          "bad-string", "control byte 0x\(Hex.compact([c])) inside a string at offset \(index)",
          expected: "escaped character")
      case 0x80...:
        try copyUTF8Sequence(into: &utf8)
      default:
        utf8.append(c)
        index += 1
      }
    }
  }

  private mutating func parseEscape(into utf8: inout [UInt8]) throws(DecodeError) {
    let escapeStart = index
    index += 1
    guard let c = peek() else {
      throw error("truncated", "escape at offset \(escapeStart) is cut off")
    }
    index += 1
    switch c {
    case UInt8(ascii: "\""): utf8.append(c)
    case UInt8(ascii: "\\"): utf8.append(c)
    case UInt8(ascii: "/"): utf8.append(c)
    case UInt8(ascii: "b"): utf8.append(0x08)
    case UInt8(ascii: "f"): utf8.append(0x0C)
    case UInt8(ascii: "n"): utf8.append(0x0A)
    case UInt8(ascii: "r"): utf8.append(0x0D)
    case UInt8(ascii: "t"): utf8.append(0x09)
    case UInt8(ascii: "u"):
      var scalar = try readHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "u")
        else {
          throw error("bad-string", "lone high surrogate \\u\(scalar) at offset \(escapeStart)")
        }
        index += 2
        let low = try readHex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw error("bad-string", "high surrogate not followed by a low one at offset \(escapeStart)")
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw error("bad-string", "lone low surrogate at offset \(escapeStart)")
      }
      if let unicode = Unicode.Scalar(scalar) {
        utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
      }
    default:
      throw error(
        "bad-string", "unknown escape \\\(Self.describe(c)) at offset \(escapeStart)",
        expected: "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u")
    }
  }

  private mutating func readHex4() throws(DecodeError) -> UInt32 {
    guard index + 4 <= bytes.count else {
      throw error("truncated", "\\u escape at offset \(index) needs four hex digits")
    }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[index]
      let digit: UInt32
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
      default:
        throw error("bad-string", "\\u escape has a non-hex \(Self.describe(c)) at offset \(index)")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  /// Copies one multi-byte UTF-8 sequence, rejecting overlongs, surrogates
  /// and code points past U+10FFFF.
  private mutating func copyUTF8Sequence(into utf8: inout [UInt8]) throws(DecodeError) {
    let lead = bytes[index]
    let count: Int
    var minimum: UInt32
    var scalar: UInt32
    switch lead {
    case 0xC2...0xDF:
      count = 2
      minimum = 0x80
      scalar = UInt32(lead & 0x1F)
    case 0xE0...0xEF:
      count = 3
      minimum = 0x800
      scalar = UInt32(lead & 0x0F)
    case 0xF0...0xF4:
      count = 4
      minimum = 0x10000
      scalar = UInt32(lead & 0x07)
    default:
      throw error("bad-utf8", "invalid UTF-8 lead byte 0x\(Hex.compact([lead])) at offset \(index)")
    }
    guard index + count <= bytes.count else {
      throw error("bad-utf8", "UTF-8 sequence at offset \(index) is cut off")
    }
    for i in 1..<count {
      let c = bytes[index + i]
      guard c & 0xC0 == 0x80 else {
        throw error(
          "bad-utf8", "invalid UTF-8 continuation byte 0x\(Hex.compact([c])) at offset \(index + i)")
      }
      scalar = scalar << 6 | UInt32(c & 0x3F)
    }
    guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
      throw error("bad-utf8", "invalid UTF-8 sequence (overlong or surrogate) at offset \(index)")
    }
    for i in 0..<count { utf8.append(bytes[index + i]) }
    index += count
  }

  // MARK: - Helpers

  private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

  private mutating func skipWhitespace() {
    while let c = peek(),
      c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r")
        || c == UInt8(ascii: "\t")
    {
      index += 1
    }
  }

  private func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

  private func describePeek() -> String { Self.describe(peek()) }

  /// A byte as error text shows it; nil is the end of the input.
  private static func describe(_ c: UInt8?) -> String {
    guard let c else { return "end of input" }
    if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
    return "byte 0x\(Hex.compact([c]))"
  }

  private func error(_ code: String, _ text: String, expected: String? = nil) -> DecodeError {
    let next = peek()
    return DecodeError(code: code, offset: min(index, bytes.count)) {
      .init(text, expected: expected, found: Self.describe(next))
    }
  }
}
