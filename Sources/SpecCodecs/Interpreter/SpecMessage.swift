/// A message of a spec codec: its kind and the value of every field of its
/// layout, enough to write the same bytes again. What a Swift codec keeps
/// in its own types (`LegCtrlMessage`), a spec codec keeps here.
public struct SpecMessage: Sendable, Equatable {
  /// The index of its kind in `Spec.messages`; `unknownKind` for the
  /// spec's unknown message.
  public var kind: Int
  /// The header's values, then the message's own, then the trailer's, in
  /// layout order (a JSON message: its keys in the spec's order).
  public var header: [SpecValue]
  public var body: [SpecValue]
  public var trailer: [SpecValue]
  /// The unknown message's body bytes, or bytes kept after a body (a
  /// `size-mismatch: keep`).
  public var extra: [UInt8]

  public static let unknownKind = -1

  public init(kind: Int, header: [SpecValue], body: [SpecValue], trailer: [SpecValue], extra: [UInt8] = []) {
    self.kind = kind
    self.header = header
    self.body = body
    self.trailer = trailer
    self.extra = extra
  }
}

/// One field's value in a `SpecMessage`.
public enum SpecValue: Sendable, Equatable {
  /// An unsigned integer's bits (also enums, flags, lengths, counts).
  case unsigned(UInt64)
  case signed(Int64)
  /// A float's bits: a NaN decoded re-encodes as itself and compares equal.
  case float(UInt64)
  case bytes([UInt8])
  /// Text as its bytes (kept exactly, even when not valid UTF-8).
  case text([UInt8])
  case group([SpecValue])
  /// A repeated field's elements, each its fields' values.
  case list([[SpecValue]])
  /// A check field: the index of the variant it was (or is to be) computed with.
  case check(variant: Int)
  /// JSON values.
  case number(Double)
  case bool(Bool)
  /// A JSON key that is optional and not there.
  case absent

  var unsignedValue: UInt64? {
    switch self {
    case .unsigned(let value): value
    case .signed(let value): UInt64(bitPattern: value)
    default: nil
    }
  }
}
