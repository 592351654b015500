/// A field's unit as docs/protocols.md writes it (`µs`, `%`, `mV`, `°`).
///
/// Units come from the codecs' schemas, so they are literals: a
/// `StaticString` needs no reference counting, which keeps `DissectionNode`
/// (built for every field of every message) cheap to make and copy.
public struct FieldUnit: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
  public let text: StaticString

  public init(stringLiteral text: StaticString) {
    self.text = text
  }

  public init(_ text: StaticString) {
    self.text = text
  }

  public var description: String { text.description }

  /// Equal when the texts are (two literals with the same text may be
  /// stored apart).
  public static func == (lhs: FieldUnit, rhs: FieldUnit) -> Bool {
    lhs.text.withUTF8Buffer { left in
      rhs.text.withUTF8Buffer { UnsafeRawBufferPointer(left).sameBytes(as: UnsafeRawBufferPointer($0)) }
    }
  }

  public func hash(into hasher: inout Hasher) {
    text.withUTF8Buffer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}
