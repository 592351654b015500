import PacketKit

/// One message kind of a JSON protocol: its name, its keys, how it is
/// crafted and how often it comes.
public struct SpecMessageKind: Sendable {
  /// The protocol's name (`set_servo_ch0`).
  public var name: String
  public var line: Int
  /// Other names `craft` takes (`servo`).
  public var craftNames: [String]
  public var summary: String
  public var direction: MessageSchema.Direction
  /// Its keys.
  public var fields: [SpecField]
  /// `probe`'s score for a frame of this kind that decodes cleanly; nil:
  /// 100 when a check byte verified it, else 80.
  public var probe: Int?
  /// How often it is expected (`analyze` judges the series).
  public var rate: SpecRate?

  public init(
    name: String, line: Int, craftNames: [String], summary: String, direction: MessageSchema.Direction,
    fields: [SpecField], probe: Int?, rate: SpecRate?
  ) {
    self.name = name
    self.line = line
    self.craftNames = craftNames
    self.summary = summary
    self.direction = direction
    self.fields = fields
    self.probe = probe
    self.rate = rate
  }
}

/// What decode does with a body that is longer or shorter than the
/// message's fields take (a length field that says so, or a frame that
/// ends elsewhere).
public enum SpecSizeMismatch: Sendable, Equatable {
  /// Structural damage: a decode error of this code (at the length field
  /// that governs the body, else where the body ends).
  case error(code: String)
  /// The frame decodes as the unknown message, with this warning (a
  /// receiver that ignores it).
  case unknown(warning: String, text: String?)
  /// Extra bytes are kept as a byte-string field of this name, with this
  /// warning (a receiver that acts on it all the same); too few is damage.
  case keep(field: String, warning: String, text: String?)
}

/// What a frame of an unknown kind decodes as.
public struct SpecUnknownMessage: Sendable, Equatable {
  /// The message name output shows (`unknown`).
  public var name: String
  /// The warning's code (`unknown-msg-type`).
  public var warning: String
  public var text: String?
  /// The name of the byte-string field holding its body, shown when not empty.
  public var bodyField: String

  public init(name: String, warning: String, text: String?, bodyField: String) {
    self.name = name
    self.warning = warning
    self.text = text
    self.bodyField = bodyField
  }
}

/// A message kind's expected rate.
public struct SpecRate: Sendable, Equatable {
  /// As people say it ("50 Hz", "one every 2–9 s").
  public var text: String
  public var lowHz: Double
  public var highHz: Double
  /// A slow sender judged per interval (every interval within the bounds).
  public var perInterval: Bool
  /// The finding's rule name, after the codec's (`servo-rate`).
  public var rule: String

  public init(text: String, lowHz: Double, highHz: Double, perInterval: Bool, rule: String) {
    self.text = text
    self.lowHz = lowHz
    self.highHz = highHz
    self.perInterval = perInterval
    self.rule = rule
  }
}
