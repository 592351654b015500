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

  /// The table again, one per position in a group of four, each entry
  /// already shifted into place; a byte outside the alphabet sets bit 31.
  /// A group is then four loads ORed together, checked with one test.
  private static let groupTables: [UInt32] = {
    var tables = [UInt32](repeating: 1 << 31, count: 4 * 256)
    for (value, char) in alphabet.enumerated() {
      for position in 0..<4 {
        tables[position * 256 + Int(char)] = UInt32(value) << (18 - 6 * UInt32(position))
      }
    }
    return tables
  }()

  static func decode(_ text: [UInt8]) throws(Failure) -> [UInt8] {
    // Fast path: one pass over whole groups into a buffer of the exact size.
    // Anything unusual (a bad character, misplaced padding, a bad length)
    // goes to the careful pass, which names the first offending character.
    if let decoded = text.withUnsafeBufferPointer({ fastDecode($0) }) { return decoded }
    return try carefulDecode(text)
  }

  private static func fastDecode(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard input.count % 4 == 0 else { return nil }
    if input.isEmpty { return [] }
    let equals = UInt8(ascii: "=")
    let padding = input[input.count - 1] == equals ? (input[input.count - 2] == equals ? 2 : 1) : 0
    let count = input.count / 4 * 3 - padding
    var failed = false
    // One spare byte: each group is stored as four bytes, the fourth
    // overwritten by the next group.
    let out = [UInt8](unsafeUninitializedCapacity: count + 1) { buffer, initialized in
      groupTables.withUnsafeBufferPointer { tables in
        let whole = padding == 0 ? input.count : input.count - 4
        var read = 0
        var written = 0
        var marks: UInt32 = 0
        guard let base = buffer.baseAddress else { return }
        let output = UnsafeMutableRawPointer(base)
        while read < whole {
          let group =
            tables[Int(input[read])] | tables[256 + Int(input[read + 1])]
            | tables[512 + Int(input[read + 2])] | tables[768 + Int(input[read + 3])]
          marks |= group
          output.storeBytes(of: (group << 8).bigEndian, toByteOffset: written, as: UInt32.self)
          read += 4
          written += 3
        }
        if padding > 0 {
          let c = padding == 2 ? 0 : tables[512 + Int(input[read + 2])]
          let group = tables[Int(input[read])] | tables[256 + Int(input[read + 1])] | c
          marks |= group
          buffer[written] = UInt8(truncatingIfNeeded: group >> 16)
          if padding == 1 { buffer[written + 1] = UInt8(truncatingIfNeeded: group >> 8) }
        }
        failed = marks & (1 << 31) != 0
      }
      initialized = failed ? 0 : count
    }
    return failed ? nil : out
  }

  private static func carefulDecode(_ text: [UInt8]) throws(Failure) -> [UInt8] {
    let table = Self.table
    // Characters first, so "!!!notbase64" reports its '!' rather than a length.
    var padding = 0
    for (index, char) in text.enumerated() {
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

  /// What a base64 image holds (its size, first and last bytes), checking
  /// every character as `decode` does but writing none of the decoded
  /// bytes: a camera frame's imageData is hundreds of KB, and its summary
  /// needs only these. Equals `FalconEyeImage(decode(text))`.
  static func image(_ text: String) throws(Failure) -> FalconEyeImage {
    var text = text
    let fast = text.withUTF8 { utf8 -> FalconEyeImage? in
      guard utf8.count % 4 == 0, utf8.count >= 4 else { return nil }
      let equals = UInt8(ascii: "=")
      let padding = utf8[utf8.count - 1] == equals ? (utf8[utf8.count - 2] == equals ? 2 : 1) : 0
      let checked = utf8.count - (padding == 0 ? 0 : 4)
      // Every whole group in the alphabet: OR the table entries, test once per 64 characters.
      var marks: UInt8 = 0
      var index = 0
      table.withUnsafeBufferPointer { table in
        while index + 64 <= checked {
          for offset in 0..<64 { marks |= table[Int(utf8[index + offset])] }
          if marks & 0xC0 != 0 { return }
          index += 64
        }
        while index < checked {
          marks |= table[Int(utf8[index])]
          index += 1
        }
      }
      guard marks & 0xC0 == 0 else { return nil }
      // The first group and the last (padded) group decode the head and tail.
      let headGroups = UnsafeBufferPointer(rebasing: utf8[0..<min(utf8.count, 8)])
      let tailGroups = UnsafeBufferPointer(rebasing: utf8[max(0, utf8.count - 8)...])
      guard let head = fastDecode(headGroups), let tail = fastDecode(tailGroups) else { return nil }
      var image = FalconEyeImage(head)
      image.byteCount = utf8.count / 4 * 3 - padding
      image.tail = Array(tail.suffix(2))
      return image
    }
    if let fast { return fast }
    return FalconEyeImage(try carefulDecode(Array(text.utf8)))
  }

  /// Whether `text` is strict base64.
  static func isValid(_ text: String) -> Bool {
    (try? decode(text)) != nil
  }

  /// Two characters for each 12 bits, the first in the low byte: a
  /// group of three bytes is two loads and one four-byte store.
  private static let pairs: [UInt16] = {
    var pairs = [UInt16](repeating: 0, count: 4096)
    for high in 0..<64 {
      for low in 0..<64 { pairs[high << 6 | low] = UInt16(alphabet[high]) | UInt16(alphabet[low]) << 8 }
    }
    return pairs
  }()

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
  /// `input`: six bytes to eight characters at a time while eight can be
  /// loaded, then three to four (a camera frame is a few hundred kilobytes).
  private static func encode(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableRawBufferPointer) {
    pairs.withUnsafeBufferPointer { pairs in
      guard let target = out.baseAddress, let inBase = input.baseAddress else { return }
      let source = UnsafeRawPointer(inBase)
      @inline(__always) func pair(_ bits: UInt64) -> UInt64 {
        UInt64(pairs[Int(truncatingIfNeeded: bits & 0xFFF)])
      }
      @inline(__always) func store(_ group: UInt32, at offset: Int) {
        let four =
          UInt32(pairs[Int(truncatingIfNeeded: group >> 12)])
          | UInt32(pairs[Int(truncatingIfNeeded: group & 0xFFF)]) << 16
        target.storeBytes(of: four.littleEndian, toByteOffset: offset, as: UInt32.self)
      }
      let whole = input.count - input.count % 3
      var read = 0
      var written = 0
      // Two groups from one eight-byte load (its top six bytes).
      while read + 8 <= input.count {
        let word = UInt64(bigEndian: source.loadUnaligned(fromByteOffset: read, as: UInt64.self))
        let eight =
          pair(word >> 52) | pair(word >> 40) << 16 | pair(word >> 28) << 32 | pair(word >> 16) << 48
        target.storeBytes(of: eight.littleEndian, toByteOffset: written, as: UInt64.self)
        read += 6
        written += 8
      }
      // Four bytes loaded for each group of three while a fourth follows.
      while read < whole, read + 4 <= input.count {
        store(
          UInt32(bigEndian: source.loadUnaligned(fromByteOffset: read, as: UInt32.self)) >> 8, at: written)
        read += 3
        written += 4
      }
      // The last whole group, when nothing follows it.
      if read < whole {
        store(UInt32(input[read]) << 16 | UInt32(input[read + 1]) << 8 | UInt32(input[read + 2]), at: written)
        read += 3
        written += 4
      }
      if read < input.count {
        let two = input.count - read == 2
        let group = UInt32(input[read]) << 16 | (two ? UInt32(input[read + 1]) << 8 : 0)
        store(group, at: written)
        if !two { target.storeBytes(of: UInt8(ascii: "="), toByteOffset: written + 2, as: UInt8.self) }
        target.storeBytes(of: UInt8(ascii: "="), toByteOffset: written + 3, as: UInt8.self)
      }
    }
  }

  private static func describe(_ char: UInt8) -> String {
    if char >= 0x21 && char < 0x7F { return "'\(Character(Unicode.Scalar(char)))'" }
    return "byte 0x\(String(char, radix: 16, uppercase: true))"
  }
}
