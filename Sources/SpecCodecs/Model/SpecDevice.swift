/// How the protocol's device answers, for `emulate` (and for what
/// `analyze` predicts): rules tried in order on each message it gets; the
/// first that holds sends its reply. A frame the device cannot decode, or
/// whose check is not the variant it speaks, gets no answer.
public struct SpecDevice: Sendable, Equatable {
  /// The device in the protocol's words ("machine").
  public var name: String
  /// Where `emulate` listens for it: `udp`.
  public var listens: [String]
  /// The check variant setting (`--checksum`): the name of a check field's
  /// craft parameter; the device takes frames checked with that variant
  /// only and answers in it.
  public var checkSetting: String?
  public var replies: [SpecReply]

  public init(name: String, listens: [String], checkSetting: String?, replies: [SpecReply]) {
    self.name = name
    self.listens = listens
    self.checkSetting = checkSetting
    self.replies = replies
  }
}

/// "Answer message X (when its fields say …) with message Y with fields …".
public struct SpecReply: Sendable, Equatable {
  /// The message kind answered.
  public var to: String
  /// Field values the message must have (enum case names or numbers).
  public var when: [String: SpecLiteral]
  /// nil: any; true: only a message that decoded with a warning (a value
  /// out of range, an unknown enum value); false: only one without.
  public var warnings: Bool?
  /// The message kind sent back; nil: no answer.
  public var send: String?
  /// Its field values; the rest take their defaults.
  public var with: [String: SpecLiteral]
  /// Fields copied from the message answered (by name in both).
  public var copy: [String]
  public var line: Int

  public init(
    to: String, when: [String: SpecLiteral], warnings: Bool?, send: String?, with: [String: SpecLiteral],
    copy: [String], line: Int
  ) {
    self.to = to
    self.when = when
    self.warnings = warnings
    self.send = send
    self.with = with
    self.copy = copy
    self.line = line
  }
}
