import PacketKit

/// A Rider motor command (docs/protocols.md §1), in one of its three dialects.
public enum RiderMessage: Sendable, Equatable {
  /// The JSON the app really sends: `{"left":…, "right":…, "timestamp":…}`.
  case drive(RiderDrive)
  /// The documented ASCII form `left,right,direction`.
  case legacy(RiderLegacy)
  /// The unmerged branch's JSON: `{"command":…, "speed":…, "direction":…, "timestamp":…}`.
  case move(RiderMove)
}

/// `drive`: motor speeds in percent, −100…100 (the robot takes `int()` of
/// them and clamps to ±100).
public struct RiderDrive: Sendable, Equatable {
  public var left: Double
  public var right: Double
  /// Unix seconds; the robot ignores it, a decoder uses it for delay and staleness.
  public var timestamp: Double?
  /// Keys the robot ignores, kept in wire order so re-encoding keeps them.
  public var extraKeys: [RiderExtraKey]

  public init(left: Double, right: Double, timestamp: Double? = nil, extraKeys: [RiderExtraKey] = []) {
    self.left = left
    self.right = right
    self.timestamp = timestamp
    self.extraKeys = extraKeys
  }
}

/// `legacy`: `left,right,direction`, all integers.
public struct RiderLegacy: Sendable, Equatable {
  /// −100…100.
  public var left: Int
  /// −100…100.
  public var right: Int
  /// A `RiderLegacyDirection`.
  public var direction: Int

  public init(left: Int, right: Int, direction: Int = RiderLegacyDirection.straight) {
    self.left = left
    self.right = right
    self.direction = direction
  }
}

/// `move`: a command word, speed and direction, each −100…100.
public struct RiderMove: Sendable, Equatable {
  /// `RiderMoveCommand.move` or `.stop`; anything else decodes with a warning.
  public var command: String
  public var speed: Double
  public var direction: Double
  public var timestamp: Double?
  public var extraKeys: [RiderExtraKey]

  public init(
    command: String, speed: Double, direction: Double, timestamp: Double? = nil,
    extraKeys: [RiderExtraKey] = []
  ) {
    self.command = command
    self.speed = speed
    self.direction = direction
    self.timestamp = timestamp
    self.extraKeys = extraKeys
  }
}

/// A key of a JSON command that the robot ignores, with its value.
public struct RiderExtraKey: Sendable, Equatable {
  public var name: String
  public var value: FieldValue

  public init(_ name: String, _ value: FieldValue) {
    self.name = name
    self.value = value
  }
}

/// `direction` values of the legacy text form.
public enum RiderLegacyDirection {
  public static let straight = 0
  public static let left = 1
  public static let right = 2
}

/// `command` words of the `move` variant.
public enum RiderMoveCommand {
  public static let move = "move"
  public static let stop = "stop"
}
