/// A clean message's name and top-level fields as scalars, in wire order,
/// held inline: what `FrameCodec.cleanFields` fills so that summary lines
/// and ndjson can write a message without building a dissection tree.
///
/// Names, units and text values are static strings (the codec's own
/// literals), so filling one allocates nothing. `nodes` gives the same
/// fields as the dissection tree `decode` returns; the fuzzer holds the two
/// equal on every input.
@frozen
public struct FlatFields: Sendable {
  @frozen
  public enum Value: Sendable {
    case integer(Int64)
    case number(Double)
    /// A string value from the codec's vocabulary (plain ASCII, no quotes
    /// or backslashes: it is written without escaping).
    case text(StaticString)
  }

  @frozen
  public struct Field: Sendable {
    public var name: StaticString
    public var value: Value
    /// "" when the field has no unit.
    public var unit: StaticString
    /// Byte range within the payload.
    public var range: Range<Int>

    @inlinable
    public init(_ name: StaticString, _ value: Value, unit: StaticString = "", range: Range<Int>) {
      self.name = name
      self.value = value
      self.unit = unit
      self.range = range
    }

    /// The value as the dissection tree holds it.
    public var fieldValue: FieldValue {
      switch value {
      case .integer(let v): .integer(v)
      case .number(let v): .number(v)
      case .text(let text): .string(text.description)
      }
    }

    public var hasUnit: Bool { unit.utf8CodeUnitCount > 0 }
  }

  public static let capacity = 8

  /// The message kind's name in PROTOCOLS.md.
  public var message: StaticString = ""
  @inlinable public var count: Int { used }
  @usableFromInline
  var used = 0
  @usableFromInline
  var storage: (Field, Field, Field, Field, Field, Field, Field, Field)

  @usableFromInline
  static let unused = Field("", .integer(0), range: 0..<0)

  public init() {
    let unused = Self.unused
    storage = (unused, unused, unused, unused, unused, unused, unused, unused)
  }

  /// Adds a field; false (and nothing added) when all `capacity` are used.
  @discardableResult
  @inlinable
  public mutating func append(_ field: Field) -> Bool {
    switch used {
    case 0: storage.0 = field
    case 1: storage.1 = field
    case 2: storage.2 = field
    case 3: storage.3 = field
    case 4: storage.4 = field
    case 5: storage.5 = field
    case 6: storage.6 = field
    case 7: storage.7 = field
    default: return false
    }
    used += 1
    return true
  }

  @inlinable
  public mutating func removeAll() {
    used = 0
    message = ""
  }

  @inlinable
  public subscript(index: Int) -> Field {
    precondition(index >= 0 && index < count, "flat field \(index) of \(count)")
    return switch index {
    case 0: storage.0
    case 1: storage.1
    case 2: storage.2
    case 3: storage.3
    case 4: storage.4
    case 5: storage.5
    case 6: storage.6
    default: storage.7
    }
  }

  /// The fields of the value at `pointer`, read in place: no field is
  /// copied out (a `Field` is 64 bytes, and the subscript's switch copies
  /// one per read). The buffer is valid while the value at `pointer` is
  /// neither changed nor deinitialized.
  @inlinable
  public static func fields(at pointer: UnsafePointer<FlatFields>) -> UnsafeBufferPointer<Field> {
    // The storage is a homogeneous tuple: its elements lie one stride apart.
    UnsafeBufferPointer(
      start: UnsafeRawPointer(pointer).advanced(by: storageOffset).assumingMemoryBound(to: Field.self),
      count: pointer.pointee.used)
  }

  @usableFromInline
  static let storageOffset: Int = {
    guard let offset = MemoryLayout<FlatFields>.offset(of: \FlatFields.storage) else {
      preconditionFailure("FlatFields.storage is a stored property: it has an offset")
    }
    return offset
  }()

  /// The fields as the leaves of a dissection tree.
  public var nodes: [DissectionNode] {
    (0..<count).map { index in
      let field = self[index]
      return DissectionNode(
        field.name.description, field.fieldValue, unit: field.hasUnit ? field.unit.description : nil,
        range: field.range)
    }
  }
}
