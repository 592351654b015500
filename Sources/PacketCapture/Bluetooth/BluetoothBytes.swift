/// Reads for header fields whose length the caller has already checked. An
/// index outside the buffer reads as 0 rather than trapping, so a missed
/// check gives a wrong field, never a crash or an out-of-bounds read.
extension UnsafeRawBufferPointer {
  func btU8(_ index: Int) -> UInt8 {
    index >= 0 && index < count ? self[index] : 0
  }

  func btLE16(_ index: Int) -> UInt16 {
    UInt16(btU8(index)) | UInt16(btU8(index + 1)) << 8
  }

  func btBE16(_ index: Int) -> UInt16 {
    UInt16(btU8(index)) << 8 | UInt16(btU8(index + 1))
  }

  func btLE32(_ index: Int) -> UInt32 {
    UInt32(btLE16(index)) | UInt32(btLE16(index + 2)) << 16
  }

  func btBE32(_ index: Int) -> UInt32 {
    UInt32(btBE16(index)) << 16 | UInt32(btBE16(index + 2))
  }

  /// `length` bytes from `start`, clamped to the buffer.
  func btSlice(_ start: Int, _ length: Int) -> UnsafeRawBufferPointer {
    let lower = Swift.min(Swift.max(start, 0), count)
    let upper = Swift.min(Swift.max(lower + Swift.max(length, 0), lower), count)
    return UnsafeRawBufferPointer(rebasing: self[lower..<upper])
  }

  /// Bytes from `start` to the end, clamped.
  func btSlice(from start: Int) -> UnsafeRawBufferPointer {
    btSlice(start, count - start)
  }
}

enum BluetoothText {
  private static let digits: [Character] = Array("0123456789ABCDEF")

  /// `0x0040`
  static func hex16(_ value: UInt16) -> String {
    var out = "0x"
    for shift in stride(from: 12, through: 0, by: -4) {
      out.append(digits[Int((value >> UInt16(shift)) & 0xF)])
    }
    return out
  }

  /// `0x1B`
  static func hex8(_ value: UInt8) -> String {
    "0x" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 0xF)])
  }

  /// `0x8E89BED6`
  static func hex32(_ value: UInt32) -> String {
    hex16(UInt16(value >> 16)) + String(hex16(UInt16(value & 0xFFFF)).dropFirst(2))
  }

  /// A device address from its six wire bytes (little-endian), written
  /// most significant byte first: `C0:11:22:33:44:55`.
  static func address(_ bytes: UnsafeRawBufferPointer) -> String {
    var out = ""
    for index in stride(from: min(bytes.count, 6) - 1, through: 0, by: -1) {
      let byte = bytes[index]
      out.append(digits[Int(byte >> 4)])
      out.append(digits[Int(byte & 0xF)])
      if index > 0 { out.append(":") }
    }
    return out
  }

  static func addressType(_ type: UInt8) -> String {
    switch type {
    case 0: "public"
    case 1: "random"
    case 2: "public identity"
    case 3: "random identity"
    default: "type \(type)"
    }
  }
}
