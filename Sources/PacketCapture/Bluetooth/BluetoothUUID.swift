/// Bluetooth UUIDs as text. Matching uses one canonical form: lower-case
/// 128-bit with dashes, 16- and 32-bit UUIDs expanded with the Bluetooth base
/// UUID `0000xxxx-0000-1000-8000-00805f9b34fb`. Display uses the short form.
public enum BluetoothUUID {
  static let baseSuffix = "-0000-1000-8000-00805f9b34fb"
  private static let digits: [Character] = Array("0123456789abcdef")

  public static func canonical(uuid16: UInt16) -> String {
    canonical(uuid32: UInt32(uuid16))
  }

  public static func canonical(uuid32: UInt32) -> String {
    var out = ""
    out.reserveCapacity(36)
    for shift in stride(from: 28, through: 0, by: -4) {
      out.append(digits[Int((uuid32 >> UInt32(shift)) & 0xF)])
    }
    return out + baseSuffix
  }

  /// A UUID from its wire bytes (little-endian, as ATT carries it): 2, 4 or
  /// 16 bytes; nil for any other length.
  public static func canonical(littleEndian bytes: UnsafeRawBufferPointer) -> String? {
    switch bytes.count {
    case 2: return canonical(uuid16: UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
    case 4:
      return canonical(
        uuid32: UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
          | UInt32(bytes[3]) << 24)
    case 16:
      var out = ""
      out.reserveCapacity(36)
      for index in 0..<16 {
        if index == 4 || index == 6 || index == 8 || index == 10 { out.append("-") }
        let byte = bytes[15 - index]
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
      }
      return out
    default: return nil
    }
  }

  public static func canonical(littleEndian bytes: [UInt8]) -> String? {
    bytes.withUnsafeBytes { canonical(littleEndian: $0) }
  }

  /// `0x2902` for a UUID built on the base UUID, the full UUID otherwise.
  public static func shortForm(_ uuid: String) -> String {
    guard uuid.count == 36, uuid.hasSuffix(baseSuffix), uuid.hasPrefix("0000") else { return uuid }
    return "0x" + uuid.dropFirst(4).prefix(4)
  }

  /// Reads a UUID a person wrote: `0x2902`, `2902`, `0000fff1`, or a 128-bit
  /// UUID with or without dashes, any case. nil when the text is not a UUID
  /// (a name, say).
  public static func parse(_ text: String) -> String? {
    var hex = text.lowercased()
    if hex.hasPrefix("0x") { hex.removeFirst(2) }
    let isHex = hex.allSatisfy { $0.isHexDigit || $0 == "-" }
    guard isHex else { return nil }
    let plain = hex.filter { $0 != "-" }
    switch plain.count {
    case 4, 8:
      guard !hex.contains("-"), let value = UInt32(plain, radix: 16) else { return nil }
      return canonical(uuid32: value)
    case 32:
      var out = ""
      for (index, character) in plain.enumerated() {
        if index == 8 || index == 12 || index == 16 || index == 20 { out.append("-") }
        out.append(character)
      }
      return out
    default: return nil
    }
  }

  // GATT declarations and descriptors the decoder reads discovery by.
  static let primaryService = canonical(uuid16: 0x2800)
  static let secondaryService = canonical(uuid16: 0x2801)
  static let include = canonical(uuid16: 0x2802)
  static let characteristic = canonical(uuid16: 0x2803)
}
