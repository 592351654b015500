import PacketKit

/// How the Rallie app (`sophieluo/rallie`) builds a command (docs/protocols.md §5
/// "Rallie app", device-truth `rallie/app-encoder.jsonl`): its inputs are
/// bytes, clamped to the documented ranges (wheels and feed 100, pitch and
/// yaw 90, control 1) rather than refused, and the check is always XOR.
/// The court zones' values come from the app's lookup table, which is not
/// documented, so they are not here.
public enum RallieAppEncoder {
  /// The app writes at most one command every 3.0 s (its `commandInterval`).
  public static let commandInterval = 3.0

  /// The command the app writes for these inputs.
  public static func command(
    upper: UInt8, lower: UInt8, pitch: UInt8, yaw: UInt8, feed: UInt8, control: UInt8
  ) -> RallieMessage {
    let command = RallieCommand(
      upperWheel: min(100, upper), lowerWheel: min(100, lower), pitch: min(90, pitch), yaw: min(90, yaw),
      feed: min(100, feed), control: min(RallieControl.start, control))
    return RallieMessage(.command(command), checkVariant: .xor)
  }
}
