import CSIMD
import PacketKit

/// Strict base64: the standard alphabet, padding required, no white space.
///
/// pktbench decodes base64 itself rather than with Foundation's
/// `Data(base64Encoded:)` because a decode error must say which character is
/// wrong, and Foundation only says "nil".
enum FalconEyeBase64 {
  /// Why a text is not strict base64, and at which character (an index into
  /// the text's UTF-8 bytes).
  struct Failure: Error, Equatable {
    var index: Int
    var reason: String
  }

  private static let alphabet: [UInt8] = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// 0xFF marks a byte outside the alphabet; `=` is handled on its own.
  private static let table: [UInt8] = {
    var table = [UInt8](repeating: 0xFF, count: 256)
    for (value, char) in alphabet.enumerated() { table[Int(char)] = UInt8(value) }
    return table
  }()

  static func decode(_ text: [UInt8]) throws(Failure) -> [UInt8] {
    // Fast path: one pass over whole groups into a buffer of the exact size.
    // Anything unusual (a bad character, misplaced padding, a bad length)
    // goes to the careful pass, which names the first offending character.
    if let decoded = text.withUnsafeBufferPointer({ fastDecode($0) }) { return decoded }
    return try carefulDecode(text)
  }

  /// The whole groups by the C kernel (AVX2 or SSSE3 on x86_64), a padded last
  /// group here; nil for anything the careful pass must explain.
  private static func fastDecode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard input.count % 4 == 0 else { return nil }
    guard input.count > 0, let base = input.baseAddress else { return [] }
    let equals = UInt8(ascii: "=")
    let padding = input[input.count - 1] == equals ? (input[input.count - 2] == equals ? 2 : 1) : 0
    let whole = padding == 0 ? input.count : input.count - 4
    let count = input.count / 4 * 3 - padding
    var failed = false
    let out = [UInt8].written(count: count) { buffer in
      guard let output = buffer.baseAddress else { return 0 }
      failed = csimd_base64_decode(base, whole, output) == 0
      if !failed, padding > 0 {
        // "xx==" or "xxx=": the characters before the padding in the alphabet.
        let a = table[Int(input[whole])]
        let b = table[Int(input[whole + 1])]
        let c = padding == 2 ? 0 : table[Int(input[whole + 2])]
        failed = a == 0xFF || b == 0xFF || c == 0xFF
        let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
        output[whole / 4 * 3] = UInt8(truncatingIfNeeded: group >> 16)
        if padding == 1 { output[whole / 4 * 3 + 1] = UInt8(truncatingIfNeeded: group >> 8) }
      }
      return failed ? 0 : count
    }
    return failed ? nil : out
  }

  private static func carefulDecode(_ text: [UInt8]) throws(Failure) -> [UInt8] {
    let table = Self.table
    // Characters first, so "!!!notbase64" reports its '!' rather than a length.
    // Those before the first outside the alphabet are found by the kernel
    // (a mutated camera frame's bad character may be far into it).
    let checked = text.withUnsafeBufferPointer { text in
      text.baseAddress.map { csimd_base64_alphabet_prefix($0, text.count) } ?? 0
    }
    var padding = 0
    for index in checked..<text.count {
      let char = text[index]
      if char == UInt8(ascii: "=") {
        // Padding may only end the text: "xx==" or "xxx=".
        let fromEnd = text.count - index
        guard fromEnd <= 2, text.count % 4 == 0 else {
          throw Failure(index: index, reason: "'=' padding may only end the text")
        }
        if fromEnd == 2, text.last != UInt8(ascii: "=") {
          throw Failure(index: index, reason: "'=' padding may only end the text")
        }
        if padding == 0 { padding = fromEnd }
        continue
      }
      guard table[Int(char)] != 0xFF else {
        throw Failure(index: index, reason: "\(describe(char)) is not a base64 character")
      }
    }
    guard text.count % 4 == 0 else {
      throw Failure(
        index: text.count,
        reason: "\(text.count) characters is not a multiple of 4: '=' padding is missing")
    }
    var out: [UInt8] = []
    out.reserveCapacity(text.count / 4 * 3)
    var index = 0
    while index + 4 <= text.count {
      let a = UInt32(table[Int(text[index])])
      let b = UInt32(table[Int(text[index + 1])])
      let cPad = text[index + 2] == UInt8(ascii: "=")
      let dPad = text[index + 3] == UInt8(ascii: "=")
      let c = cPad ? 0 : UInt32(table[Int(text[index + 2])])
      let d = dPad ? 0 : UInt32(table[Int(text[index + 3])])
      let group = a << 18 | b << 12 | c << 6 | d
      out.append(UInt8(truncatingIfNeeded: group >> 16))
      if !cPad { out.append(UInt8(truncatingIfNeeded: group >> 8)) }
      if !dPad { out.append(UInt8(truncatingIfNeeded: group)) }
      index += 4
    }
    return out
  }

  /// `decode` of text read in place (a payload string's bytes on the wire).
  static func decode(_ text: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
    if let decoded = fastDecode(text.assumingMemoryBound(to: UInt8.self)) { return decoded }
    return try carefulDecode(Array(text))
  }

  static func decode(_ text: String) throws(Failure) -> [UInt8] {
    var text = text
    if let decoded = text.withUTF8({ fastDecode($0) }) { return decoded }
    return try carefulDecode(Array(text.utf8))
  }

  /// Whether base64 `text` (which decodes) is what encoding its bytes gives:
  /// the bits a padded last group does not use are zero. The server decodes
  /// "/9j/2R==" as it does "/9j/2Q==", but only the second is canonical.
  static func isCanonical(_ text: UnsafeRawBufferPointer) -> Bool {
    let count = text.count
    guard count >= 4, text[count - 1] == UInt8(ascii: "=") else { return true }
    if text[count - 2] == UInt8(ascii: "=") { return table[Int(text[count - 3])] & 0x0F == 0 }
    return table[Int(text[count - 2])] & 0x03 == 0
  }

  /// Whether `text` is strict base64.
  static func isValid(_ text: String) -> Bool {
    (try? decode(text)) != nil
  }

  /// The base64 text of `bytes`, made in the string's storage.
  static func encode(_ bytes: [UInt8]) -> String {
    String(unsafeUninitializedCapacity: encodedCount(bytes.count)) { out in
      bytes.withUnsafeBufferPointer { encode($0, into: UnsafeMutableRawBufferPointer(out)) }
      return encodedCount(bytes.count)
    }
  }

  /// The base64 text of `bytes` appended to `writer` as it is (base64 has
  /// nothing JSON escapes), with no string in between.
  static func encode(_ bytes: UnsafeRawBufferPointer, into writer: inout JSONWriter) {
    writer.append(count: encodedCount(bytes.count)) { out in
      encode(bytes.assumingMemoryBound(to: UInt8.self), into: out)
    }
  }

  static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

  /// Fills `out` (`encodedCount(input.count)` bytes) with the base64 of
  /// `input`, by the C kernel (AVX2 on x86_64: 24 bytes to 32
  /// characters a step; a camera frame is a few hundred kilobytes).
  static func encode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) {
    guard let target = out.baseAddress, let source = input.baseAddress else { return }
    csimd_base64_encode(source, input.count, target.assumingMemoryBound(to: UInt8.self))
  }

  private static func describe(_ char: UInt8) -> String {
    if char >= 0x21 && char < 0x7F { return "'\(Character(Unicode.Scalar(char)))'" }
    return "byte 0x\(String(char, radix: 16, uppercase: true))"
  }
}
