/// A field's unit as PROTOCOLS.md writes it (`µs`, `%`, `mV`, `°`).
///
/// Units come from the codecs' schemas, so they are literals: a
/// `StaticString` needs no reference counting. That matters to
/// `DissectionNode`, built for every field of every decoded message: with a
/// `String` unit it held four reference-counted fields, one more than the
/// optimizer takes apart, and each node built was copied once and the
/// original destroyed (through the type's value witnesses: ~230
/// instructions per node).
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
