/// A literal of a filter (a string, number or boolean), made once when
/// the filter is compiled. A string's bytes live out of line, so that each
/// comparison can lend them as a `FilterValue` without copying.
public final class FilterLiteral: @unchecked Sendable {
  // Unchecked: the bytes are written once, in `init`, and only read after.
  public enum Kind: Sendable, Equatable {
    case text
    case number(FilterNumber)
    case boolean(Bool)
  }

  public let kind: Kind
  /// The literal as written in the filter, for messages.
  public let written: String
  private let storage: UnsafeMutableRawBufferPointer

  public init(text bytes: [UInt8], written: String) {
    kind = .text
    self.written = written
    storage = .allocate(byteCount: max(bytes.count, 1), alignment: 1)
    storage.copyBytes(from: bytes)
    count = bytes.count
  }

  public init(_ kind: Kind, written: String) {
    precondition(kind != .text, "text literals are made with init(text:written:)")
    self.kind = kind
    self.written = written
    storage = .allocate(byteCount: 1, alignment: 1)
    count = 0
  }

  private let count: Int

  deinit { storage.deallocate() }

  /// The text's bytes (empty for a number or boolean).
  public var bytes: UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(storage)[0..<count])
  }

  /// The literal as a value to compare with a field's.
  @inline(__always)
  public var value: FilterValue {
    switch kind {
    case .text: .text(bytes)
    case .number(.integer(let v)): .integer(v)
    case .number(.unsigned(let v)): .unsigned(v)
    case .number(.number(let v)): .number(v)
    case .boolean(let v): .boolean(v)
    }
  }
}
