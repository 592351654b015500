/// Why an expression does not parse: the words and the column (1-based)
/// in the expression's text.
struct KsExpressionError: Error, Sendable {
  var text: String
  var column: Int
}

/// A token of the expression language.
enum KsToken: Sendable, Equatable {
  case integer(Int64)
  case float(Double)
  case string([UInt8])
  case name(String)
  /// An operator or punctuation: `+`, `::`, `<=`, `(`, `?` ….
  case symbol(String)
  case end
}

/// Splits an expression's text into tokens. Bounded: the text is at most
/// `maxLength` bytes, so the tokens are too.
struct KsLexer {
  static let maxLength = 4096

  private let bytes: [UInt8]
  private var index = 0

  init(_ text: String) {
    bytes = Array(text.utf8)
  }

  static func tokens(_ text: String) throws(KsExpressionError) -> [(token: KsToken, column: Int)] {
    guard text.utf8.count <= maxLength else {
      throw KsExpressionError(text: "an expression longer than \(maxLength) bytes", column: 1)
    }
    var lexer = KsLexer(text)
    var tokens: [(KsToken, Int)] = []
    while true {
      lexer.skipSpace()
      let column = lexer.index + 1
      let token = try lexer.next()
      tokens.append((token, column))
      if token == .end { return tokens }
    }
  }

  private mutating func skipSpace() {
    while index < bytes.count,
      bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A
        || bytes[index] == 0x0D
    {
      index += 1
    }
  }

  private static let symbols = [
    "::", "<<", ">>", "<=", ">=", "==", "!=", "+", "-", "*", "/", "%", "&", "|", "^", "~", "<", ">", "(", ")",
    "[", "]", ".", ",", "?", ":",
  ]

  private mutating func next() throws(KsExpressionError) -> KsToken {
    guard index < bytes.count else { return .end }
    let byte = bytes[index]
    if Self.isDigit(byte) { return try number() }
    if Self.isNameStart(byte) {
      let start = index
      while index < bytes.count, Self.isNameStart(bytes[index]) || Self.isDigit(bytes[index]) { index += 1 }
      return .name(String(decoding: bytes[start..<index], as: UTF8.self))
    }
    if byte == UInt8(ascii: "\"") { return .string(try doubleQuoted()) }
    if byte == UInt8(ascii: "'") {
      let start = index + 1
      guard let close = bytes[start...].firstIndex(of: UInt8(ascii: "'")) else {
        throw KsExpressionError(text: "a string that is not closed", column: index + 1)
      }
      index = close + 1
      return .string(Array(bytes[start..<close]))
    }
    for symbol in Self.symbols {
      let utf8 = Array(symbol.utf8)
      if index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 {
        index += utf8.count
        return .symbol(symbol)
      }
    }
    throw KsExpressionError(
      text: "unexpected '\(String(decoding: [byte], as: UTF8.self))'", column: index + 1)
  }

  static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  static func isNameStart(_ byte: UInt8) -> Bool {
    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
  }

  private mutating func number() throws(KsExpressionError) -> KsToken {
    let start = index
    let column = index + 1
    var radix = 10
    if bytes[index] == 0x30, index + 1 < bytes.count {
      switch bytes[index + 1] | 0x20 {
      case UInt8(ascii: "x"): radix = 16
      case UInt8(ascii: "b"): radix = 2
      case UInt8(ascii: "o"): radix = 8
      default: break
      }
      if radix != 10 { index += 2 }
    }
    var digits: [UInt8] = []
    var isFloat = false
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "_") {
        index += 1
        continue
      }
      let lower = byte | 0x20
      let isHexDigit = (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "f"))
      if Self.isDigit(byte) || (radix == 16 && isHexDigit) {
        digits.append(byte)
      } else if radix == 10, byte == UInt8(ascii: "."), index + 1 < bytes.count,
        Self.isDigit(bytes[index + 1])
      {
        isFloat = true
        digits.append(byte)
      } else if radix == 10, lower == UInt8(ascii: "e"), !digits.isEmpty {
        isFloat = true
        digits.append(byte)
        if index + 1 < bytes.count,
          bytes[index + 1] == UInt8(ascii: "+") || bytes[index + 1] == UInt8(ascii: "-")
        {
          index += 1
          digits.append(bytes[index])
        }
      } else {
        break
      }
      index += 1
    }
    let text = String(decoding: digits, as: UTF8.self)
    if isFloat {
      guard let value = Double(text), value.isFinite else {
        throw KsExpressionError(
          text: "'\(String(decoding: bytes[start..<index], as: UTF8.self))' is not a number", column: column)
      }
      return .float(value)
    }
    guard !text.isEmpty, let magnitude = UInt64(text, radix: radix) else {
      throw KsExpressionError(
        text: "'\(String(decoding: bytes[start..<index], as: UTF8.self))' is not a whole number of 64 bits",
        column: column)
    }
    // Above Int64.max: the bits of a u8 constant (0xffff_ffff_ffff_ffff).
    return .integer(Int64(bitPattern: magnitude))
  }

  /// A double-quoted string with the user guide's escapes.
  private mutating func doubleQuoted() throws(KsExpressionError) -> [UInt8] {
    let column = index + 1
    index += 1
    var out: [UInt8] = []
    while index < bytes.count {
      let byte = bytes[index]
      index += 1
      if byte == UInt8(ascii: "\"") { return out }
      guard byte == UInt8(ascii: "\\") else {
        out.append(byte)
        continue
      }
      guard index < bytes.count else { break }
      let escape = bytes[index]
      index += 1
      switch escape {
      case UInt8(ascii: "a"): out.append(7)
      case UInt8(ascii: "b"): out.append(8)
      case UInt8(ascii: "t"): out.append(9)
      case UInt8(ascii: "n"): out.append(10)
      case UInt8(ascii: "v"): out.append(11)
      case UInt8(ascii: "f"): out.append(12)
      case UInt8(ascii: "r"): out.append(13)
      case UInt8(ascii: "e"): out.append(27)
      case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"): out.append(escape)
      case UInt8(ascii: "u"):
        guard index + 4 <= bytes.count,
          let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16),
          let scalar = Unicode.Scalar(code)
        else {
          throw KsExpressionError(text: "\\u needs four hex digits", column: index - 1)
        }
        index += 4
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
      case UInt8(ascii: "0")...UInt8(ascii: "7"):
        var code = Int(escape - 0x30)
        var count = 1
        while count < 3, index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x37 {
          code = code * 8 + Int(bytes[index] - 0x30)
          index += 1
          count += 1
        }
        guard code < 256 else { throw KsExpressionError(text: "an octal escape above \\377", column: index) }
        out.append(UInt8(code))
      default:
        throw KsExpressionError(
          text: "unknown escape '\\\(String(decoding: [escape], as: UTF8.self))'", column: index - 1)
      }
    }
    throw KsExpressionError(text: "a string that is not closed", column: column)
  }
}
