/// A check value computed over bytes of the frame: the receiver recomputes
/// it and refuses a frame where it differs. A spec may accept several
/// algorithms (`variants`): decode takes the first that matches and
/// reports which; encode uses the one asked for (by `craftParameter`), or
/// the first.
public struct SpecCheck: Sendable, Equatable {
  public struct Variant: Sendable, Equatable {
    /// The name output and `craft` use (`xor`, `modbus16lo`).
    public var name: String
    public var algorithm: SpecChecksum

    public init(name: String, algorithm: SpecChecksum) {
      self.name = name
      self.algorithm = algorithm
    }
  }

  public var variants: [Variant]
  /// The first field covered; nil: the frame's first byte.
  public var from: String?
  /// The last field covered; nil: the field just before the check.
  public var through: String?
  /// A field added after the check naming the variant that matched
  /// (`check_variant`); nil: not shown.
  public var reportField: String?
  /// The `craft` parameter choosing the variant (`checksum`); nil: the first.
  public var craftParameter: String?
  /// The decode error's code when no variant matches.
  public var error: String

  public init(
    variants: [Variant], from: String?, through: String?, reportField: String?, craftParameter: String?,
    error: String
  ) {
    self.variants = variants
    self.from = from
    self.through = through
    self.reportField = reportField
    self.craftParameter = craftParameter
    self.error = error
  }
}

/// The check algorithms a spec can name.
public enum SpecChecksum: String, Sendable, Equatable, CaseIterable {
  /// XOR of the bytes.
  case xor
  /// Sum of the bytes, modulo 256.
  case sum
  /// CRC-8: polynomial 07, init 00, not reflected, no final XOR (CRC-8/SMBUS).
  case crc8 = "crc8"
  /// CRC-16/MODBUS: init FFFF, reflected polynomial A001, no final XOR.
  case crc16Modbus = "crc16-modbus"
  /// The low byte of CRC-16/MODBUS.
  case crc16ModbusLow = "crc16-modbus-low"
  /// CRC-32 (ISO-HDLC, as zlib and Ethernet): reflected EDB88320, init and
  /// final XOR FFFFFFFF.
  case crc32 = "crc32"

  /// Bits of the check value.
  public var width: Int {
    switch self {
    case .xor, .sum, .crc8, .crc16ModbusLow: 8
    case .crc16Modbus: 16
    case .crc32: 32
    }
  }
}
