/// A message of a spec codec: its kind and its values, enough to write
/// the same bytes again. What a Swift codec keeps in its own types
/// (`LegCtrlMessage`), a spec codec keeps here.
public struct SpecMessage: Sendable, Equatable {
  /// The index of its kind (`unknownKind` for the unknown message).
  public var kind: Int
  /// A JSON message's keys, in the spec's order.
  public var body: [SpecValue]
  /// A binary message's values.
  var tree: KsTree
  /// Bytes a binary message keeps after its fields (`-pktbench-size-mismatch: keep`).
  var extra: [UInt8]

  public static let unknownKind = -1

  init(kind: Int, body: [SpecValue] = [], tree: KsTree = .absent, extra: [UInt8] = []) {
    self.kind = kind
    self.body = body
    self.tree = tree
    self.extra = extra
  }
}

/// One key's value in a JSON `SpecMessage`.
public enum SpecValue: Sendable, Equatable {
  case signed(Int64)
  /// Text as its bytes (kept exactly, even when not valid UTF-8).
  case text([UInt8])
  case number(Double)
  case bool(Bool)
  /// A JSON key that is optional and not there.
  case absent
}
