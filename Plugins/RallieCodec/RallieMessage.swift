import PacketKit

/// A Rallie v0.3 frame (docs/protocols.md §3): a 10-byte `command` from the app or
/// a 5-byte `response` from the machine, and the check variant it carried.
public struct RallieMessage: Sendable, Equatable {
  public enum Body: Sendable, Equatable {
    case command(RallieCommand)
    case response(RallieResponse)
  }

  public var body: Body
  /// Which check the frame carried; kept so re-encoding a decoded frame
  /// gives the same bytes.
  public var checkVariant: RallieCheckVariant

  public init(_ body: Body, checkVariant: RallieCheckVariant = .xor) {
    self.body = body
    self.checkVariant = checkVariant
  }
}

/// The `command` frame: `5A A5 83 upper lower pitch yaw feed control check`.
public struct RallieCommand: Sendable, Equatable {
  /// 0x83 on the wire; anything else decodes with a warning.
  public var source: UInt8
  /// Upper wheel speed, 0…100 %.
  public var upperWheel: UInt8
  /// Lower wheel speed, 0…100 %.
  public var lowerWheel: UInt8
  /// 0…90 °.
  public var pitch: UInt8
  /// 0…90 °.
  public var yaw: UInt8
  /// Ball feed rate, 0…100 %.
  public var feed: UInt8
  /// `RallieControl.stop` or `.start`; other values decode as unknown(n).
  public var control: UInt8

  public init(
    upperWheel: UInt8, lowerWheel: UInt8, pitch: UInt8, yaw: UInt8, feed: UInt8,
    control: UInt8, source: UInt8 = RallieSource.command
  ) {
    self.source = source
    self.upperWheel = upperWheel
    self.lowerWheel = lowerWheel
    self.pitch = pitch
    self.yaw = yaw
    self.feed = feed
    self.control = control
  }
}

/// The `response` frame: `5A A5 82 code check`.
public struct RallieResponse: Sendable, Equatable {
  /// 0x82 on the wire; anything else decodes with a warning.
  public var source: UInt8
  /// A `RallieResponseCode`; other values decode as unknown(n).
  public var code: UInt8

  public init(code: UInt8, source: UInt8 = RallieSource.response) {
    self.source = source
    self.code = code
  }
}

/// How the last byte is computed over the bytes before it. v0.3 uses XOR;
/// later firmware sends the low byte of CRC-16/MODBUS instead.
public enum RallieCheckVariant: String, Sendable, Equatable, CaseIterable {
  case xor
  case modbus16lo

  /// The check byte over `bytes` (every byte before the check).
  public func check<C: Collection>(_ bytes: C) -> UInt8 where C.Element == UInt8 {
    switch self {
    case .xor: Checksums.xor(bytes)
    case .modbus16lo: UInt8(truncatingIfNeeded: Checksums.crc16Modbus(bytes))
    }
  }

  /// The raw number of the `checksum` craft parameter and `check_variant` field.
  public var raw: Int64 {
    switch self {
    case .xor: 0
    case .modbus16lo: 1
    }
  }

  /// How error texts name it.
  var label: String {
    switch self {
    case .xor: "XOR"
    case .modbus16lo: "MODBUS-low"
    }
  }
}

/// The frame's first two bytes.
public enum RallieMagic {
  public static let bytes: [UInt8] = [0x5A, 0xA5]
}

/// The `source` byte: who sent the frame.
public enum RallieSource {
  public static let command: UInt8 = 0x83
  public static let response: UInt8 = 0x82
}

/// `control` values of a command.
public enum RallieControl {
  public static let stop: UInt8 = 0
  public static let start: UInt8 = 1
}

/// `code` values of a response.
public enum RallieResponseCode {
  public static let rejected: UInt8 = 0
  /// The machine started.
  public static let accepted: UInt8 = 1
  public static let completed: UInt8 = 2
}
