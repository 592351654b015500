import PacketKit

/// A check a spec can name: XOR or sum of the bytes, a CRC of any
/// parameters, or the low byte of one (Rallie's MODBUS-low).
public enum SpecCheckAlgorithm: Sendable, Equatable {
  case xor
  /// The bytes' sum, modulo 256.
  case sum
  case crc(SpecCRC, name: String)
  case lowByte(SpecCRC, name: String)

  /// The named algorithms, by the catalogue's names (lower case, with the
  /// short forms pktbench's first spec files used).
  public static let named: [(names: [String], algorithm: SpecCheckAlgorithm)] = [
    (["xor"], .xor),
    (["sum"], .sum),
    (["crc8", "crc-8", "crc-8/smbus"], crc(8, 0x07, 0x00, false, false, 0x00, "CRC-8")),
    (["crc16-modbus", "crc-16/modbus"], crc(16, 0x8005, 0xFFFF, true, true, 0, "CRC-16/MODBUS")),
    (["crc16-modbus-low"], .lowByte(crc16Modbus, name: "MODBUS-low")),
    (["crc16-mcrf4xx", "crc-16/mcrf4xx"], crc(16, 0x1021, 0xFFFF, true, true, 0, "CRC-16/MCRF4XX")),
    (
      ["crc16-ccitt-false", "crc-16/ccitt-false", "crc-16/ibm-3740"],
      crc(16, 0x1021, 0xFFFF, false, false, 0, "CRC-16/CCITT-FALSE")
    ),
    (["crc16-xmodem", "crc-16/xmodem"], crc(16, 0x1021, 0, false, false, 0, "CRC-16/XMODEM")),
    (["crc16-kermit", "crc-16/kermit"], crc(16, 0x1021, 0, true, true, 0, "CRC-16/KERMIT")),
    (
      ["crc32", "crc-32", "crc-32/iso-hdlc"],
      crc(32, 0x04C1_1DB7, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF, "CRC-32")
    ),
    (
      ["crc32c", "crc-32c", "crc-32/iscsi"],
      crc(32, 0x1EDC_6F41, 0xFFFF_FFFF, true, true, 0xFFFF_FFFF, "CRC-32C")
    ),
  ]

  private static let crc16Modbus = SpecCRC(catalogued: 16, 0x8005, 0xFFFF, true, true, 0)

  private static func crc(
    _ width: Int, _ poly: UInt64, _ initial: UInt64, _ refin: Bool, _ refout: Bool, _ xorOut: UInt64,
    _ name: String
  ) -> SpecCheckAlgorithm {
    .crc(SpecCRC(catalogued: width, poly, initial, refin, refout, xorOut), name: name)
  }

  public static func named(_ name: String) -> SpecCheckAlgorithm? {
    let lower = name.lowercased()
    return named.first { $0.names.contains(lower) }?.algorithm
  }

  public static var names: [String] { named.map { $0.names[0] } }

  /// Bits of the check value.
  public var width: Int {
    switch self {
    case .xor, .sum, .lowByte: 8
    case .crc(let crc, _): crc.width
    }
  }

  /// How texts name it.
  public var label: String {
    switch self {
    case .xor: "XOR"
    case .sum: "sum"
    case .crc(_, let name), .lowByte(_, let name): name
    }
  }

  /// The running state before any byte.
  var start: UInt64 {
    switch self {
    case .xor, .sum: 0
    case .crc(let crc, _), .lowByte(let crc, _): crc.start
    }
  }

  func update(_ state: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
    switch self {
    case .xor:
      var value = UInt8(truncatingIfNeeded: state)
      for byte in bytes { value ^= byte }
      return UInt64(value)
    case .sum:
      var value = UInt8(truncatingIfNeeded: state)
      for byte in bytes { value &+= byte }
      return UInt64(value)
    case .crc(let crc, _), .lowByte(let crc, _): return crc.update(state, bytes)
    }
  }

  func finish(_ state: UInt64) -> UInt64 {
    switch self {
    case .xor, .sum: state
    case .crc(let crc, _): crc.finish(state)
    case .lowByte(let crc, _): crc.finish(state) & 0xFF
    }
  }

  /// The check of `bytes`, then `extra` (a per-message byte, as MAVLink
  /// adds its CRC_EXTRA after the payload).
  public func compute(_ bytes: UnsafeRawBufferPointer, extra: UInt8? = nil) -> UInt64 {
    var state = update(start, bytes)
    if var extra {
      withUnsafeBytes(of: &extra) { state = update(state, $0) }
    }
    return finish(state)
  }

  public func compute(_ bytes: [UInt8], extra: UInt8? = nil) -> UInt64 {
    bytes.withUnsafeBytes { compute($0, extra: extra) }
  }
}

/// A check field: the receiver recomputes it over the bytes it covers and
/// refuses a frame where it differs. Several variants may be accepted
/// (Rallie's XOR or MODBUS-low): decode takes the first that matches and
/// says which; craft writes the one asked for, or the first.
struct KsyCheck: Sendable {
  struct Variant: Sendable {
    var name: String
    var algorithm: SpecCheckAlgorithm
  }

  var variants: [Variant]
  /// The first attribute covered (nil: the frame's first byte), and the
  /// last (nil: the one before the check).
  var from: String?
  var through: String?
  /// A byte added after the covered ones, by expression (MAVLink's
  /// CRC_EXTRA of the message id).
  var extra: KsyExpression?
  /// A field added after the check naming the variant that matched.
  var reportField: String?
  /// The craft parameter choosing the variant.
  var craftParameter: String?
  var error: String
  var line: Int
}
