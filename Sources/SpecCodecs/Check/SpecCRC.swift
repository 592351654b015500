/// A CRC in the catalogue's terms (Greg Cook's "Catalogue of parametrised
/// CRC algorithms", after Ross Williams): `width` bits, the polynomial
/// `poly` without its top bit, the register's `initial` value, whether
/// input bytes and the result are reflected, and the final XOR. Computed
/// byte by byte with a table built once.
public struct SpecCRC: Sendable, Equatable {
  public let width: Int
  public let poly: UInt64
  public let initial: UInt64
  public let reflectIn: Bool
  public let reflectOut: Bool
  public let xorOut: UInt64
  private let table: [UInt64]

  public static func == (a: SpecCRC, b: SpecCRC) -> Bool {
    a.width == b.width && a.poly == b.poly && a.initial == b.initial && a.reflectIn == b.reflectIn
      && a.reflectOut == b.reflectOut && a.xorOut == b.xorOut
  }

  /// nil when a value does not fit `width` bits or `width` is not 1…64.
  public init?(width: Int, poly: UInt64, initial: UInt64, reflectIn: Bool, reflectOut: Bool, xorOut: UInt64) {
    guard (1...64).contains(width) else { return nil }
    let mask = Self.mask(width)
    guard poly & ~mask == 0, initial & ~mask == 0, xorOut & ~mask == 0 else { return nil }
    self.init(catalogued: width, poly, initial, reflectIn, reflectOut, xorOut)
  }

  /// A CRC whose parameters are known good (the catalogue's named ones).
  init(
    catalogued width: Int, _ poly: UInt64, _ initial: UInt64, _ reflectIn: Bool, _ reflectOut: Bool,
    _ xorOut: UInt64
  ) {
    self.width = width
    self.poly = poly
    self.initial = initial
    self.reflectIn = reflectIn
    self.reflectOut = reflectOut
    self.xorOut = xorOut
    table = Self.table(width: width, poly: poly, reflected: reflectIn)
  }

  static func mask(_ width: Int) -> UInt64 { width == 64 ? .max : (UInt64(1) << width) - 1 }

  /// The register kept in the direction bytes enter it: reflected
  /// algorithms shift right with the reflected polynomial, the others
  /// left with the polynomial at the register's top (width under 8 is
  /// worked 8 bits wide, as the catalogue's reference code does).
  private static func table(width: Int, poly: UInt64, reflected: Bool) -> [UInt64] {
    if reflected {
      let reflectedPoly = reflect(poly, width)
      return (0..<256).map { byte in
        var crc = UInt64(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ reflectedPoly : crc >> 1 }
        return crc
      }
    }
    let register = max(width, 8)
    let top = UInt64(1) << (register - 1)
    let shiftedPoly = poly << (register - width)
    let registerMask = mask(register)
    return (0..<256).map { byte in
      var crc = UInt64(byte) << (register - 8)
      for _ in 0..<8 {
        crc = crc & top != 0 ? ((crc << 1) ^ shiftedPoly) & registerMask : (crc << 1) & registerMask
      }
      return crc
    }
  }

  static func reflect(_ value: UInt64, _ width: Int) -> UInt64 {
    var out: UInt64 = 0
    var value = value
    for _ in 0..<width {
      out = (out << 1) | (value & 1)
      value >>= 1
    }
    return out
  }

  /// The register after `bytes`, from `start` (a running CRC, so one
  /// over several spans, then `finish`).
  func update(_ start: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var crc = start
    table.withUnsafeBufferPointer { table in
      if reflectIn {
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt64(byte)) & 0xFF)] }
      } else {
        let register = max(width, 8)
        let registerMask = Self.mask(register)
        let shift = register - 8
        for byte in bytes {
          crc = ((crc << 8) & registerMask) ^ table[Int(((crc >> shift) ^ UInt64(byte)) & 0xFF)]
        }
      }
    }
    return crc
  }

  /// The register before any byte.
  var start: UInt64 {
    if reflectIn { return Self.reflect(initial, width) }
    return initial << (max(width, 8) - width)
  }

  /// The check value from the register.
  func finish(_ register: UInt64) -> UInt64 {
    var crc = reflectIn ? register : register >> (max(width, 8) - width)
    if reflectIn != reflectOut { crc = Self.reflect(crc, width) }
    return (crc ^ xorOut) & Self.mask(width)
  }

  public func compute(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    finish(update(start, bytes))
  }

  public func compute(_ bytes: [UInt8]) -> UInt64 {
    bytes.withUnsafeBytes { compute($0) }
  }
}
