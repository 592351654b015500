import PacketKit

/// What the Rallie app (`sophieluo/rallie`, `BluetoothManager.swift`)
/// makes of a notification from the machine (docs/protocols.md §5 "Rallie
/// app", device-truth `rallie/app-parser.jsonl`). Its parser checks the
/// length, then the header and source, then the check, which is XOR only,
/// and stores whatever code gets through: there is no success rule and
/// no timeout in this build.
public enum RallieAppParser {
  public enum Outcome: Sendable, Equatable {
    /// The app stored this code as its last response.
    case accepted(code: UInt8)
    /// The app dropped the frame and kept its last code.
    case dropped(Drop)
  }

  /// Why the app dropped a frame, in the words of the app-parser log.
  public enum Drop: String, Sendable, Equatable, CaseIterable {
    /// The last byte is not the XOR of the four before it (a MODBUS-low
    /// check included).
    case check
    /// The frame does not start `5A A5 82`.
    case headerOrSource = "header-or-source"
    /// The frame is not exactly 5 bytes.
    case length
  }

  /// The response header the app requires: magic, then the machine's source byte.
  static let header: [UInt8] = RallieMagic.bytes + [RallieSource.response]

  /// The app's outcome for `bytes`, checked in the app's own order. An empty
  /// notification is dropped before the parser runs; it counts as `length`.
  public static func parse(_ bytes: [UInt8]) -> Outcome {
    guard bytes.count == RallieSchema.responseLength else { return .dropped(.length) }
    guard bytes.starts(with: header) else { return .dropped(.headerOrSource) }
    guard RallieCheckVariant.xor.check(bytes[0..<4]) == bytes[4] else { return .dropped(.check) }
    return .accepted(code: bytes[3])
  }
}
