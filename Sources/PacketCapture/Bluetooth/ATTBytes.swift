/// An ATT value's bytes: an array the value owns, or a view of the capture
/// record being decoded.
///
/// A view is what `BluetoothDecoder.decodeBorrowing` delivers: it is valid
/// only while the event is being handled, and saves copying every value
/// into an array of its own (an allocation and a free per value). `decode`
/// delivers owned bytes only, so its events may be kept.
enum ATTBytes: @unchecked Sendable, Equatable {
  case owned([UInt8])
  /// Valid only during the `decodeBorrowing` callback that delivers it.
  case borrowed(UnsafeRawBufferPointer)

  var count: Int {
    switch self {
    case .owned(let array): array.count
    case .borrowed(let view): view.count
    }
  }

  /// The bytes as an array: a copy of a view.
  var array: [UInt8] {
    switch self {
    case .owned(let array): array
    case .borrowed(let view): [UInt8](view)
    }
  }

  /// The same bytes, owned: safe to keep after the callback.
  var owning: ATTBytes {
    if case .borrowed(let view) = self { return .owned([UInt8](view)) }
    return self
  }

  func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
    switch self {
    case .owned(let array): try array.withUnsafeBytes(body)
    case .borrowed(let view): try body(view)
    }
  }

  static func == (a: ATTBytes, b: ATTBytes) -> Bool {
    a.withBytes { x in b.withBytes { y in x.sameBytes(as: y) } }
  }
}
