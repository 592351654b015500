#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A JSON text parsed into one flat array of entries in document order: the
/// strict RFC 8259 parser of pktbench. It rejects invalid UTF-8, lone
/// surrogates, leading zeros, trailing garbage and control characters in
/// strings, keeps to limits on size, depth and element count, and reports
/// the byte offset of every error.
///
/// A container's entry knows how many members or elements it has and where
/// its subtree ends, and an object's members are a key entry followed by the
/// value's entries. Strings are byte ranges of the input, made into `String`
/// only when read (a decoded copy is kept only for strings with escapes or
/// non-ASCII bytes). So a parse is a few allocations however many values the
/// text holds, and a tape is freed at once: the tree of values it replaced
/// was an array per container and a `String` per key and string, each built
/// and then destroyed element by element.
///
/// Read it through `JSONNode`s, which are valid only while the tape and the
/// parsed bytes are alive: `read(_:limits:_:)` parses and lends the root to
/// a body, keeping both alive meanwhile, so no caller manages that itself.
public final class JSONTape {
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

  public enum Kind: UInt8, Sendable, BitwiseCopyable {
    case object, array, string, number, bool, null
    /// An object member's key (the entry before its value).
    case key
  }

  /// One value, or one object key. Trivial, so the tape is freed at once.
  @usableFromInline
  struct Entry: BitwiseCopyable {
    /// The value's (or the key's) byte range, quotes included.
    @usableFromInline var start: Int32
    @usableFromInline var end: Int32
    /// The index just past this entry and its subtree.
    @usableFromInline var next: Int32
    /// Members of an object, elements of an array.
    @usableFromInline var count: Int32
    /// Index into `texts` of the decoded string or key; -1 when its bytes
    /// between the quotes are its text (no escapes, all ASCII).
    @usableFromInline var text: Int32
    @usableFromInline var kind: Kind
    /// A number's text had no fraction or exponent; a boolean's value.
    @usableFromInline var flag: Bool
    @usableFromInline var number: Double
  }

  @exclusivity(unchecked) @usableFromInline var entries: UnsafeMutablePointer<Entry>
  @exclusivity(unchecked) @usableFromInline var count = 0
  @exclusivity(unchecked) private var capacity: Int
  /// Strings and keys with escapes or non-ASCII bytes, decoded.
  @exclusivity(unchecked) @usableFromInline var texts: [String] = []
  /// The parsed bytes; valid only while the caller keeps them.
  @usableFromInline let bytes: UnsafeRawBufferPointer

  private init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
    // About one value per eight bytes, up to 8 KB of entries: a camera
    // frame is hundreds of KB in a handful of values, and more is grown.
    capacity = min(max(bytes.count / 8, 16), 256)
    entries = PlainMemory.allocate(Entry.self, capacity: capacity)
  }

  deinit { PlainMemory.free(entries) }

  /// The root value.
  @inlinable var root: JSONNode { JSONNode(tape: self, index: 0) }

  /// Parses exactly one JSON value (surrounding white space allowed) and
  /// gives its root to `body`, the tape alive meanwhile. The nodes read
  /// `bytes` again, so they must not outlive the call.
  @inlinable
  public static func read<R>(
    _ bytes: UnsafeRawBufferPointer, limits: Limits = .default,
    _ body: (JSONNode) throws(DecodeError) -> R
  ) throws(DecodeError) -> R {
    let tape = try parse(bytes, limits: limits)
    return try withExtendedLifetime(tape) { () throws(DecodeError) in try body(tape.root) }
  }

  /// Parses exactly one JSON value (surrounding white space allowed).
  @usableFromInline static func parse(
    _ bytes: UnsafeRawBufferPointer, limits: Limits = .default
  ) throws(DecodeError) -> JSONTape {
    // Offsets are kept in 32 bits.
    let maxBytes = min(limits.maxBytes, Int(Int32.max) - 1)
    guard bytes.count <= maxBytes else {
      let count = bytes.count
      throw DecodeError(code: "too-large", offset: maxBytes) {
        .init("JSON text is \(count) bytes; the limit is \(maxBytes)")
      }
    }
    let tape = JSONTape(bytes)
    var scanner = Scanner(tape: tape, limits: limits)
    scanner.skipWhitespace()
    try scanner.parseValue(depth: 0)
    scanner.skipWhitespace()
    guard scanner.index == bytes.count else {
      throw scanner.error("trailing-data", expected: "end of input") { [index = scanner.index] _ in
        "unexpected data after the JSON value at offset \(index)"
      }
    }
    return tape
  }

  /// `read` of an array's bytes, for a body that may throw anything.
  public static func read<R>(_ bytes: [UInt8], limits: Limits = .default, _ body: (JSONNode) throws -> R)
    throws -> R
  {
    try bytes.withUnsafeBytes { buffer in
      let tape = try parse(buffer, limits: limits)
      return try withExtendedLifetime(tape) { try body(tape.root) }
    }
  }

  // MARK: Building

  fileprivate func append(_ kind: Kind, start: Int, end: Int, flag: Bool = false, number: Double = 0)
    -> Int
  {
    if count == capacity { grow() }
    let index = count
    (entries + index).initialize(
      to: Entry(
        start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end),
        next: Int32(truncatingIfNeeded: index + 1), count: 0, text: -1, kind: kind, flag: flag,
        number: number))
    count += 1
    return index
  }

  private func grow() {
    capacity *= 2
    entries = PlainMemory.resize(entries, capacity: capacity)
  }

  /// Closes a container: its end, member or element count, and subtree.
  fileprivate func close(_ index: Int, end: Int, count members: Int) {
    entries[index].end = Int32(truncatingIfNeeded: end)
    entries[index].count = Int32(truncatingIfNeeded: members)
    entries[index].next = Int32(truncatingIfNeeded: count)
  }

  fileprivate func keep(_ text: String, for index: Int) {
    entries[index].text = Int32(truncatingIfNeeded: texts.count)
    texts.append(text)
  }
}

// MARK: - Grammar

extension JSONTape {
  private struct Scanner {
    let tape: JSONTape
    let bytes: UnsafeRawBufferPointer
    let limits: Limits
    var index = 0
    var elements = 0

    init(tape: JSONTape, limits: Limits) {
      self.tape = tape
      self.bytes = tape.bytes
      self.limits = limits
    }

    mutating func parseValue(depth: Int) throws(DecodeError) {
      elements += 1
      guard elements <= limits.maxElements else {
        throw error("too-many-elements") { [limit = limits.maxElements] _ in
          "JSON has more than \(limit) values"
        }
      }
      guard let byte = peek() else {
        throw error("truncated", expected: "a value") { [index] _ in
          "JSON ends at offset \(index) where a value was expected"
        }
      }
      switch byte {
      case UInt8(ascii: "{"): try parseContainer(.object, depth: depth + 1)
      case UInt8(ascii: "["): try parseContainer(.array, depth: depth + 1)
      case UInt8(ascii: "\""): try parseString(as: .string)
      case UInt8(ascii: "t"): try parseLiteral("true", .bool, flag: true)
      case UInt8(ascii: "f"): try parseLiteral("false", .bool, flag: false)
      case UInt8(ascii: "n"): try parseLiteral("null", .null, flag: false)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
      default:
        throw error("bad-json", expected: "a value") { [index] found in
          "unexpected \(found) at offset \(index) where a JSON value was expected"
        }
      }
    }

    /// An object or an array: its members (a key, a colon, a value) or
    /// elements, separated by commas, up to the closing bracket.
    mutating func parseContainer(_ kind: Kind, depth: Int) throws(DecodeError) {
      let start = index
      try checkDepth(depth)
      let container = tape.append(kind, start: start, end: start)
      let close = kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
      index += 1
      var count = 0
      skipWhitespace()
      if peek() == close {
        index += 1
        tape.close(container, end: index, count: 0)
        return
      }
      while true {
        skipWhitespace()
        if kind == .object { try parseKey() }
        try parseValue(depth: depth)
        count += 1
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","): index += 1
        case close:
          index += 1
          tape.close(container, end: index, count: count)
          return
        default:
          throw error("bad-json", expected: close == UInt8(ascii: "}") ? ", or }" : ", or ]") {
            [index] found in
            "expected ',' or \(Scanner.describe(close)) at offset \(index), found \(found)"
          }
        }
      }
    }

    /// A member's key and its colon, up to the value.
    @inline(__always)
    mutating func parseKey() throws(DecodeError) {
      guard peek() == UInt8(ascii: "\"") else {
        throw error("bad-json", expected: "\"key\"") { [index] found in
          "expected a quoted key at offset \(index), found \(found)"
        }
      }
      let key = try parseString(as: .key)
      skipWhitespace()
      guard peek() == UInt8(ascii: ":") else {
        let text = Excerpt.quoted(JSONNode(tape: tape, index: key).text)
        throw error("bad-json", expected: ":") { [index] found in
          "expected ':' after key \(text) at offset \(index), found \(found)"
        }
      }
      index += 1
      skipWhitespace()
    }

    func checkDepth(_ depth: Int) throws(DecodeError) {
      guard depth <= limits.maxDepth else {
        throw error("too-deep") { [index, limit = limits.maxDepth] _ in
          "JSON nests deeper than \(limit) levels at offset \(index)"
        }
      }
    }

    mutating func parseLiteral(_ word: StaticString, _ kind: Kind, flag: Bool) throws(DecodeError) {
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
        throw error("bad-json", expected: "\(word)") { [index] found in
          "unexpected \(found) at offset \(index); did you mean \(word)?"
        }
      }
      index += count
      _ = tape.append(kind, start: start, end: index, flag: flag)
    }

    mutating func parseNumber() throws(DecodeError) {
      let start = index
      // One pass reads the grammar and the value of the common number; the
      // walk below is for what it declines: errors to explain, or a value
      // only strtod reads exactly.
      if let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) {
        var end = index
        if let (value, isInteger) = JSONNumber.scanExact(base, &end, bytes.count) {
          index = end
          _ = tape.append(.number, start: start, end: index, flag: isInteger, number: value)
          return
        }
      }
      var isInteger = true
      if peek() == UInt8(ascii: "-") { index += 1 }
      guard let first = peek(), isDigit(first) else {
        throw error("bad-number", expected: "digit") { [index] _ in
          "a number needs a digit at offset \(index)"
        }
      }
      if first == UInt8(ascii: "0") {
        index += 1
        if let next = peek(), isDigit(next) {
          throw error("bad-number", at: start) { _ in "numbers may not have leading zeros (offset \(start))" }
        }
      } else {
        while let c = peek(), isDigit(c) { index += 1 }
      }
      if peek() == UInt8(ascii: ".") {
        isInteger = false
        index += 1
        guard let c = peek(), isDigit(c) else {
          throw error("bad-number", expected: "digit") { [index] _ in
            "a digit must follow '.' at offset \(index)"
          }
        }
        while let c = peek(), isDigit(c) { index += 1 }
      }
      if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
        isInteger = false
        index += 1
        if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
        guard let c = peek(), isDigit(c) else {
          throw error("bad-number", expected: "digit") { [index] _ in
            "an exponent needs digits at offset \(index)"
          }
        }
        while let c = peek(), isDigit(c) { index += 1 }
      }
      let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
      guard let value = Double(text), value.isFinite else {
        // Cut: the number may be millions of digits long.
        let quoted = Excerpt.quoted(text)
        throw error("bad-number", at: start) { _ in
          "number \(quoted) at offset \(start) is not a finite double"
        }
      }
      _ = tape.append(.number, start: start, end: index, flag: isInteger, number: value)
    }

    /// Parses a string (or key) starting at its opening quote; validates
    /// UTF-8. Returns its entry's index.
    @discardableResult
    mutating func parseString(as kind: Kind) throws(DecodeError) -> Int {
      let open = index
      index += 1
      // Fast path: no escapes, all ASCII (base64 payloads of camera frames
      // are hundreds of KB of exactly that): the string is its bytes.
      var scan = plainRunEnd(from: index)
      if scan < bytes.count, bytes[scan] == UInt8(ascii: "\"") {
        index = scan + 1
        return tape.append(kind, start: open, end: index)
      }
      // Escapes or non-ASCII: the text is decoded into a copy, its plain runs
      // copied whole.
      var utf8: [UInt8] = []
      utf8.reserveCapacity(scan - index + 16)
      while true {
        if index < scan {
          utf8.append(
            contentsOf: UnsafeBufferPointer(rebasing: bytes.assumingMemoryBound(to: UInt8.self)[index..<scan])
          )
          index = scan
        }
        guard index < bytes.count else {
          throw error("truncated", expected: "\"", at: open) { [index] _ in
            "string starting at offset \(open) is not closed before the input ends at offset \(index)"
          }
        }
        let c = bytes[index]
        switch c {
        case UInt8(ascii: "\""):
          index += 1
          let entry = tape.append(kind, start: open, end: index)
          tape.keep(String(decoding: utf8, as: UTF8.self), for: entry)
          return entry
        case UInt8(ascii: "\\"):
          try parseEscape(into: &utf8)
        case 0..<0x20:
          throw error("bad-string", expected: "escaped character") { [index] _ in
            "control byte 0x\(Hex.compact([c])) inside a string at offset \(index)"
          }
        default:
          try copyUTF8Sequence(into: &utf8)
        }
        scan = plainRunEnd(from: index)
      }
    }

    /// Where the run of plain bytes (not a quote, a backslash, a control
    /// byte or non-ASCII) from `start` ends.
    @inline(__always)
    func plainRunEnd(from start: Int) -> Int {
      guard let base = bytes.baseAddress, start < bytes.count else { return start }
      return start + JSONWordScan.plainPrefix(base + start, count: bytes.count - start, asciiOnly: true)
    }

    mutating func parseEscape(into utf8: inout [UInt8]) throws(DecodeError) {
      let escapeStart = index
      index += 1
      guard let c = peek() else {
        throw error("truncated", at: escapeStart) { _ in "escape at offset \(escapeStart) is cut off" }
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
            // Written as it was escaped (\ud800), not as a decimal number.
            let written = String(scalar, radix: 16)
            throw error("bad-string", at: escapeStart) { _ in
              "lone high surrogate \\u\(written) at offset \(escapeStart)"
            }
          }
          index += 2
          let low = try readHex4()
          guard (0xDC00...0xDFFF).contains(low) else {
            throw error("bad-string", at: escapeStart) { _ in
              "high surrogate not followed by a low one at offset \(escapeStart)"
            }
          }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
          let written = String(scalar, radix: 16)
          throw error("bad-string", at: escapeStart) { _ in
            "lone low surrogate \\u\(written) at offset \(escapeStart)"
          }
        }
        if let unicode = Unicode.Scalar(scalar) {
          utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
        }
      default:
        throw error("bad-string", expected: "one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u", at: escapeStart) {
          _ in
          "unknown escape \\\(Scanner.describe(c)) at offset \(escapeStart)"
        }
      }
    }

    mutating func readHex4() throws(DecodeError) -> UInt32 {
      guard index + 4 <= bytes.count else {
        throw error("truncated") { [index] _ in "\\u escape at offset \(index) needs four hex digits" }
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
          throw error("bad-string") { [index] _ in
            "\\u escape has a non-hex \(Scanner.describe(c)) at offset \(index)"
          }
        }
        value = value << 4 | digit
        index += 1
      }
      return value
    }

    /// Copies one multi-byte UTF-8 sequence, rejecting overlongs, surrogates
    /// and code points past U+10FFFF.
    mutating func copyUTF8Sequence(into utf8: inout [UInt8]) throws(DecodeError) {
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
        throw error("bad-utf8") { [index] _ in
          "invalid UTF-8 lead byte 0x\(Hex.compact([lead])) at offset \(index)"
        }
      }
      guard index + count <= bytes.count else {
        throw error("bad-utf8") { [index] _ in "UTF-8 sequence at offset \(index) is cut off" }
      }
      for i in 1..<count {
        let c = bytes[index + i]
        guard c & 0xC0 == 0x80 else {
          throw error("bad-utf8", at: index + i) { [at = index + i] _ in
            "invalid UTF-8 continuation byte 0x\(Hex.compact([c])) at offset \(at)"
          }
        }
        scalar = scalar << 6 | UInt32(c & 0x3F)
      }
      guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
        throw error("bad-utf8") { [index] _ in
          "invalid UTF-8 sequence (overlong or surrogate) at offset \(index)"
        }
      }
      for i in 0..<count { utf8.append(bytes[index + i]) }
      index += count
    }

    // MARK: Helpers

    func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
      while let c = peek(),
        c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r")
          || c == UInt8(ascii: "\t")
      {
        index += 1
      }
    }

    func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
    /// A byte as error text shows it; nil is the end of the input.
    static func describe(_ c: UInt8?) -> String {
      guard let c else { return "end of input" }
      if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
      return "byte 0x\(Hex.compact([c]))"
    }

    /// The error `code` at the current offset. Its text is made only when
    /// read (most errors are only counted: the fuzzer's, a summary line's
    /// code), from values the closure captures and what the next byte is.
    func error(
      _ code: String, expected: String? = nil, _ text: @escaping @Sendable (_ found: String) -> String
    ) -> DecodeError {
      let next = peek()
      return DecodeError(code: code, offset: min(index, bytes.count)) {
        let found = Scanner.describe(next)
        return .init(text(found), expected: expected, found: found)
      }
    }

    /// The error `code` at `offset`, where its text names another offset
    /// than the current one (an escape's or a number's start): an error's
    /// offset is always one its words give. Apart from `error(_:expected:_:)`,
    /// which the parser's hot paths call, so that their code stays as it was.
    @inline(never)
    func error(
      _ code: String, expected: String? = nil, at offset: Int,
      _ text: @escaping @Sendable (_ found: String) -> String
    ) -> DecodeError {
      let next = peek()
      return DecodeError(code: code, offset: min(offset, bytes.count)) {
        let found = Scanner.describe(next)
        return .init(text(found), expected: expected, found: found)
      }
    }
  }
}
